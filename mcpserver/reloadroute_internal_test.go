package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// A tools/call the SDK routed to the old version's handler just before a reload swapped the
// handlers (the handler runs after ReplaceGuest, the old version's drain and its close:
// the events in the order that failed with "…: closed") is answered, by the new version.
func TestReloadRoutedCallAnswered(t *testing.T) {
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	load := func() *runtime.Guest {
		g, err := h.Load(ctx, wat.Echo, &runtime.GuestConfig{Name: "echo"})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	old, next := load(), load()
	names := &NameSet{}
	s, err := NewServer([]*runtime.Guest{old}, &Options{Names: names})
	if err != nil {
		t.Fatal(err)
	}
	routed := toolHandler(s, old, "echo", noop.NewTracerProvider().Tracer(""), nil) // what the SDK looked up
	if _, err := ReplaceGuest(s, old, next, &GuestOptions{Names: names}); err != nil {
		t.Fatal(err)
	}
	if err := old.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := routed(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}})
	if err != nil || res.IsError {
		t.Fatalf("the routed call: %+v %v", res, err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != `{"text":"hi"}` {
		t.Errorf("answer %q, want the arguments echoed", got)
	}
}
