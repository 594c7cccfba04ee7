package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Relay carries one server's server→client traffic to the real client (MCP 2025-11-25
// "Client Features" and "Utilities"): sampling/createMessage, elicitation/create and
// roots/list under grants, and notifications/message, notifications/progress, the
// list_changed notifications and notifications/resources/updated. It works through the
// go-sdk client's own handlers (Dial installs them): no JSON-RPC of ours.
//
// The relay declares sampling, elicitation (form and url) and roots to the server whatever
// the grants, so that a request without its grant is refused with an error naming the grant
// (a JSON-RPC error -32600 carrying e.g. `guest "everything" has no sampling grant
// (grants.sampling)`), never a bare "capability not declared".
type Relay struct {
	// Label names the server in refusals, e.g. `guest "everything"` or `upstream "docs"`.
	Label string
	// Sampling, Elicitation and Roots are the grants: without one, its request is refused
	// naming it.
	Sampling, Elicitation, Roots bool
	// Client returns the client session a request or notification arriving on ctx belongs
	// to, with the context to send on (the client's call in flight, so that over Streamable
	// HTTP the request travels on that call's stream; nil: ctx), or a nil session when it
	// cannot be told (then requests are refused and notifications dropped).
	Client func(ctx context.Context) (context.Context, *mcp.ServerSession)
	// Progress, if set, maps a progress notification from the server (by its token, which
	// we sent) to the client's token; ok false drops it.
	Progress func(token any) (client any, ss *mcp.ServerSession, ok bool)
	// Changed, if set, is called on notifications/tools|prompts|resources/list_changed with
	// "tools", "prompts" or "resources", and the session it came on. It must not block.
	Changed func(what string, cs *mcp.ClientSession)
	// Updated, if set, is called on notifications/resources/updated.
	Updated func(ctx context.Context, p *mcp.ResourceUpdatedNotificationParams)
}

// ErrNotGranted: a server→client request whose grant the server does not hold.
var ErrNotGranted = errors.New("not granted")

func (r *Relay) refuse(what, grant string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
		Message: fmt.Sprintf("%s: %s refused: %s has no %s grant (grants.%s)", what, r.Label, r.Label, grant, grant)}
}

// client returns the session of ctx that declared the capability, or an error saying why
// there is none.
func (r *Relay) client(ctx context.Context, method, capability string, declared func(*mcp.ClientCapabilities) bool) (context.Context, *mcp.ServerSession, error) {
	var ss *mcp.ServerSession
	var sendCtx context.Context
	if r.Client != nil {
		sendCtx, ss = r.Client(ctx)
	}
	if sendCtx == nil {
		sendCtx = ctx
	}
	if ss == nil {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("%s: %s refused: no single client call it belongs to", method, r.Label)}
	}
	if ip := ss.InitializeParams(); ip == nil || ip.Capabilities == nil || !declared(ip.Capabilities) {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("%s: %s refused: the client did not declare the %s capability", method, r.Label, capability)}
	}
	return sendCtx, ss, nil
}

// options returns co with the relay's handlers and capabilities.
func (r *Relay) options(co mcp.ClientOptions) mcp.ClientOptions {
	caps := &mcp.ClientCapabilities{}
	if co.Capabilities != nil {
		c := *co.Capabilities
		caps = &c
	}
	caps.Sampling = &mcp.SamplingCapabilities{}
	caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	caps.RootsV2 = &mcp.RootCapabilities{ListChanged: false}
	co.Capabilities = caps
	co.CreateMessageWithToolsHandler = nil
	co.CreateMessageHandler = func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		const m = "sampling/createMessage"
		if !r.Sampling {
			return nil, r.refuse(m, "sampling")
		}
		sctx, ss, err := r.client(ctx, m, "sampling", func(c *mcp.ClientCapabilities) bool { return c.Sampling != nil })
		if err != nil {
			return nil, err
		}
		return ss.CreateMessage(sctx, req.Params)
	}
	co.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		const m = "elicitation/create"
		if !r.Elicitation {
			return nil, r.refuse(m, "elicitation")
		}
		url := req.Params.Mode == "url"
		sctx, ss, err := r.client(ctx, m, "elicitation", func(c *mcp.ClientCapabilities) bool {
			if c.Elicitation == nil {
				return false
			}
			if url {
				return c.Elicitation.URL != nil
			}
			return true // form: an empty elicitation capability means form (MCP 2025-11-25)
		})
		if err != nil {
			return nil, err
		}
		return ss.Elicit(sctx, req.Params)
	}
	co.LoggingMessageHandler = func(ctx context.Context, req *mcp.LoggingMessageRequest) {
		r.log(ctx, req.Params) // unless Dial relays them as read: logTransport, logBody
	}
	co.ProgressNotificationHandler = func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
		if r.Progress == nil {
			return
		}
		tok, ss, ok := r.Progress(req.Params.ProgressToken)
		if !ok || ss == nil {
			return
		}
		p := *req.Params
		p.ProgressToken = tok
		_ = ss.NotifyProgress(ctx, &p)
	}
	changed := func(what string) func(*mcp.ClientSession) {
		return func(cs *mcp.ClientSession) {
			if r.Changed != nil {
				r.Changed(what, cs)
			}
		}
	}
	tools, prompts, resources := changed("tools"), changed("prompts"), changed("resources")
	prevTools, prevPrompts, prevResources, prevUpdated := co.ToolListChangedHandler, co.PromptListChangedHandler, co.ResourceListChangedHandler, co.ResourceUpdatedHandler
	co.ToolListChangedHandler = func(ctx context.Context, req *mcp.ToolListChangedRequest) {
		if prevTools != nil {
			prevTools(ctx, req)
		}
		tools(req.Session)
	}
	co.PromptListChangedHandler = func(ctx context.Context, req *mcp.PromptListChangedRequest) {
		if prevPrompts != nil {
			prevPrompts(ctx, req)
		}
		prompts(req.Session)
	}
	co.ResourceListChangedHandler = func(ctx context.Context, req *mcp.ResourceListChangedRequest) {
		if prevResources != nil {
			prevResources(ctx, req)
		}
		resources(req.Session)
	}
	co.ResourceUpdatedHandler = func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		if prevUpdated != nil {
			prevUpdated(ctx, req)
		}
		if r.Updated != nil {
			r.Updated(ctx, req.Params)
		}
	}
	return co
}

// rootsMiddleware answers roots/list from the real client (the SDK's own answer is its static
// list): under the roots grant, to a client that declared roots.
func (r *Relay) rootsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "roots/list" {
			return next(ctx, method, req)
		}
		if !r.Roots {
			return nil, r.refuse(method, "roots")
		}
		sctx, ss, err := r.client(ctx, method, "roots", func(c *mcp.ClientCapabilities) bool { return c.RootsV2 != nil || c.Roots.ListChanged })
		if err != nil {
			return nil, err
		}
		return ss.ListRoots(sctx, nil)
	}
}

// afterConnect sets the server's log level to debug when it declares logging, so that every
// message reaches the relay, which the real client's own level then filters.
func (r *Relay) afterConnect(ctx context.Context, cs *mcp.ClientSession) {
	if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Logging != nil {
		_ = cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"})
	}
}

// log hands a server's notifications/message to the client it belongs to, filtered by the
// level that client set on us.
func (r *Relay) log(ctx context.Context, p *mcp.LoggingMessageParams) {
	if r.Client == nil {
		return
	}
	sctx, ss := r.Client(ctx)
	if ss == nil {
		return
	}
	if sctx == nil {
		sctx = ctx
	}
	// The message is sent on the client's call in flight (over Streamable HTTP, that call's
	// stream) when there is one; should that call have ended meanwhile, on the session's own
	// stream.
	if err := ss.Log(sctx, p); err != nil && sctx != ctx {
		_ = ss.Log(context.WithoutCancel(ctx), p)
	}
}

// logTransport wraps a stdio or in-process server's transport so that its notifications/message
// are relayed from the read loop, in the order read: a message the server sent before a
// call's answer reaches the client while that call is still in flight, on its stream (the
// SDK hands notifications to its handlers asynchronously, possibly after the answer ended the
// call). A slow client holds up reading for at most logSendLimit per message.
type logTransport struct {
	mcp.Transport
	relay *Relay
}

// logSendLimit bounds relaying one log message from the read loop.
const logSendLimit = 10 * time.Second

func (t *logTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &logConn{Connection: c, relay: t.relay}, nil
}

type logConn struct {
	mcp.Connection
	relay *Relay
}

func (c *logConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return msg, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || req.IsCall() || req.Method != "notifications/message" {
			return msg, nil
		}
		var p mcp.LoggingMessageParams
		if json.Unmarshal(req.Params, &p) != nil {
			return msg, nil // the SDK answers what it cannot decode
		}
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), logSendLimit)
		c.relay.log(lctx, &p)
		cancel()
	}
}

// logBody is the body of a Streamable HTTP server's event stream (a POST's answer or the
// GET stream) under a relay: it hands the SDK the stream's bytes one event at a time, and
// relays a notifications/message event before handing over the bytes that complete it. The
// SDK decodes an event only once it has those bytes, so the server's log messages reach the
// client in the order the server sent them among its other messages: one sent during a call
// is relayed before the call's answer is decoded, while the call is in flight (the SDK's
// handlers get notifications asynchronously, possibly after the answer). This is the HTTP
// form of logTransport: the SDK's HTTP client connection cannot be wrapped (its
// sessionUpdated method is unexported), but its response bodies can. ctx is the request's:
// a POST's is the call's context, so its messages go to that call's client. The SDK's own
// LoggingMessageHandler is not set for such a server (Dial): each message is relayed once.
type logBody struct {
	io.ReadCloser
	ctx   context.Context
	relay *Relay

	pending []byte // read from the server, not yet handed over
	event   []byte // the current event's bytes handed over so far, up to logEventMax
	long    bool   // the current event is longer than logEventMax: not relayed
	nl      int    // consecutive line ends at the end of event ("\r" ignored)
	err     error  // the underlying Read's error, returned once pending is empty
	chunk   []byte // read buffer
}

func (b *logBody) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		if b.chunk == nil {
			b.chunk = make([]byte, 32<<10)
		}
		n, err := b.ReadCloser.Read(b.chunk)
		b.pending = append(b.pending, b.chunk[:n]...)
		b.err = err
	}
	// Hand over what fits in p, but not past the end of the current event (a blank line).
	end, complete := min(len(b.pending), len(p)), false
scan:
	for i, c := range b.pending[:end] {
		switch c {
		case '\n':
			b.nl++
		case '\r':
		default:
			b.nl = 0
		}
		if b.nl == 2 {
			end, complete = i+1, true
			b.nl = 0
			break scan
		}
	}
	if !b.long && len(b.event)+end > logEventMax {
		b.long, b.event = true, nil
	}
	if !b.long {
		b.event = append(b.event, b.pending[:end]...)
	}
	if complete {
		if !b.long {
			b.relayEvent(b.event)
		}
		b.event, b.long = b.event[:0], false
	}
	n := copy(p, b.pending[:end])
	b.pending = b.pending[n:]
	return n, nil
}

// logEventMax bounds the bytes of one event logBody keeps to decode it: a longer event (a
// large result; a stream whose events never end) is passed through unread, so a log message
// longer than this is not relayed.
const logEventMax = 1 << 20

// relayEvent relays ev if it is a "message" event whose data is a notifications/message.
func (b *logBody) relayEvent(ev []byte) {
	var data []string
	name := ""
	for _, line := range strings.Split(strings.ReplaceAll(string(ev), "\r\n", "\n"), "\n") {
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(d, " "))
		} else if e, ok := strings.CutPrefix(line, "event:"); ok {
			name = strings.TrimPrefix(e, " ")
		}
	}
	if len(data) == 0 || name != "" && name != "message" {
		return
	}
	msg, err := jsonrpc.DecodeMessage([]byte(strings.Join(data, "\n")))
	if err != nil {
		return // the SDK reports it
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.IsCall() || req.Method != "notifications/message" {
		return
	}
	var p mcp.LoggingMessageParams
	if json.Unmarshal(req.Params, &p) != nil {
		return
	}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), logSendLimit)
	defer cancel()
	b.relay.log(lctx, &p)
}
