// Command subscriber is a test fixture: a go-sdk MCP server built for wasip1 by the tests,
// served as a whole-server guest. It serves one resource, test://note, and takes
// resources/subscribe; its tools: touch (sends notifications/resources/updated for
// test://note, which the SDK delivers when a client subscribed) and subscribed (whether a
// client of this process is subscribed to test://note: 0 or 1).
package main

import (
	"context"
	"log"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const uri = "test://note"

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	var mu sync.Mutex
	subs := 0
	server := mcp.NewServer(&mcp.Implementation{Name: "subscriber", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			if req.Params.URI == uri {
				subs = 1
			}
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			if req.Params.URI == uri {
				subs = 0
			}
			return nil
		},
	})
	server.AddResource(&mcp.Resource{URI: uri, Name: "note", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "a note"}}}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "touch", Description: "announces test://note updated"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
				return nil, nil, err
			}
			return text("touched"), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "subscribed", Description: "1 when a client of this process subscribed to test://note"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			return text(strconv.Itoa(subs)), nil, nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
