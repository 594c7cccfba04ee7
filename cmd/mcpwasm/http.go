package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/mcpserver"
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
}

func (f *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "http", "", "serve MCP Streamable HTTP on ADDR instead of stdio (\":8080\" binds 127.0.0.1:8080)")
	fs.BoolVar(&f.stateless, "stateless", false, "HTTP: no sessions for any request, whatever its protocol revision (default: sessionless 2026-07-28 requests stand alone, the rest use sessions)")
	fs.BoolVar(&f.jsonResponse, "json-response", false, "HTTP: answer POSTs with application/json instead of SSE")
	fs.StringVar(&f.tokenEnv, "token-env", "MCPWASM_HTTP_TOKEN", "HTTP: if this environment variable is set, require it as a bearer token")
	fs.DurationVar(&f.idleTimeout, "session-idle-timeout", mcpserver.DefaultSessionIdleTimeout, "HTTP: close a session after this long without a request (later requests with its id get 404; 0: never)")
	fs.IntVar(&f.maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "HTTP: most live sessions; a new one beyond is refused with 503 (0: no cap)")
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

// httpShutdownGrace is how long in-flight HTTP requests may finish after a stop signal.
const httpShutdownGrace = 10 * time.Second

// serveHTTP serves srv over Streamable HTTP until ctx is done, then drains in-flight
// requests (up to httpShutdownGrace) and returns.
func serveHTTP(ctx context.Context, srv *mcp.Server, f *httpFlags, maxMessage int, logger *slog.Logger, guests string, tools int) (int, error) {
	addr := f.addr
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		addr = net.JoinHostPort("127.0.0.1", port) // never all interfaces by accident
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return ExitError, err
	}
	token := ""
	if f.tokenEnv != "" {
		token = os.Getenv(f.tokenEnv)
	}
	hsrv := &http.Server{
		Handler: mcpserver.NewHTTPHandler(srv, &mcpserver.HTTPOptions{
			Stateless: f.stateless, JSONResponse: f.jsonResponse, BearerToken: token,
			MaxRequestBodyBytes: int64(maxMessage), // --max-line-bytes caps a message on both transports
			SessionIdleTimeout:  orNever(f.idleTimeout), MaxSessions: orNoCap(f.maxSessions),
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	logger.Info("serving", "transport", "http", "addr", ln.Addr().String(), "stateless", f.stateless,
		"auth", token != "", "guests", guests, "tools", tools)
	errc := make(chan error, 1)
	go func() { errc <- hsrv.Serve(ln) }()
	select {
	case err := <-errc:
		return ExitError, err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), httpShutdownGrace)
	defer cancel()
	err = hsrv.Shutdown(sctx)
	<-errc // Serve has returned (http.ErrServerClosed)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return ExitError, err
	}
	logger.Info("stopped", "transport", "http")
	return ExitOK, nil
}
