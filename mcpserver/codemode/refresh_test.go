package codemode_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/mcpserver/codemode"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A refresh re-adds run_code only when the declarations changed: re-adding notifies
// tools/list_changed to every session, the loopback's too, whose refresh would re-add it
// again, forever (a serve with an exposed upstream spun and never exited).
func TestRefreshOnlyOnChange(t *testing.T) {
	ctx := context.Background()
	m := codemode.New(codemode.Config{Enabled: true}, nil)
	host, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true, Upstreams: m.Upstreams()})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close(ctx)
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Serve(ctx, host, s, nil); err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	if again, err := m.Refreshed(ctx); err != nil || again {
		t.Fatalf("refresh without a change re-added run_code (%v, %v)", again, err)
	}
	s.AddTool(&mcp.Tool{Name: "fresh", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	// The loopback's own refresh may have seen "fresh" already; either way one more refresh
	// changes nothing.
	if _, err := m.Refreshed(ctx); err != nil {
		t.Fatal(err)
	}
	if again, err := m.Refreshed(ctx); err != nil || again {
		t.Fatalf("second refresh after a change re-added run_code (%v, %v)", again, err)
	}
}
