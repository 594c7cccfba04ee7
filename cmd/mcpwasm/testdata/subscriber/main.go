// Command subscriber is a test fixture: a go-sdk MCP server built for wasip1 by the tests,
// served as a whole-server guest. It serves one resource, test://note, and the template
// test://notes/{id}, and takes resources/subscribe; its tools: touch (sends
// notifications/resources/updated for its argument uri, default test://note, which the SDK
// delivers when a client subscribed), subscribed (whether a client of this process is
// subscribed to its argument uri, default test://note: 0 or 1) and steps (two
// notifications/progress, 1/2 and 2/2, under the call's progress token, then "done").
package main

import (
	"context"
	"log"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const uri = "test://note"

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	var mu sync.Mutex
	subs := map[string]bool{}
	server := mcp.NewServer(&mcp.Implementation{Name: "subscriber", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			subs[req.Params.URI] = true
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			delete(subs, req.Params.URI)
			return nil
		},
	})
	server.AddResource(&mcp.Resource{URI: uri, Name: "note", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "a note"}}}, nil
		})
	server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://notes/{id}", Name: "notes", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "a note"}}}, nil
		})
	type arg struct {
		URI string `json:"uri,omitempty"`
	}
	target := func(a arg) string {
		if a.URI == "" {
			return uri
		}
		return a.URI
	}
	mcp.AddTool(server, &mcp.Tool{Name: "touch", Description: "announces uri (default test://note) updated"},
		func(ctx context.Context, req *mcp.CallToolRequest, a arg) (*mcp.CallToolResult, any, error) {
			if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: target(a)}); err != nil {
				return nil, nil, err
			}
			return text("touched"), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "subscribed", Description: "1 when a client of this process subscribed to uri (default test://note)"},
		func(_ context.Context, _ *mcp.CallToolRequest, a arg) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			if subs[target(a)] {
				return text("1"), nil, nil
			}
			return text("0"), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "steps", Description: "reports progress 1/2 and 2/2 under the call's token"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if token := req.Params.GetProgressToken(); token != nil {
				for i := 1; i <= 2; i++ {
					p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 2, Message: "step"}
					if err := req.Session.NotifyProgress(ctx, p); err != nil {
						return nil, nil, err
					}
				}
			}
			return text("done"), nil, nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
