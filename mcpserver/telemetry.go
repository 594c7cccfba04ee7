package mcpserver

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the tools/call spans.
const tracerName = "github.com/mcpwasm/mcpwasm/mcpserver"

// tracerOf returns the tracer of tp, or of the global provider (a no-op until one is
// installed) when tp is nil.
func tracerOf(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(tracerName)
}

// traceContext is W3C Trace Context (traceparent, tracestate), the propagation the OTel MCP
// conventions prescribe inside params._meta.
var traceContext propagation.TraceContext

// metaCarrier reads trace context keys from a request's params._meta.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// startToolCall starts the tools/call span of tool on guest g — named "tools/call {tool}"
// with the OTel MCP semantic conventions' attributes (mcp.method.name, gen_ai.tool.name,
// gen_ai.operation.name, mcp.session.id), a child of the trace in params._meta when the
// client sent one — and returns the context to run the call in and the func that ends it:
// done reports the call's error (nil for a result) and whether the result is a tool error to
// the guest's host (runtime.Guest.ReportCall, for metrics and status, which names the
// outcome) and ends the span, recording error.type for every outcome but ok.
func startToolCall(ctx context.Context, tracer trace.Tracer, g *runtime.Guest, tool string, req *mcp.CallToolRequest) (context.Context, func(err error, isError bool)) {
	start := time.Now()
	if meta := req.Params.Meta; meta != nil {
		if _, ok := meta["traceparent"]; ok {
			ctx = traceContext.Extract(ctx, metaCarrier(meta))
		}
	}
	attrs := []attribute.KeyValue{
		attribute.String("mcp.method.name", "tools/call"),
		attribute.String("gen_ai.tool.name", tool),
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("mcpwasm.guest", g.Name()),
	}
	if req.Session != nil {
		if id := req.Session.ID(); id != "" {
			attrs = append(attrs, attribute.String("mcp.session.id", id))
		}
	}
	if id := IdentityFrom(ctx); id != nil { // the caller, as the resource server knows it (identity.go)
		attrs = append(attrs, attribute.String("user.id", id.Subject))
	}
	ctx, span := tracer.Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	return ctx, func(err error, isError bool) {
		o := g.ReportCall(tool, err, isError, time.Since(start))
		span.SetAttributes(attribute.String("mcpwasm.outcome", o))
		if err != nil || isError {
			span.SetAttributes(attribute.String("error.type", o))
			span.SetStatus(codes.Error, o)
		}
		span.End()
	}
}

// MetricsHandler serves h (e.g. telemetry.Telemetry.Handler) behind the checks NewHTTPHandler
// gives MCP requests — Host (DNS rebinding), Origin, and bearerToken when not empty — for a
// metrics listener of its own.
func MetricsHandler(h http.Handler, bearerToken string) http.Handler {
	return metricsGate(bearerToken, h)
}

// metricsGate puts /metrics behind the checks MCP requests get: DNS-rebinding protection (a
// request that reached a loopback address must name a loopback host, as the SDK checks for
// MCP; MCP "Security Best Practices › Local MCP Server Compromise"), cross-origin protection,
// and the bearer token when one is set (RFC 6750 §2.1; Prometheus scrape configs send one
// with `authorization`).
func metricsGate(token string, h http.Handler) http.Handler {
	if token != "" {
		h = requireBearer(token, h)
	}
	h = originCheck(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopback(local.String()) && !isLoopback(r.Host) {
			http.Error(w, "invalid Host header", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// isLoopback reports whether addr (host or host:port) is localhost or a loopback IP.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
