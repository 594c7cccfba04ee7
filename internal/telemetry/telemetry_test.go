package telemetry_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/internal/telemetry"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

var probe struct {
	once sync.Once
	wasm []byte
	err  error
}

// probeWasm builds testdata/guests/probe (a Go guest whose "http" tool makes one http
// request) once per test binary.
func probeWasm(t *testing.T) []byte {
	t.Helper()
	probe.once.Do(func() {
		out := filepath.Join(os.TempDir(), fmt.Sprintf("mcpwasm-telemetry-probe-%d.wasm", os.Getpid()))
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "./testdata/guests/probe")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			probe.err = fmt.Errorf("building probe guest: %v\n%s", err, b)
			return
		}
		probe.wasm, probe.err = os.ReadFile(out)
		os.Remove(out)
	})
	if probe.err != nil {
		t.Fatal(probe.err)
	}
	return probe.wasm
}

// serve loads the fixture (as "fx", time limit 300ms) and the probe guest on a host observed
// by tel, serves each on its own MCP server (their "read" tools share a name), and returns a
// client session to each.
func serve(t *testing.T, tel *telemetry.Telemetry, tp trace.TracerProvider) (fx, pr *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true, Observer: tel})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	tel.WatchHost(h)
	fxg, err := h.Load(ctx, wat.Fixture, &runtime.GuestConfig{Name: "fx", Limits: runtime.Limits{Timeout: 300 * time.Millisecond, Instances: 2}})
	if err != nil {
		t.Fatal(err)
	}
	prg, err := h.Load(ctx, probeWasm(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var servers []*mcp.Server
	var sessions []*mcp.ClientSession
	for _, g := range []*runtime.Guest{fxg, prg} {
		srv, err := mcpserver.NewServer([]*runtime.Guest{g}, &mcpserver.Options{TracerProvider: tp})
		if err != nil {
			t.Fatal(err)
		}
		servers = append(servers, srv)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		sessions = append(sessions, cs)
	}
	tel.WatchSessions(func() int {
		n := 0
		for _, srv := range servers {
			for range srv.Sessions() {
				n++
			}
		}
		return n
	})
	return sessions[0], sessions[1]
}

func callTool(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatalf("%s: %v", params.Name, err)
	}
	return res
}

// Known calls — 3 ok, 1 tool error, 1 timeout, 1 http request denied (a tool error too) —
// show as exactly those counts in a scrape of /metrics; the histogram counts the same calls,
// and the gauges show the instances the calls left idle.
func TestMetricsAfterKnownCalls(t *testing.T) {
	tel := telemetry.New(nil)
	cs, pr := serve(t, tel, nil)
	if res := callTool(t, cs, &mcp.CallToolParams{Name: "spin"}); !res.IsError { // its instance is discarded
		t.Error("spin: not a tool error")
	}
	for range 3 {
		callTool(t, cs, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"n": 1}})
	}
	if res := callTool(t, cs, &mcp.CallToolParams{Name: "fail"}); !res.IsError {
		t.Error("fail: not a tool error")
	}
	if res := callTool(t, pr, &mcp.CallToolParams{Name: "http", Arguments: map[string]any{"url": "http://api.example.test/"}}); !res.IsError {
		t.Error("http: not a tool error")
	}

	web := httptest.NewServer(tel.Handler())
	defer web.Close()
	resp, err := http.Get(web.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var got []string
	for line := range strings.Lines(string(body)) {
		for _, prefix := range []string{"mcpwasm_tool_calls_total{", "mcpwasm_grant_denials_total{", "mcpwasm_capability_requests_total{",
			"mcpwasm_tool_call_duration_seconds_count{", "mcpwasm_instances{", "mcpwasm_sessions_open ", "mcpwasm_stopped ",
			"mcpwasm_manifest_cache_lookups_total{", `mcpwasm_linear_memory_bytes{guest="fx"}`} {
			if strings.HasPrefix(line, prefix) {
				got = append(got, strings.TrimSpace(line))
			}
		}
	}
	want := []string{
		`mcpwasm_capability_requests_total{guest="probe",kind="http",status="denied"} 1`,
		`mcpwasm_grant_denials_total{guest="probe",kind="http"} 1`,
		// The fixture's spin instance was discarded at its time limit; the one echo and fail
		// then ran in is idle, as is probe's.
		`mcpwasm_instances{guest="fx",state="busy"} 0`,
		`mcpwasm_instances{guest="fx",state="idle"} 1`,
		`mcpwasm_instances{guest="probe",state="busy"} 0`,
		`mcpwasm_instances{guest="probe",state="idle"} 1`,
		`mcpwasm_linear_memory_bytes{guest="fx"} 131072`, // fixture.wat: (memory 2), never grown
		`mcpwasm_manifest_cache_lookups_total{result="hit"} 0`,
		`mcpwasm_manifest_cache_lookups_total{result="miss"} 0`,
		`mcpwasm_sessions_open 2`,
		`mcpwasm_stopped 0`,
		`mcpwasm_tool_call_duration_seconds_count{guest="fx",outcome="ok",tool="echo"} 3`,
		`mcpwasm_tool_call_duration_seconds_count{guest="fx",outcome="timeout",tool="spin"} 1`,
		`mcpwasm_tool_call_duration_seconds_count{guest="fx",outcome="tool_error",tool="fail"} 1`,
		`mcpwasm_tool_call_duration_seconds_count{guest="probe",outcome="tool_error",tool="http"} 1`,
		`mcpwasm_tool_calls_total{guest="fx",outcome="ok",tool="echo"} 3`,
		`mcpwasm_tool_calls_total{guest="fx",outcome="timeout",tool="spin"} 1`,
		`mcpwasm_tool_calls_total{guest="fx",outcome="tool_error",tool="fail"} 1`,
		`mcpwasm_tool_calls_total{guest="probe",outcome="tool_error",tool="http"} 1`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scrape (-want +got):\n%s\nfull scrape:\n%s", diff, body)
	}
	// The histogram's sum is at least the timed-out call's limit.
	if !strings.Contains(string(body), "# TYPE mcpwasm_tool_call_duration_seconds histogram") {
		t.Error("no histogram in the scrape")
	}
	if n := testutil.CollectAndCount(tel.Registry(), "mcpwasm_guest_info"); n != 2 {
		t.Errorf("mcpwasm_guest_info has %d series, want 2 (fx, probe)", n)
	}
}

// A tools/call carrying a W3C traceparent in params._meta gets a "tools/call http" server span
// whose parent is the client's span, and the guest's http request a child span of it.
func TestTraceToolCallWithRequestSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	tel := telemetry.New(&telemetry.Options{TracerProvider: tp})
	_, cs := serve(t, tel, tp)
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	res := callTool(t, cs, &mcp.CallToolParams{Name: "http", Arguments: map[string]any{"url": "http://api.example.test/"},
		Meta: mcp.Meta{"traceparent": "00-" + traceID + "-" + parentID + "-01", "tracestate": "vendor=x"}})
	if !res.IsError {
		t.Fatal("http without a grant: not a tool error")
	}
	spans := rec.Ended()
	type span struct {
		Name, Kind, Trace, Parent string
		Attrs                     map[string]string
	}
	var got []span
	ids := map[string]string{} // span id → name
	for _, s := range spans {
		ids[s.SpanContext().SpanID().String()] = s.Name()
	}
	for _, s := range spans {
		attrs := map[string]string{}
		for _, a := range s.Attributes() {
			attrs[string(a.Key)] = a.Value.Emit()
		}
		parent := s.Parent().SpanID().String()
		if name, ok := ids[parent]; ok {
			parent = name
		}
		got = append(got, span{s.Name(), s.SpanKind().String(), s.SpanContext().TraceID().String(), parent, attrs})
	}
	want := []span{
		{"http", "client", traceID, "tools/call http", map[string]string{
			"mcpwasm.guest": "probe", "gen_ai.tool.name": "http", "mcpwasm.request.kind": "http", "mcpwasm.request.status": "denied"}},
		{"tools/call http", "server", traceID, parentID, map[string]string{
			"mcp.method.name": "tools/call", "gen_ai.tool.name": "http", "gen_ai.operation.name": "execute_tool",
			"mcpwasm.guest": "probe", "mcpwasm.outcome": "tool_error", "error.type": "tool_error"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	if ts := spans[len(spans)-1].Parent().TraceState().String(); ts != "vendor=x" {
		t.Errorf("tracestate = %q, want vendor=x", ts)
	}
}

// BenchmarkCallDone is the per-call cost of the tool-call counter and histogram.
func BenchmarkCallDone(b *testing.B) {
	tel := telemetry.New(nil)
	b.ReportAllocs()
	for b.Loop() {
		tel.CallDone("fx", "echo", "ok", time.Millisecond)
	}
}
