package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCallPrintsStructuredContent: `mcpwasm call` prints a result's blocks, then its
// structured content as JSON unless a text block already holds it (call -h, README): a text
// block beside different structured content no longer hides it (fresh eyes, docs a).
func TestCallPrintsStructuredContent(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "shapes", Version: "1"}, nil)
	result := map[string]*mcp.CallToolResult{
		"both": {Content: []mcp.Content{&mcp.TextContent{Text: "the sum is 3"}}, StructuredContent: map[string]any{"sum": 3}},
		"copy": {Content: []mcp.Content{&mcp.TextContent{Text: "{ \"sum\": 3 }"}}, StructuredContent: map[string]any{"sum": 3}},
		"text": {Content: []mcp.Content{&mcp.TextContent{Text: "just text"}}},
		"bare": {Content: []mcp.Content{}, StructuredContent: map[string]any{"sum": 3}},
	}
	for name, res := range result {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return res, nil
		})
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer hs.Close()
	for tool, want := range map[string]string{
		"both": "the sum is 3\n{\"sum\":3}\n",
		"copy": "{ \"sum\": 3 }\n",
		"text": "just text\n",
		"bare": "{\"sum\":3}\n",
	} {
		if out, code := runClient(t, "call", tool, "--url", hs.URL); code != 0 || out != want {
			t.Errorf("call %s: exit %d, output %q, want %q", tool, code, out, want)
		}
	}
}
