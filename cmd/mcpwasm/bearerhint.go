package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// bearerHint wraps a client command's OAuth handler: when a server answers 401 with a plain
// bearer challenge — WWW-Authenticate: Bearer, no resource_metadata pointing at an
// authorization server — and the OAuth flow then fails (against mcpwasm serve --http with
// MCPWASM_HTTP_TOKEN it failed with "failed to register client … 401"), the error says that
// the server wants a bearer token and how to pass one.
type bearerHint struct {
	inner     auth.OAuthHandler
	url       string
	hasHeader bool // --header gave an Authorization header
}

func (b *bearerHint) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	return b.inner.TokenSource(ctx)
}

func (b *bearerHint) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	status, challenge := resp.StatusCode, resp.Header.Get("WWW-Authenticate")
	err := b.inner.Authorize(ctx, req, resp)
	if err == nil || status != http.StatusUnauthorized || !plainBearer(challenge) {
		return err
	}
	if b.hasHeader {
		return fmt.Errorf("%s refused the bearer token given with --header (401, WWW-Authenticate: %s), and offers no OAuth to get another: check the token: %w", b.url, challenge, err)
	}
	return fmt.Errorf("%s wants a bearer token (401, WWW-Authenticate: %s) and offers no OAuth to get one: pass it with --header 'Authorization: Bearer TOKEN' (for mcpwasm serve --http, the server's MCPWASM_HTTP_TOKEN): %w", b.url, challenge, err)
}

// plainBearer reports whether a WWW-Authenticate value is a Bearer challenge that names no
// protected resource metadata (RFC 9728 §5.1), i.e. no way to an authorization server.
func plainBearer(challenge string) bool {
	scheme, params, _ := strings.Cut(strings.TrimSpace(challenge), " ")
	return strings.EqualFold(scheme, "Bearer") && !strings.Contains(strings.ToLower(params), "resource_metadata")
}

// hasAuthorization reports whether headers set Authorization (any case).
func hasAuthorization(headers map[string]string) bool {
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}
