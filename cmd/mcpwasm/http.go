package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpFlags are serve's Streamable HTTP flags.
type httpFlags struct {
	addr         string
	stateless    bool
	jsonResponse bool
	tokenEnv     string
	idleTimeout  time.Duration
	maxSessions  int
	drainDelay   time.Duration
	drainTimeout time.Duration
	metrics      http.Handler // GET /metrics (observe.go); nil: none
	guard        httpGuard    // exposure and slow clients (httpguard.go)
	// auth makes the server an OAuth 2.1 resource server (the config's http_auth); nil: the
	// bearer token alone, or none.
	auth *mcpserver.ResourceServer
	// publicErr is checkPublicHTTP's refusal, held until the config is read: http_auth
	// protects a public address too.
	publicErr error
	// stopCalls ends the guest calls still running at the drain timeout, each answered with
	// an error naming the shutdown (runtime.Host.Shutdown); nil: none.
	stopCalls func()
}

// answerGrace is how long, after the drain timeout has ended the calls still running, their
// answers may take to be written before the connections are closed.
const answerGrace = 2 * time.Second

// token is the bearer token from the environment variable --token-env names, or "".
func (f *httpFlags) token() string {
	if f.tokenEnv == "" {
		return ""
	}
	return os.Getenv(f.tokenEnv)
}

func (f *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "http", "", "serve MCP Streamable HTTP on ADDR instead of stdio (\":8080\" binds 127.0.0.1:8080)")
	fs.BoolVar(&f.stateless, "stateless", false, "HTTP: no sessions for any request, whatever its protocol revision (default: sessionless 2026-07-28 requests stand alone, the rest use sessions)")
	fs.BoolVar(&f.jsonResponse, "json-response", false, "HTTP: answer POSTs with application/json instead of SSE")
	fs.StringVar(&f.tokenEnv, "token-env", "MCPWASM_HTTP_TOKEN", "HTTP: if this environment variable is set, require it as a bearer token")
	fs.DurationVar(&f.idleTimeout, "session-idle-timeout", mcpserver.DefaultSessionIdleTimeout, "HTTP: close a session after this long without a request (later requests with its id get 404; 0: never)")
	fs.IntVar(&f.maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "HTTP: most live sessions; a new one beyond is refused with 503 (0: no cap)")
	fs.DurationVar(&f.drainDelay, "drain-delay", 0, "HTTP: after SIGTERM/SIGINT, keep serving new requests this long with GET /readyz at 503, so a load balancer can stop routing here first (Kubernetes: a few seconds)")
	fs.DurationVar(&f.drainTimeout, "drain-timeout", defaultDrainTimeout, "HTTP: after the drain delay, how long requests in flight may finish before they are cut")
	f.guard.register(fs)
}

// orNever and orNoCap map the flags' 0 ("never", "no cap") to HTTPOptions' negative values
// (its zero means the default).
func orNever(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}

func orNoCap(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// defaultDrainTimeout is --drain-timeout's default: how long in-flight HTTP requests may
// finish after a stop signal (and the drain delay).
const defaultDrainTimeout = 10 * time.Second

// readiness is what GET /readyz reports (mcpserver.HTTPOptions.Ready): not ready until every
// guest's code has been compiled once (runtime.Guest.Ready; a guest whose compile failed keeps
// it not ready), and not ready again from the moment a stop signal arrives (draining wins).
// Once ready it stays so while guests' code is unloaded when idle and compiled again on use:
// that is a cache, not a reason to take the replica out of a load balancer.
type readiness struct {
	mu       sync.Mutex
	err      error // nil: ready
	draining bool
}

var errGuestsLoading = errors.New("guests compiling")

func newReadiness() *readiness { return &readiness{err: errGuestsLoading} }

// loaded records the outcome of every guest's first compile: nil when all are ready.
func (r *readiness) loaded(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.draining {
		r.err = err
	}
}

// drain marks the server as shutting down: not ready from now on.
func (r *readiness) drain() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.draining, r.err = true, errors.New("draining")
}

func (r *readiness) isDraining() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.draining
}

// check is mcpserver.HTTPOptions.Ready.
func (r *readiness) check() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// closeWhileDraining answers with "Connection: close" once draining, so clients and load
// balancers open a new connection (which goes to another replica) for their next request,
// instead of reusing one to a server about to stop (RFC 9112 §9.6).
func closeWhileDraining(r *readiness, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if r.isDraining() {
			w = closingWriter{w}
		}
		next.ServeHTTP(w, req)
	})
}

// closingWriter sets "Connection: close" just before the headers go out: the SDK's
// event-stream answers set "Connection: keep-alive" themselves, after closeWhileDraining ran.
type closingWriter struct{ http.ResponseWriter }

func (c closingWriter) WriteHeader(code int) {
	c.Header().Set("Connection", "close")
	c.ResponseWriter.WriteHeader(code)
}

func (c closingWriter) Write(b []byte) (int, error) {
	c.Header().Set("Connection", "close") // ignored once the headers are out
	return c.ResponseWriter.Write(b)
}

func (c closingWriter) Flush() {
	c.Header().Set("Connection", "close")
	http.NewResponseController(c.ResponseWriter).Flush() //nolint:errcheck // as http.Flusher
}

// Unwrap lets http.ResponseController reach the connection (deadlines, hijack).
func (c closingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// serveHTTP serves srv over Streamable HTTP until ctx is done (a stop signal), then drains:
// GET /readyz turns 503 at once; new requests are still served for f.drainDelay (a load
// balancer keeps sending for a while after it sees the replica go unready); then the listener
// closes and in-flight requests get f.drainTimeout to finish. A drain that ends in time, or
// whose timeout cuts requests, both exit 0 (ExitOK): the stop was asked for.
func serveHTTP(ctx context.Context, srv *mcp.Server, f *httpFlags, maxMessage int, logger *slog.Logger, guests string, tools int, ready *readiness) (int, error) {
	addr := f.addr
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		addr = net.JoinHostPort("127.0.0.1", port) // never all interfaces by accident
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return ExitError, err
	}
	ln = f.guard.listener(ln, logger) // --max-conns (httpguard.go)
	token := f.token()
	hopts := &mcpserver.HTTPOptions{
		Stateless: f.stateless, JSONResponse: f.jsonResponse, BearerToken: token,
		MaxRequestBodyBytes: int64(maxMessage), // --max-line-bytes caps a message on both transports
		SessionIdleTimeout:  orNever(f.idleTimeout), MaxSessions: orNoCap(f.maxSessions),
		Ready: ready.check, Metrics: f.metrics,
	}
	hopts.ResourceServer = f.auth
	f.guard.handlerOptions(hopts)                                                           // --body-timeout, --sse-keepalive
	hsrv := f.guard.server(closeWhileDraining(ready, mcpserver.NewHTTPHandler(srv, hopts))) // --header-timeout, --conn-idle-timeout
	logger.Info("serving", "transport", "http", "addr", ln.Addr().String(), "stateless", f.stateless,
		"auth", token != "" || f.auth != nil, "oauth", f.auth != nil, "guests", guests, "tools", tools)
	errc := make(chan error, 1)
	go func() { errc <- hsrv.Serve(ln) }()
	select {
	case err := <-errc:
		return ExitError, err
	case <-ctx.Done():
	}
	ready.drain()
	logger.Info("draining", "transport", "http", "delay", f.drainDelay, "timeout", f.drainTimeout)
	if f.drainDelay > 0 {
		t := time.NewTimer(f.drainDelay)
		select {
		case <-t.C:
		case err := <-errc:
			t.Stop()
			return ExitError, err
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), f.drainTimeout)
	defer cancel()
	err = hsrv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		// A call accepted is answered: the calls still running are ended (a tool error naming
		// the shutdown) and their answers written before the connections close.
		logger.Warn("drain timeout: ending calls still in flight", "transport", "http", "timeout", f.drainTimeout)
		if f.stopCalls != nil {
			f.stopCalls()
		}
		actx, acancel := context.WithTimeout(context.Background(), answerGrace)
		err = hsrv.Shutdown(actx)
		acancel()
		if errors.Is(err, context.DeadlineExceeded) {
			err = hsrv.Close() // what is left is no guest call (a stream, an upstream's call)
		}
	}
	<-errc // Serve has returned (http.ErrServerClosed)
	if err != nil {
		return ExitError, err
	}
	logger.Info("stopped", "transport", "http")
	return ExitOK, nil
}

// resourceServer is the mcpserver.ResourceServer of the config's http_auth; token is the
// --token-env bearer token, accepted as one identity when a.StaticToken.
func resourceServer(a *config.HTTPAuth, token string, logger *slog.Logger) *mcpserver.ResourceServer {
	rs := &mcpserver.ResourceServer{Resource: a.Resource, ScopesSupported: a.ScopesSupported,
		MaxSessionsPerIdentity: a.MaxSessionsPerIdentity, ClockSkew: time.Duration(a.ClockSkewS) * time.Second, Logger: logger}
	if a.StaticToken {
		rs.StaticToken = token
	}
	for _, is := range a.Issuers {
		mi := mcpserver.Issuer{Issuer: is.Issuer, JWKSURI: is.JWKSURI, Algorithms: is.Algorithms, GroupsClaim: is.GroupsClaim,
			IntrospectionURL: is.IntrospectionEndpoint, ClientID: is.ClientID}
		if is.ClientSecretEnv != "" {
			mi.ClientSecret = os.Getenv(is.ClientSecretEnv)
			if mi.ClientSecret == "" {
				logger.Warn("http_auth: introspection client secret variable is not set", "issuer", is.Issuer, "variable", is.ClientSecretEnv)
			}
		}
		rs.Issuers = append(rs.Issuers, mi)
	}
	if a.Policy != nil {
		rs.Policy = &mcpserver.Policy{}
		for _, r := range a.Policy {
			rs.Policy.Rules = append(rs.Policy.Rules, mcpserver.PolicyRule{Name: r.Name, Subjects: r.Subjects, Groups: r.Groups,
				Scopes: r.Scopes, Guests: r.Guests, Tools: r.Tools})
		}
	}
	return rs
}
