package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/telemetry"
)

// Tracing is off (nil provider) unless the OTEL_* environment asks for it; with an endpoint,
// spans reach the collector over OTLP/HTTP at /v1/traces when the provider shuts down.
func TestTracingFromEnv(t *testing.T) {
	for _, v := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		t.Setenv(v, "")
	}
	ctx := context.Background()
	if tp, _, err := telemetry.TracingFromEnv(ctx, "test"); tp != nil || err != nil {
		t.Errorf("no environment: provider %v, err %v; want nil, nil", tp, err)
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "zipkin")
	if _, _, err := telemetry.TracingFromEnv(ctx, "test"); err == nil || err.Error() != `OTEL_TRACES_EXPORTER="zipkin": only otlp (over HTTP) and none are supported` {
		t.Errorf("zipkin: err %v", err)
	}

	var posts atomic.Int32
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/traces" {
			posts.Add(1)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	if tp, _, err := telemetry.TracingFromEnv(ctx, "test"); tp != nil || err != nil {
		t.Errorf("OTEL_TRACES_EXPORTER=none: provider %v, err %v; want nil, nil", tp, err)
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	tp, shutdown, err := telemetry.TracingFromEnv(ctx, "test")
	if err != nil || tp == nil {
		t.Fatalf("endpoint set: provider %v, err %v", tp, err)
	}
	_, span := tp.Tracer("test").Start(ctx, "tools/call echo")
	span.End()
	if err := shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if n := posts.Load(); n != 1 {
		t.Errorf("collector got %d OTLP posts, want 1", n)
	}
}
