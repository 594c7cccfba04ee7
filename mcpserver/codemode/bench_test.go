package codemode_test

import (
	"context"
	"testing"

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
