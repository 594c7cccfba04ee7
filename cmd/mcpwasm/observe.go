package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/telemetry"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// observability is serve's metrics and tracing: both off unless asked for (--http or
// --metrics-addr for metrics; the OTEL_* environment for traces).
type observability struct {
	tel      *telemetry.Telemetry // nil: no observer on the host
	tp       trace.TracerProvider // nil: the global no-op provider
	shutdown func(context.Context) error
}

// newObservability sets up what serve was asked for. withMetrics is true with --http or
// --metrics-addr.
func newObservability(ctx context.Context, withMetrics bool) (*observability, error) {
	tp, shutdown, err := telemetry.TracingFromEnv(ctx, version())
	if err != nil {
		return nil, err
	}
	o := &observability{tp: tp, shutdown: shutdown}
	if withMetrics || tp != nil { // spans of capability requests come through the observer
		o.tel = telemetry.New(&telemetry.Options{TracerProvider: tp, ProcessMetrics: true})
	}
	return o, nil
}

// upstreamRestarted counts a restart of an upstream server, if metrics are on.
func (o *observability) upstreamRestarted(name string) {
	if o.tel != nil {
		o.tel.UpstreamRestarted(name)
	}
}

// watchServer makes mcpwasm_sessions_open count srv's sessions.
func (o *observability) watchServer(srv *mcp.Server) {
	if o.tel == nil {
		return
	}
	o.tel.WatchSessions(func() int {
		n := 0
		for range srv.Sessions() {
			n++
		}
		return n
	})
}

// metricsHandler is the /metrics handler, or nil when metrics are off.
func (o *observability) metricsHandler() http.Handler {
	if o.tel == nil {
		return nil
	}
	return o.tel.Handler()
}

func (o *observability) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = o.shutdown(ctx) // flushes spans; an unreachable collector is not the server's failure
}

// serveMetrics serves GET /metrics on addr (":9464" binds 127.0.0.1:9464) until ctx is done,
// behind the Host and Origin checks and the bearer token if one is set. It returns once
// listening; the server runs on wg.
func serveMetrics(ctx context.Context, wg *sync.WaitGroup, addr string, h http.Handler, token string, logger *slog.Logger) error {
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		addr = net.JoinHostPort("127.0.0.1", port) // never all interfaces by accident
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", mcpserver.MetricsHandler(h, token))
	hsrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("serving metrics", "addr", ln.Addr().String(), "path", "/metrics", "auth", token != "")
	wg.Go(func() {
		if err := hsrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics server", "err", err)
		}
	})
	wg.Go(func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = hsrv.Shutdown(sctx)
	})
	return nil
}
