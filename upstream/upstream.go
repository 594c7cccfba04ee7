// Package upstream is mcpwasm's MCP client side, built on the MCP Go SDK: Dial connects to
// one MCP server — a command spawned and spoken to over stdio (our line-framed transport in
// client mode, no line cap) or a Streamable HTTP URL — and Manager keeps the upstream servers
// of a configuration: started lazily on first use, restarted after a crash with backoff,
// closed on shutdown. Manager implements peer.Upstreams, so guests call upstream tools
// through their mcp grants (ABI.md §6.5).
//
// What the SDK's own client leaves to us, and this package adds: a bound on connecting, with a
// fallback to plain initialize when a legacy server never answers server/discover (SEP-2575);
// a clear error for a server that answers an unsupported protocol version; lists followed
// across pages with a page cap, a stop on a repeated cursor, and de-duplication; and a
// notifications/cancelled for every call still outstanding when a session closes (MCP
// "Utilities › Cancellation"). Replies are matched to calls by id, and a late reply to a
// cancelled call is dropped (the SDK's jsonrpc2 layer does both).
package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Spec says how to reach one MCP server: exactly one of Command (stdio) or URL (Streamable
// HTTP, MCP spec 2025-11-25 "Transports").
type Spec struct {
	// Command is the program and its arguments. Command[0] is looked up in PATH; the child
	// gets a minimal environment plus Env (ChildEnv). The operator is trusted with it (it comes from the config or
	// the command line, never from a guest).
	Command []string
	// Env is added to the child's minimal environment: "NAME=VALUE" sets NAME, a bare
	// "NAME" passes our own value of NAME (if set).
	Env []string
	// Dir is the child's working directory; empty means ours.
	Dir string
	// URL is the server's MCP endpoint (http or https).
	URL string
	// Headers are added to every HTTP request, e.g. {"Authorization": "Bearer …"}.
	Headers map[string]string
	// OAuth, for a URL server, authorizes its requests (MCP 2025-11-25 "Authorization"): the
	// transport asks it for a token before each request and calls its Authorize on a 401, or
	// on a 403 with insufficient_scope (step-up), then retries once. One handler serves every
	// session of the server, so a token outlives restarts. Nil: no OAuth.
	OAuth auth.OAuthHandler
	// WrapTransport, if set, wraps the HTTP transport of a URL server under the operator's
	// headers: oauth.WrapTransport's DPoP proofs (RFC 9449). Nil: none.
	WrapTransport func(http.RoundTripper) http.RoundTripper
	// Elicit, if set, answers the server's form elicitations (MCP "Client Features ›
	// Elicitation"), and the form elicitation capability is declared; nil declares none.
	// It overrides Options.Client's ElicitationHandler for this server.
	Elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	// Start, instead of Command or URL, starts a server inside this process — a whole-server
	// guest's instance (runtime.Server.Start) — spoken to over its stdin and stdout as a
	// command is (MCP "Transports › stdio"). Closing the session calls the Process's Close.
	Start func(ctx context.Context) (Process, error)
	// Label names a Start server in messages (e.g. `guest "hello"`).
	Label string
	// Relay, if set, carries the server's requests and notifications to the real client
	// under its grants (relay.go); it overrides Elicit and Options.Client's handlers for
	// sampling, elicitation, roots, logging and progress, and calls Options.Client's
	// list_changed and resources/updated handlers before its own.
	Relay *Relay
}

// Process is a stdio MCP server running inside this process: Write reaches its stdin, Read
// reads its stdout, CloseWrite closes its stdin, and Close ends it (closing stdin, then
// stopping it after a grace) and returns when it has ended.
type Process interface {
	io.ReadWriteCloser
	CloseWrite() error
}

func (s Spec) String() string {
	if s.Start != nil {
		return s.Label
	}
	if s.URL != "" {
		return s.URL
	}
	return strings.Join(s.Command, " ")
}

// Options configure Dial and NewManager. Nil or zero fields mean the defaults.
type Options struct {
	// Name and Version identify this client in initialize; defaults "mcpwasm" and "dev".
	Name, Version string
	// Logger receives diagnostics: skipped lines, withheld pages, restarts. Nil discards them.
	Logger *slog.Logger
	// OnRestart, if set, is called (Manager only) each time server name is started again
	// after its session ended, for metrics. It must return quickly.
	OnRestart func(name string)
	// Client holds SDK client options (notification handlers, capabilities). It is copied;
	// Manager wraps its list_changed and resources/updated handlers (its own run after
	// them), and a Spec's Relay wraps them too.
	Client *mcp.ClientOptions
	// ConnectTimeout bounds connecting: process start or first HTTP request, server/discover
	// and initialize. Zero means 30 s.
	ConnectTimeout time.Duration
	// DiscoverTimeout bounds the server/discover probe (SEP-2575) that the SDK sends before
	// initialize; a legacy server that never answers it then gets a plain initialize. It
	// counts silence: over HTTP from the server's HTTP answer, over stdio from the probe and
	// again from each write to the server's stderr (the connect timeout bounds both). Zero
	// means 5 s.
	DiscoverTimeout time.Duration
	// TerminateGrace is how long closing a stdio server waits after closing its stdin before
	// SIGTERM, and after SIGTERM before SIGKILL (MCP "Lifecycle › Shutdown"). Zero means 2 s.
	TerminateGrace time.Duration
	// MaxLineBytes caps one message from a stdio server, in bytes; zero means no cap (the
	// SDK's own CommandTransport stops at 16 MiB). Over HTTP, zero also lifts the SDK's
	// 16 MiB cap on one server-sent event.
	MaxLineBytes int
	// MaxPages caps the pages followed by the list helpers; zero means 100.
	MaxPages int
	// Stderr receives a stdio server's stderr; nil discards it.
	Stderr io.Writer
	// HTTPClient is the base client for URL servers; nil means http.DefaultClient.
	HTTPClient *http.Client
	// InitializeOnly connects with initialize alone, at the newest version it negotiates
	// (2025-11-25), without the server/discover probe (SEP-2575). A whole-server guest's
	// instance is dialled so: it answers faster per call under that version (measured,
	// RATIONALE "Whole MCP servers (WASI commands)"), and its sessions are ours to keep.
	InitializeOnly bool

	relay *Relay // Spec.Relay, set by Dial
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.Name == "" {
		c.Name = "mcpwasm"
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = 30 * time.Second
	}
	if c.DiscoverTimeout <= 0 {
		c.DiscoverTimeout = 5 * time.Second
	}
	if c.TerminateGrace <= 0 {
		c.TerminateGrace = 2 * time.Second
	}
	if c.MaxPages <= 0 {
		c.MaxPages = 100
	}
	return c
}

// ErrConnectTimeout: the server did not complete initialize within Options.ConnectTimeout.
var ErrConnectTimeout = errors.New("connect timed out")

// VersionError: the server answered initialize with a protocol version this client does not
// support (MCP "Lifecycle › Version Negotiation": the client SHOULD then disconnect).
type VersionError struct {
	Version   string   // what the server answered
	Supported []string // what this client speaks, newest first
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("server answered protocol version %q, which this client does not support (supported: %s)",
		e.Version, strings.Join(e.Supported, ", "))
}

// Session is a connected MCP client session. Its Close sends notifications/cancelled for
// calls still outstanding, then shuts the server down (stdio) or ends the HTTP session.
type Session struct {
	*mcp.ClientSession
	spec     Spec
	logger   *slog.Logger
	maxPages int
	cancels  *cancelCount
	raw      *rawResults // raw tools/call results for CallToolExact (exact.go)
}

// Spec returns how the session's server was reached.
func (s *Session) Spec() Spec { return s.spec }

// Close waits briefly (at most 1 s) for the SDK to send the notifications/cancelled of calls
// whose context ended, then closes the session. Close is idempotent.
func (s *Session) Close() error {
	s.cancels.wait(time.Second)
	return s.ClientSession.Close()
}

// cancelCount matches calls that ended by cancellation (the SDK then sends
// notifications/cancelled off the caller's path) with cancellations written to the server, so
// Close does not race the SDK's goroutine and drop them.
type cancelCount struct{ expected, sent atomic.Int64 }

func (c *cancelCount) wait(max time.Duration) {
	deadline := time.Now().Add(max)
	for c.sent.Load() < c.expected.Load() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// Dial connects to the server spec describes and completes the MCP handshake. ctx bounds the
// connect (together with Options.ConnectTimeout); the session outlives it. Errors wrap
// ErrConnectTimeout or a *VersionError where they apply.
func Dial(ctx context.Context, spec Spec, opts *Options) (*Session, error) {
	o := opts.withDefaults()
	cancels := &cancelCount{}
	raw := newRawResults()
	given := spec
	var tracker *authTracker
	if spec.OAuth != nil {
		tracker = &authTracker{OAuthHandler: spec.OAuth}
		spec.OAuth = tracker
	}
	pr := newStdioProbe() // the server's signs of life while server/discover waits (discover.go)
	if spec.URL != "" {
		pr = newProbe()
	}
	t, err := newTransport(spec, o, cancels, raw, pr)
	if err != nil {
		return nil, err
	}
	wrap := func(t mcp.Transport) mcp.Transport {
		t = raw.wrap(t)
		if spec.Relay != nil && spec.URL == "" {
			t = &logTransport{Transport: t, relay: spec.Relay} // relay.go
		}
		return t
	}
	t = wrap(t)
	cctx, cancel := context.WithTimeoutCause(ctx, o.ConnectTimeout, ErrConnectTimeout)
	defer cancel()
	if spec.Elicit != nil {
		co := mcp.ClientOptions{}
		if o.Client != nil {
			co = *o.Client
		}
		co.ElicitationHandler = spec.Elicit
		caps := &mcp.ClientCapabilities{}
		if co.Capabilities != nil {
			c := *co.Capabilities
			caps = &c
		}
		caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
		co.Capabilities = caps
		o.Client = &co
	}
	if spec.Relay != nil {
		co := mcp.ClientOptions{}
		if o.Client != nil {
			co = *o.Client
		}
		co = spec.Relay.options(co)
		if spec.URL != "" {
			co.LoggingMessageHandler = nil // relayed as the event stream is read (logBody)
		}
		o.Client = &co
		o.relay = spec.Relay
	}
	cs, err := connect(cctx, t, o, cancels, tracker, pr, !o.InitializeOnly)
	if errors.Is(err, errDiscoverSilent) {
		// The server never answered server/discover. It may be a legacy server that ignores
		// it, or one still starting; either way a fresh connection that sends only initialize
		// works, where initialize on this one could meet a late discover reply.
		o.Logger.Info("upstream: no answer to server/discover; reconnecting with initialize only", "server", spec.String(), "waited", o.DiscoverTimeout)
		if t, err = newTransport(spec, o, cancels, raw, nil); err == nil {
			cs, err = connect(cctx, wrap(t), o, cancels, tracker, nil, false)
		}
	}
	if err != nil {
		switch {
		case context.Cause(cctx) == ErrConnectTimeout && ctx.Err() == nil:
			return nil, fmt.Errorf("%s: %w: no answer to initialize within %v", spec, ErrConnectTimeout, o.ConnectTimeout)
		case strings.Contains(err.Error(), "unsupported protocol version: "):
			_, v, _ := strings.Cut(err.Error(), "unsupported protocol version: ")
			if uq, qerr := strconv.Unquote(v); qerr == nil {
				v = uq
			}
			return nil, fmt.Errorf("%s: %w", spec, &VersionError{Version: v, Supported: mcp.SupportedProtocolVersions()})
		}
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	if o.relay != nil {
		o.relay.afterConnect(cctx, cs)
	}
	return &Session{ClientSession: cs, spec: given, logger: o.Logger, maxPages: o.MaxPages, cancels: cancels, raw: raw}, nil
}

// errDiscoverSilent ends a connect attempt whose server/discover went unanswered.
var errDiscoverSilent = errors.New("no answer to server/discover")

func newTransport(spec Spec, o Options, cancels *cancelCount, raw *rawResults, pr *probe) (mcp.Transport, error) {
	switch {
	case spec.Start != nil && len(spec.Command) == 0 && spec.URL == "":
		return &processTransport{spec: spec, opts: o, cancels: cancels}, nil
	case len(spec.Command) > 0 && spec.URL == "":
		return &commandTransport{spec: spec, opts: o, cancels: cancels, probe: pr}, nil
	case spec.URL != "" && len(spec.Command) == 0:
		return httpTransport(spec, o, cancels, raw, pr), nil
	}
	return nil, errors.New("upstream: give exactly one of a command, a URL or a Start")
}

// connect runs the SDK's handshake on t. With discover, the SDK probes server/discover first
// (SEP-2575), bounded by o.DiscoverTimeout; without, it sends initialize at the newest legacy
// version.
func connect(ctx context.Context, t mcp.Transport, o Options, cancels *cancelCount, tracker *authTracker, pr *probe, discover bool) (*mcp.ClientSession, error) {
	var co mcp.ClientOptions
	if o.Client != nil {
		co = *o.Client
	}
	if co.Logger == nil {
		co.Logger = o.Logger
	}
	if co.Capabilities == nil {
		co.Capabilities = &mcp.ClientCapabilities{} // no roots: we have none to offer
	}
	client := mcp.NewClient(&mcp.Implementation{Name: o.Name, Version: o.Version}, &co)
	registerTaskMethods(client) // tasks.go
	client.AddSendingMiddleware(sendMiddleware(cancels, o.DiscoverTimeout, tracker, pr))
	client.AddReceivingMiddleware(unsupportedRequests(&co)) // unsupported.go
	if o.relay != nil {
		client.AddReceivingMiddleware(o.relay.rootsMiddleware) // relay.go
	}
	var so *mcp.ClientSessionOptions
	if !discover {
		so = &mcp.ClientSessionOptions{ProtocolVersion: legacyVersion}
	}
	return client.Connect(ctx, t, so)
}

// legacyVersion is the newest protocol version negotiated by initialize alone.
const legacyVersion = "2025-11-25"

// sendMiddleware gives the SDK's server/discover probe its own deadline: when it passes, the
// SDK cancels the probe (a late answer is dropped), and the initialize that the SDK sends next
// fails with errDiscoverSilent, so Dial starts over on a fresh connection. The deadline counts
// silence, not the server's slowness: over HTTP (pr not nil) it starts when the server has
// answered the probe's POST at the HTTP level (response headers: a live server that has not
// sent the JSON-RPC answer) and starts over at each such answer, so a server that takes long
// to answer at all — a loaded machine, a slow OAuth metadata round — is waited for (the
// connect timeout bounds that); over stdio it starts at once and starts over at each write
// to the server's stderr (liveWriter: a server still starting, such as mcpwasm serve
// compiling its guests, is not taken for one that ignores the probe). It waits while tracker says an
// OAuth authorization is in progress. It also counts calls that end because their context
// did: the SDK then sends a notifications/cancelled for each (MCP "Utilities › Cancellation").
func sendMiddleware(c *cancelCount, discover time.Duration, tracker *authTracker, pr *probe) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		silent := false // server/discover timed out on this connection
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch {
			case method == "server/discover":
				dctx, cancel := context.WithCancel(ctx)
				defer cancel()
				stop := make(chan struct{})
				defer close(stop)
				go func() {
					var t *time.Timer
					var expired <-chan time.Time
					start := func() {
						if t == nil {
							t = time.NewTimer(discover)
							expired = t.C
						} else {
							t.Reset(discover)
						}
					}
					var answered <-chan struct{}
					if pr == nil || pr.atOnce {
						start()
					}
					if pr != nil {
						answered = pr.answered
					}
					defer func() {
						if t != nil {
							t.Stop()
						}
					}()
					for {
						select {
						case <-stop:
							return
						case <-answered:
							start()
						case <-expired:
							if tracker.authorizing() {
								t.Reset(discover)
								continue
							}
							cancel()
							return
						}
					}
				}()
				res, err := next(dctx, method, req)
				if err != nil && dctx.Err() != nil && ctx.Err() == nil {
					c.expected.Add(1)
					silent = true
				}
				return res, err
			case method == "initialize" && silent:
				return nil, errDiscoverSilent
			}
			res, err := next(ctx, method, req)
			if err != nil && ctx.Err() != nil && method != "initialize" && !strings.HasPrefix(method, "notifications/") {
				c.expected.Add(1)
			}
			return res, err
		}
	}
}
