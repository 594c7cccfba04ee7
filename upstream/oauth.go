package upstream

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// authTracker wraps a server's OAuth handler (Spec.OAuth) to tell whether an authorization is
// in progress on this connection: the server/discover probe's deadline does not run out while
// one is (its first request may be the one that gets the 401, and a user may be at a browser).
type authTracker struct {
	auth.OAuthHandler
	busy atomic.Int32
}

func (a *authTracker) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	a.busy.Add(1)
	defer a.busy.Add(-1)
	return a.OAuthHandler.Authorize(ctx, req, resp)
}

// authorizing reports whether an Authorize is running; a nil tracker never is.
func (a *authTracker) authorizing() bool { return a != nil && a.busy.Load() > 0 }
