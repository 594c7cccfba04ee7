package codemode_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/mcpserver/codemode"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Go embedder turns code mode on for its own mcp.Server: New before the host (whose
// upstreams it serves), Serve once the server has its tools. A program then calls the
// server's tools as tools.<server>.<tool>.
func Example() {
	ctx := context.Background()
	m := codemode.New(codemode.Config{Enabled: true, MaxCalls: 10}, nil)
	host, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true, Upstreams: m.Upstreams()})
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close(ctx)
	s, err := mcpserver.NewServer(nil, &mcpserver.Options{Name: "shop"})
	if err != nil {
		log.Fatal(err)
	}
	type in struct {
		SKU string `json:"sku"`
	}
	type out struct {
		Price float64 `json:"price"`
	}
	prices := map[string]float64{"tea": 3.5, "cake": 4.25}
	mcp.AddTool(s, &mcp.Tool{Name: "price", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, out, error) {
			return nil, out{prices[a.SKU]}, nil
		})
	if err := m.Serve(ctx, host, s, &codemode.ServeOptions{Group: func(string) string { return "shop" }}); err != nil {
		log.Fatal(err)
	}
	defer m.Close(ctx)

	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": `
const skus: string[] = ["tea", "cake", "tea"];
const ps = await Promise.all(skus.map((sku) => tools.shop.price({ sku })));
return ps.reduce((a, p) => a + p.price, 0);`}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: 11.25
}
