// Package redirect decides, in one place, which request headers cross an HTTP redirect hop;
// every client of mcpwasm that follows redirects with credentials uses it (upstream MCP
// servers, a guest's net requests).
//
// A hop to the same origin as the request's first URL (scheme, host and port, RFC 6454)
// keeps every header. A hop to any other origin — another host, another port of the same
// host, or https downgraded to http — drops Authorization, Cookie, Proxy-Authorization and
// the caller's own credential headers (an upstream's configured headers). net/http's own rule
// compares host names only, so it keeps Authorization on a hop to another port or scheme of
// the same host, and headers a RoundTripper adds are not covered by it at all.
package redirect

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Sensitive are the headers dropped on every cross-origin hop.
var Sensitive = []string{"Authorization", "Cookie", "Proxy-Authorization"}

// Origin is u's scheme, lower-cased host and port (the scheme's default made explicit).
func Origin(u *url.URL) string {
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

// SameOrigin reports whether a and b have the same scheme, host and port.
func SameOrigin(a, b *url.URL) bool { return Origin(a) == Origin(b) }

// Apply applies the rule to req, the next hop of a chain that started at origin: unless req
// goes to the same origin, it deletes the Sensitive headers and the names in credentials.
func Apply(req *http.Request, origin *url.URL, credentials []string) {
	if origin != nil && SameOrigin(req.URL, origin) {
		return
	}
	for _, k := range Sensitive {
		req.Header.Del(k)
	}
	for _, k := range credentials {
		req.Header.Del(k)
	}
}
