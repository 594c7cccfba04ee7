package telemetry

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// TracingFromEnv returns a tracer provider that exports spans over OTLP/HTTP when the
// standard OpenTelemetry environment asks for it (OpenTelemetry "Environment Variable
// Specification"): OTEL_TRACES_EXPORTER=otlp, or OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set, unless OTEL_TRACES_EXPORTER=none or
// OTEL_SDK_DISABLED=true. The exporter reads the rest of the OTEL_EXPORTER_OTLP_* variables
// (headers, timeout, protocol must be http/protobuf). With none of them it returns nil and a
// no-op shutdown: tracing stays off and costs nothing. Call shutdown before exiting to flush
// spans. An OTEL_TRACES_EXPORTER other than otlp or none is an error.
func TracingFromEnv(ctx context.Context, serviceVersion string) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	noop := func(context.Context) error { return nil }
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") {
		return nil, noop, nil
	}
	switch exp := os.Getenv("OTEL_TRACES_EXPORTER"); exp {
	case "none":
		return nil, noop, nil
	case "otlp":
	case "":
		if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
			return nil, noop, nil
		}
	default:
		return nil, noop, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: only otlp (over HTTP) and none are supported", exp)
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, noop, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	// resource.Default reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; ours fill the gaps.
	res, err := resource.Merge(resource.NewSchemaless(semconv.ServiceName("mcpwasm"), semconv.ServiceVersion(serviceVersion)), resource.Default())
	if err != nil {
		res = resource.Default()
	}
	p := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	return p, p.Shutdown, nil
}
