package mcpserver

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure NewHTTPHandler. Nil means defaults.
type HTTPOptions struct {
	// Stateless serves every request in a fresh session, without Mcp-Session-Id, whatever
	// its protocol revision (MCP 2026-07-28 "Transports › Streamable HTTP" is sessionless).
	// Server-to-client requests and GET streams are then unavailable. By default both
	// generations are served: sessionless 2026-07-28 requests statelessly, everything else
	// in sessions (byGeneration).
	Stateless bool
	// JSONResponse answers POSTs with application/json instead of an SSE stream.
	JSONResponse bool
	// BearerToken, if set, is required in "Authorization: Bearer <token>" on every MCP
	// request (RFC 6750 §2.1); a missing or wrong token is 401 with WWW-Authenticate.
	BearerToken string
	// MaxRequestBodyBytes caps a request body; zero means the SDK's default (4 MiB).
	MaxRequestBodyBytes int64
	// SessionIdleTimeout closes a session that has had no request for this long; later
	// requests with its Mcp-Session-Id get 404 (MCP "Transports › Session Management"), so the
	// client starts a new session. Zero means DefaultSessionIdleTimeout; negative, never.
	SessionIdleTimeout time.Duration
	// MaxSessions caps live sessions; a new one over the cap is refused with 503 (see
	// sessionGate). Zero means DefaultMaxSessions; negative, no cap.
	MaxSessions int
	// Ready reports whether this server should get traffic, for GET /readyz: nil means ready
	// (200), an error means not ready (503, with the error's text). Nil Ready: always ready.
	// A load balancer or Kubernetes readiness probe uses it; GET /healthz (liveness) stays 200
	// whatever Ready says.
	Ready func() error
	// Metrics, if set, is served at GET /metrics (e.g. telemetry.Telemetry.Handler) behind
	// the same Host, Origin and bearer-token checks as MCP requests (metricsGate).
	Metrics http.Handler
	// BodyTimeout bounds the time a request body takes to arrive once the headers are in
	// (bodyDeadline, httpguard.go). Zero means DefaultBodyTimeout; negative, no bound.
	BodyTimeout time.Duration
	// ResourceServer, if set, makes the handler an OAuth 2.1 resource server with a policy
	// per identity (resource.go, policy.go); BearerToken is then ignored (give it as
	// ResourceServer.StaticToken to keep accepting it). Nil: BearerToken alone, or no
	// authentication.
	ResourceServer *ResourceServer
	// SSEKeepAlive is the interval of keep-alive comments on a session's GET stream and the
	// time any write to it may take (standaloneStreams, httpguard.go). Zero means
	// DefaultSSEKeepAlive; negative, neither.
	SSEKeepAlive time.Duration
}

// NewHTTPHandler serves s over MCP Streamable HTTP at every path, plus GET /healthz
// (liveness: 200 "ok" while the process serves), GET /readyz (readiness: 200 "ready", or
// 503 with HTTPOptions.Ready's error) and, with opts.Metrics, GET /metrics.
//
// Protection against DNS rebinding and cross-site requests (MCP "Security Best Practices ›
// Local MCP Server Compromise"): a request that reached a loopback address with a
// non-loopback Host header is 403 (the SDK's localhost protection), and a browser request
// from another origin (Sec-Fetch-Site / Origin not matching Host) is 403 (net/http's
// CrossOriginProtection). Neither creates a session.
//
// Sessions (stateful mode) follow MCP "Transports › Session Management": an idle session
// expires after SessionIdleTimeout, live sessions are capped at MaxSessions, and a request
// naming an expired or deleted session gets 404. Accept is negotiated by the answer's media
// type (406 if not allowed), and a request that cannot start a session gets -32600 as on
// stdio (httpsession.go).
func NewHTTPHandler(s *mcp.Server, opts *HTTPOptions) http.Handler {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	idle := o.SessionIdleTimeout
	switch {
	case idle == 0:
		idle = DefaultSessionIdleTimeout
	case idle < 0:
		idle = 0 // the SDK's "never"
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	var rs *resourceServer
	var rsErr error
	if o.ResourceServer != nil {
		rs, rsErr = newResourceServer(o.ResourceServer)
		if rsErr == nil && rs.cfg.Policy != nil {
			s.AddReceivingMiddleware(policyMiddleware(s, rs.cfg.Policy)) // policy.go
		}
		if rsErr == nil {
			s.AddReceivingMiddleware((&taskOwners{}).middleware) // taskowner.go
			s.AddReceivingMiddleware(identityMiddleware)         // identity.go
		}
	}
	sdkHandler := func(stateless bool) http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
			Stateless:           stateless,
			JSONResponse:        o.JSONResponse,
			MaxRequestBodyBytes: o.MaxRequestBodyBytes,
			SessionTimeout:      idle,
			// A client that hangs up stops its call's guest (for 2026-07-28 requests, where
			// the POST is the whole request).
			PropagateRequestCancellation: true,
		})
	}
	h := sdkHandler(true)
	if !o.Stateless {
		streams := &standaloneStreams{next: sdkHandler(false), keepAlive: orDefault(o.SSEKeepAlive, DefaultSSEKeepAlive)} // httpguard.go
		stateful := &sessionGate{server: s, max: o.MaxSessions, maxBody: o.MaxRequestBodyBytes, next: streams}            // httpsession.go
		if rs != nil {
			stateful.perIdentity = rs.cfg.MaxSessionsPerIdentity
		}
		h = byGeneration(h, stateful) // httpdual.go
	}
	h = taskNameHeader(o.MaxRequestBodyBytes, h) // taskhttp.go
	h = exactIDs(o.MaxRequestBodyBytes, h)       // httpid.go
	h = negotiate(o.JSONResponse, h)
	switch {
	case rsErr != nil:
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, rsErr.Error(), http.StatusInternalServerError) // fail closed
		})
	case rs != nil:
		h = rs.authenticateHTTP(policyGate(rs, s, o.MaxRequestBodyBytes, h)) // resource.go, policy.go
	case o.BearerToken != "":
		h = requireBearer(o.BearerToken, h)
	}
	h = originCheck(h)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if o.Ready != nil {
			if err := o.Ready(); err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte("not ready: " + err.Error() + "\n"))
				return
			}
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	if rs != nil {
		mux.HandleFunc("GET "+protectedResourcePrefix, rs.metadata) // RFC 9728 §3
		mux.HandleFunc("GET "+protectedResourcePrefix+"/{path...}", rs.metadata)
	}
	if o.Metrics != nil {
		if rs != nil {
			mux.Handle("GET /metrics", metricsGate("", rs.authenticateHTTP(o.Metrics)))
		} else {
			mux.Handle("GET /metrics", metricsGate(o.BearerToken, o.Metrics)) // telemetry.go
		}
	}
	mux.Handle("/", h)
	return bodyDeadline(orDefault(o.BodyTimeout, DefaultBodyTimeout), mux) // httpguard.go
}

// orDefault maps an option's zero to def; a negative value stays (it means "none").
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// originCheck refuses cross-origin browser requests. http.CrossOriginProtection lets
// non-browser requests (no Origin, no Sec-Fetch-Site) through, as MCP clients are.
func originCheck(next http.Handler) http.Handler {
	p := http.NewCrossOriginProtection()
	p.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
	}))
	inner := p.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// CrossOriginProtection only judges unsafe methods; an MCP GET stream carries
		// session data, so judge it too.
		if origin := r.Header.Get("Origin"); origin != "" && r.Method == http.MethodGet {
			if !sameOrigin(origin, r.Host) {
				http.Error(w, "cross-origin request refused", http.StatusForbidden)
				return
			}
		}
		inner.ServeHTTP(w, r)
	})
}

func sameOrigin(origin, host string) bool {
	_, rest, ok := strings.Cut(origin, "://")
	return ok && strings.EqualFold(rest, host)
}

// requireBearer checks "Authorization: Bearer <token>"; the scheme name is
// case-insensitive (RFC 9110 §11.1), the token is compared in constant time.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpwasm"`)
			http.Error(w, "missing or invalid bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
