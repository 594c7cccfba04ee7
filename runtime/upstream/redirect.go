package upstream

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Which headers cross a redirect is decided here, once, for every credential an HTTP upstream
// request can carry: the operator's configured headers (Spec.Headers, `--header`) and what
// the SDK sets (the OAuth bearer token). A hop to the same origin as the configured endpoint
// (scheme, host and port, RFC 6454) keeps them; a hop to any other origin — another host,
// another port of the same host, or https downgraded to http — drops Authorization, Cookie,
// Proxy-Authorization and every configured header. net/http's own rule compares host names
// only (ports and schemes not), and the header transport used to add the configured headers
// back on every hop.

// sensitiveHeaders are dropped on a cross-origin hop whether configured or not.
var sensitiveHeaders = []string{"Authorization", "Cookie", "Proxy-Authorization"}

// origin is u's scheme, lower-cased host and port (the scheme's default made explicit).
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool { return origin(a) == origin(b) }

// redirectPolicy is the CheckRedirect of an upstream's HTTP client: base's rule (nil: at most
// 10 hops), then the credential rule above for endpoint and the configured headers.
func redirectPolicy(endpoint *url.URL, configured map[string]string, base func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if base != nil {
			if err := base(req, via); err != nil {
				return err
			}
		} else if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if endpoint == nil || !sameOrigin(req.URL, endpoint) {
			stripCredentials(req.Header, configured)
		}
		return nil
	}
}

// stripCredentials deletes the sensitive and the configured headers from h.
func stripCredentials(h http.Header, configured map[string]string) {
	for _, k := range sensitiveHeaders {
		h.Del(k)
	}
	for k := range configured {
		h.Del(k)
	}
}
