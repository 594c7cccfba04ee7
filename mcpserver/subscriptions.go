package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscribe accepts resources/subscribe (MCP 2025-11-25 "Resources › Subscriptions") for a
// URI some guest serves — one of its resources, or a URI matching one of its templates; any
// other URI is the resource-not-found error, whose code protocolMiddleware fits to the
// negotiated revision. The SDK records the subscription per session and sends
// notifications/resources/updated only to subscribed sessions (Server.ResourceUpdated).
//
// A resource of an exposed server (a whole-server guest, exposeall.go) is subscribed to in
// that server too, through the session Exposed uses for the subscribing client (its own
// instance), so that its updates come (see ResourceUpdatedTo).
func (r *registry) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	if r.resource(req.Params.URI) != nil {
		return nil
	}
	e := r.exposedResource(req.Params.URI)
	if e == nil {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	cs, err := e.session(ctx)
	if err != nil {
		return fmt.Errorf("%s: subscribing to %q: %w", e.owner, req.Params.URI, err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: req.Params.URI}); err != nil {
		return fmt.Errorf("%s: subscribing to %q: %w", e.owner, req.Params.URI, err)
	}
	return nil
}

// unsubscribe accepts every resources/unsubscribe: unsubscribing from something never
// subscribed is harmless, and the SDK drops the session's subscription. One of an exposed
// server's resources is unsubscribed there too.
func (r *registry) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	e := r.exposedResource(req.Params.URI)
	if e == nil {
		return nil
	}
	cs, err := e.session(ctx)
	if err != nil {
		return fmt.Errorf("%s: unsubscribing from %q: %w", e.owner, req.Params.URI, err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: req.Params.URI}); err != nil {
		return fmt.Errorf("%s: unsubscribing from %q: %w", e.owner, req.Params.URI, err)
	}
	return nil
}

func (r *registry) exposedResource(uri string) *Exposed {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.exposedRes[uri]
}

// targetMeta is the _meta key carrying a ResourceUpdatedTo's nonce through the SDK's fan-out;
// updatedFilter removes it before anything is sent.
const targetMeta = "mcpwasm.internal/target"

// ResourceUpdatedTo sends notifications/resources/updated for p.URI to the client session
// ss of s alone, if it subscribed to that URI: an exposed server's instance belongs to one
// client session, so its updates are that session's (another session subscribed to the same
// URI has its own instance, and its own updates).
func ResourceUpdatedTo(ctx context.Context, s *mcp.Server, ss *mcp.ServerSession, p *mcp.ResourceUpdatedNotificationParams) error {
	r := registryOf(s)
	if r == nil || ss == nil {
		return nil
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	nonce := hex.EncodeToString(b[:])
	r.mu.Lock()
	if r.targets == nil {
		r.targets = map[string]*mcp.ServerSession{}
	}
	r.targets[nonce] = ss
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.targets, nonce)
		r.mu.Unlock()
	}()
	cp := *p
	cp.Meta = maps.Clone(p.Meta)
	if cp.Meta == nil {
		cp.Meta = mcp.Meta{}
	}
	cp.Meta[targetMeta] = nonce
	return s.ResourceUpdated(ctx, &cp)
}

// updatedFilter is a sending middleware: a notifications/resources/updated of
// ResourceUpdatedTo goes to its target session only, without the nonce.
func (r *registry) updatedFilter(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		u, ok := req.(*mcp.ServerRequest[*mcp.ResourceUpdatedNotificationParams])
		if !ok || u.Params == nil {
			return next(ctx, method, req)
		}
		nonce, ok := u.Params.Meta[targetMeta].(string)
		if !ok {
			return next(ctx, method, req)
		}
		r.mu.RLock()
		target := r.targets[nonce]
		r.mu.RUnlock()
		if target != u.Session {
			return nil, nil
		}
		cp := *u.Params
		cp.Meta = maps.Clone(u.Params.Meta)
		delete(cp.Meta, targetMeta)
		if len(cp.Meta) == 0 {
			cp.Meta = nil
		}
		return next(ctx, method, &mcp.ServerRequest[*mcp.ResourceUpdatedNotificationParams]{Session: u.Session, Params: &cp, Extra: u.Extra})
	}
}

// resourceUpdatedHook announces a guest's resource.updated request (ABI.md §6.8) to the
// sessions of s subscribed to the URI. It runs while the guest waits, so the notification
// leaves before the tool's result. It is sent without the call's context values: they name
// the calling session's request, and over Streamable HTTP the SDK would look for a stream of
// that request in every subscribed session (and drop the notification) instead of using the
// session's standalone stream. The call's deadline and cancellation still apply.
func resourceUpdatedHook(ctx context.Context, s *mcp.Server) func(uri string) {
	return func(uri string) {
		nctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stop := context.AfterFunc(ctx, cancel)
		defer stop()
		_ = s.ResourceUpdated(nctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}
}
