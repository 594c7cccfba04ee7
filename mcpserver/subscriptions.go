package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscribe accepts resources/subscribe (MCP 2025-11-25 "Resources › Subscriptions") for a
// URI some guest serves — one of its resources, or a URI matching one of its templates; any
// other URI is the resource-not-found error, whose code protocolMiddleware fits to the
// negotiated revision. The SDK records the subscription per session and sends
// notifications/resources/updated only to subscribed sessions (Server.ResourceUpdated).
//
// A URI of an exposed server (a whole-server guest or an upstream, exposeall.go) — one of
// its resources, or matching one of its resource templates — is subscribed to in that server
// too, through the session Exposed uses for the subscribing client (a guest's: the client's
// own instance; an upstream's: the one session every client shares), so that its updates
// come (see ResourceUpdatedTo). The server hears one subscribe per URI and session of ours
// to it, however many clients share that session.
func (r *registry) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if r.resource(uri) != nil {
		return nil
	}
	e := r.exposedResource(uri)
	if e == nil {
		return mcp.ResourceNotFoundError(uri)
	}
	cs, err := e.session(ctx)
	if err != nil {
		return fmt.Errorf("%s: subscribing to %q: %w", e.owner, uri, err)
	}
	if !r.addSub(cs, uri, req.Session) {
		return nil // subscribed through cs already
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		r.dropSub(cs, uri, req.Session)
		return fmt.Errorf("%s: subscribing to %q: %w", e.owner, uri, err)
	}
	return nil
}

// unsubscribe accepts every resources/unsubscribe: unsubscribing from something never
// subscribed is harmless, and the SDK drops the session's subscription. A URI of an exposed
// server is unsubscribed there too once no client session of ours is subscribed to it
// through that server's session.
func (r *registry) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	e := r.exposedResource(uri)
	if e == nil {
		return nil
	}
	cs, err := e.session(ctx)
	if err != nil {
		return fmt.Errorf("%s: unsubscribing from %q: %w", e.owner, uri, err)
	}
	if !r.dropSub(cs, uri, req.Session) {
		return nil // other sessions are still subscribed through cs, or ss never was
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		return fmt.Errorf("%s: unsubscribing from %q: %w", e.owner, uri, err)
	}
	return nil
}

// exposedResource is the exposed server serving uri: the one listing it, else the one
// whose resource template matches it (templates in lexical order: overlapping templates of
// different servers are not detected, RATIONALE "one owner per … template"), else nil.
func (r *registry) exposedResource(uri string) *Exposed {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e := r.exposedRes[uri]; e != nil {
		return e
	}
	for _, t := range r.exposedTmpl {
		if t.re.MatchString(uri) {
			return t.e
		}
	}
	return nil
}

// addSub records that ss subscribed to uri through cs; it reports whether ss is the first
// (the server is to be told). A session that ends is dropped from every subscription, and
// the servers it was the last subscriber through are told (forgetSession).
func (r *registry) addSub(cs *mcp.ClientSession, uri string, ss *mcp.ServerSession) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.subs == nil {
		r.subs = map[*mcp.ClientSession]map[string]map[*mcp.ServerSession]bool{}
	}
	byURI := r.subs[cs]
	if byURI == nil {
		byURI = map[string]map[*mcp.ServerSession]bool{}
		r.subs[cs] = byURI
	}
	set := byURI[uri]
	if set == nil {
		set = map[*mcp.ServerSession]bool{}
		byURI[uri] = set
	}
	first := len(set) == 0
	if ss != nil && !set[ss] {
		set[ss] = true
		if !r.watched(ss) {
			go r.forgetSession(ss)
		}
	}
	return first
}

// watched reports whether some subscription other than the one just added names ss (a
// goroutine already waits for its end). Called with r.mu held.
func (r *registry) watched(ss *mcp.ServerSession) bool {
	n := 0
	for _, byURI := range r.subs {
		for _, set := range byURI {
			if set[ss] {
				n++
			}
		}
	}
	return n > 1
}

// dropSub forgets that ss subscribed to uri through cs; it reports whether ss was the last
// (the server is to be told).
func (r *registry) dropSub(cs *mcp.ClientSession, uri string, ss *mcp.ServerSession) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	set := r.subs[cs][uri]
	if !set[ss] {
		return false
	}
	delete(set, ss)
	if len(set) > 0 {
		return false
	}
	delete(r.subs[cs], uri)
	if len(r.subs[cs]) == 0 {
		delete(r.subs, cs)
	}
	return true
}

// forgetSession waits for ss to end and drops its subscriptions, unsubscribing in each
// server it was the last subscriber through (a session that ended is no one's to notify).
func (r *registry) forgetSession(ss *mcp.ServerSession) {
	_ = ss.Wait()
	type sub struct {
		cs  *mcp.ClientSession
		uri string
	}
	var last []sub
	r.mu.Lock()
	for cs, byURI := range r.subs {
		for uri, set := range byURI {
			if !set[ss] {
				continue
			}
			delete(set, ss)
			if len(set) == 0 {
				delete(byURI, uri)
				last = append(last, sub{cs, uri})
			}
		}
		if len(byURI) == 0 {
			delete(r.subs, cs)
		}
	}
	r.mu.Unlock()
	for _, s := range last {
		ctx, cancel := context.WithTimeout(context.Background(), unsubscribeWait)
		_ = s.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: s.uri}) // a closed session fails at once
		cancel()
	}
}

// unsubscribeWait bounds telling a server that the last subscriber to a URI has gone.
const unsubscribeWait = 5 * time.Second

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
