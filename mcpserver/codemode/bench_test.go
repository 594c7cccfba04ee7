package codemode_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/guests"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/mcpserver/codemode"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkRunOverhead is one run_code call of a program that calls no tool, warm: the
// run's own overhead (type stripping, reset to a pristine instance, compiling and running
// the program) plus one in-memory MCP round trip. The target: ≤ 5 ms.
func BenchmarkRunOverhead(b *testing.B) {
	ctx := context.Background()
	m := codemode.New(codemode.Config{Enabled: true}, nil)
	host, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true, Upstreams: m.Upstreams()})
	if err != nil {
		b.Fatal(err)
	}
	defer host.Close(ctx)
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Serve(ctx, host, s, nil); err != nil {
		b.Fatal(err)
	}
	defer m.Close(ctx)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"code": "const xs: number[] = [1, 2, 3];\nreturn xs.map((x) => x * 2);"}
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: args})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkTransform is the type stripping alone (esbuild's Go API).
func BenchmarkTransform(b *testing.B) {
	src := "type T = { n: number };\nconst xs: T[] = [{ n: 1 }];\nconst r = await tools.calc.calc({ expression: xs.map((x) => x.n).join('+') });\nreturn r.value;"
	for b.Loop() {
		if _, err := codemode.Transform(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunAfterGrowth alternates a run that allocates some MiB (as the workload's run
// parsing 50 tool results does) with a small one, and reports each's time: the small run
// pays for whatever the first left (a fresh instance, had its memory grown past the
// snapshot's; next-µs/op is then RunOverhead's plus that).
func BenchmarkRunAfterGrowth(b *testing.B) {
	ctx := context.Background()
	m := codemode.New(codemode.Config{Enabled: true}, nil)
	host, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true, Upstreams: m.Upstreams()})
	if err != nil {
		b.Fatal(err)
	}
	defer host.Close(ctx)
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Serve(ctx, host, s, nil); err != nil {
		b.Fatal(err)
	}
	defer m.Close(ctx)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	grow := map[string]any{"code": "const a = []; for (let i = 0; i < 20000; i++) a.push({ i, s: 'x'.repeat(20) }); return a.length"}
	small := map[string]any{"code": "return 1"}
	var tg, ts time.Duration
	for b.Loop() {
		t0 := time.Now()
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: grow}); err != nil || res.IsError {
			b.Fatal(err, res)
		}
		t1 := time.Now()
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: small}); err != nil || res.IsError {
			b.Fatal(err, res)
		}
		tg += t1.Sub(t0)
		ts += time.Since(t1)
	}
	b.ReportMetric(float64(tg.Microseconds())/float64(b.N), "grow-µs/op")
	b.ReportMetric(float64(ts.Microseconds())/float64(b.N), "next-µs/op")
}

// BenchmarkWorkloadShape is the workload run without Node: 50 concurrent calls of a
// Go tool shaped like server-everything's get-resource-reference (a text, an embedded text
// resource, a text), the even ids kept by a regular expression, one calc call. Its time is
// code mode's own share of the workload: the tool calls cost microseconds here.
func BenchmarkWorkloadShape(b *testing.B) {
	ctx := context.Background()
	m := codemode.New(codemode.Config{Enabled: true}, nil)
	host, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true, Upstreams: m.Upstreams()})
	if err != nil {
		b.Fatal(err)
	}
	defer host.Close(ctx)
	var calc *runtime.Guest
	for _, bg := range guests.Default() {
		if bg.Name == "calc" {
			if calc, err = host.Load(ctx, bg.Wasm, &runtime.GuestConfig{Source: "bundled:calc"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	s, err := mcpserver.NewServer([]*runtime.Guest{calc}, nil)
	if err != nil {
		b.Fatal(err)
	}
	type refArgs struct {
		ResourceType string `json:"resourceType"`
		ResourceID   int    `json:"resourceId"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "everything__get-resource-reference", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a refArgs) (*mcp.CallToolResult, any, error) {
			id := strconv.Itoa(a.ResourceID)
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "Returning resource reference for Resource " + id + ":"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "demo://resource/static/document/" + id, MIMEType: "text/plain",
					Text: "Resource " + id + ": This is a plain text resource with some content to make it look like a real one."}},
				&mcp.TextContent{Text: "You can access this resource using the URI: demo://resource/static/document/" + id},
			}}, nil, nil
		})
	group := func(tool string) string {
		if strings.HasPrefix(tool, "everything__") {
			return "everything"
		}
		return "calc"
	}
	if err := m.Serve(ctx, host, s, &codemode.ServeOptions{Group: group}); err != nil {
		b.Fatal(err)
	}
	defer m.Close(ctx)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"code": `
const refs = await Promise.all(Array.from({ length: 50 }, (_, i) =>
  tools.everything.getResourceReference({ resourceType: "Text", resourceId: i + 1 })));
const even = refs
  .map((text: string) => Number(/Resource (\d+)/.exec(text)?.[1]))
  .filter((id: number) => id % 2 === 0);
const { value } = await tools.calc.calc({ expression: even.join("+") });
return value;`}
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: args})
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "650" {
			b.Fatal(err, res)
		}
	}
}
