package upstream

import (
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/mcpwasm/mcpwasm/internal/redirect"
)

// redirectPolicy is the CheckRedirect of an upstream's HTTP client: base's rule (nil: at most
// 10 hops), then internal/redirect's for the configured endpoint, with the configured headers
// (Spec.Headers, `--header`) as credentials: they and Authorization (also the OAuth token the
// SDK sets), Cookie and Proxy-Authorization reach the endpoint's origin only. The header
// transport adds the configured headers to requests for that origin only.
func redirectPolicy(endpoint *url.URL, configured map[string]string, base func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	names := slices.Collect(maps.Keys(configured))
	return func(req *http.Request, via []*http.Request) error {
		if base != nil {
			if err := base(req, via); err != nil {
				return err
			}
		} else if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		redirect.Apply(req, endpoint, names)
		return nil
	}
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool { return redirect.SameOrigin(a, b) }
