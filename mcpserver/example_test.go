package mcpserver_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Go program puts WASM tools on its own MCP server, next to its native tools.
func ExampleAddGuest() {
	ctx := context.Background()
	host, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true})
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close(ctx)
	guest, err := host.Load(ctx, wat.Echo, &runtime.GuestConfig{Source: "echo.wasm"})
	if err != nil {
		log.Fatal(err)
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "my-app", Version: "1.0.0"}, nil)
	type greetIn struct {
		Name string `json:"name"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name}}}, nil, nil
	})
	if err := mcpserver.AddGuest(server, guest, nil); err != nil {
		log.Fatal(err)
	}

	// Connect a client in memory and call the WASM tool.
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools.Tools {
		fmt.Println("tool:", t.Name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("structured:", res.StructuredContent)
	fmt.Println("text:", res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// tool: echo
	// tool: greet
	// structured: map[text:hi]
	// text: {"text":"hi"}
}

// Serve a guest module over stdio from your own program: docs/embed.md's snippet,
// verbatim (TestReadmeGoSnippets checks that they match).
func ExampleAddGuest_stdio() {
	ctx := context.Background()
	host, err := runtime.NewHost(ctx, nil) // nil: default options (compiled code cached on disk)
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close(ctx)
	wasm, err := os.ReadFile("shout.wasm")
	if err != nil {
		log.Fatal(err)
	}
	g, err := host.Load(ctx, wasm, &runtime.GuestConfig{Limits: runtime.Limits{Timeout: 5 * time.Second}})
	if err != nil {
		log.Fatal(err)
	}
	// Your own *mcp.Server, with your own tools beside the guest's.
	server := mcp.NewServer(&mcp.Implementation{Name: "my-app", Version: "1.0.0"}, nil)
	if err := mcpserver.AddGuest(server, g, nil); err != nil { // nil: default options
		log.Fatal(err)
	}
	if err := server.Run(ctx, &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
