package mcpserver_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Manifest values the MCP SDK panics on (reproducer manifest-sdk-panic) are a load error
// naming the guest and the tool, resource or template — the server process is not taken
// down — and a reload to such a version fails with the old version still serving.
func TestAddGuestRefusesWhatTheSDKPanicsOn(t *testing.T) {
	tool := func(schema string) string {
		return `{"name":"g","version":"1","tools":[{"name":"t","inputSchema":` + schema + `}]}`
	}
	withOK := func(extra string) string {
		return `{"name":"g","version":"1","tools":[{"name":"t","inputSchema":{"type":"object"}}],` + extra + `}`
	}
	tests := []struct{ name, manifest, want string }{
		// The reproducer's two cases.
		{"schema nested past 1000", tool(deepSchema(501)), `guest "g" tool "t": inputSchema nests deeper than 1000 levels`},
		{"resource uri", withOK(`"resources":[{"uri":"not a uri ::","name":"r"}]`),
			`guest "g" resource "not a uri ::": uri is not a URI: parse "not a uri ::": first path segment in URL cannot contain colon`},
		// Siblings: other values the SDK cannot take.
		{"output schema nested past 1000", `{"name":"g","tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":` + deepSchema(501) + `}]}`,
			`guest "g" tool "t": outputSchema nests deeper than 1000 levels`},
		{"header annotation on an object", tool(`{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"X-A"}}}`),
			`guest "g" tool "t": inputSchema property "a": x-mcp-header can only be applied to string, integer or boolean properties`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t)
			g, err := h.Load(context.Background(), manifestGuest(tt.manifest), &runtime.GuestConfig{Source: "g.wasm"})
			if err != nil {
				t.Fatalf("Load: %v (the host's own checks should accept it)", err)
			}
			_, err = mcpserver.NewServer([]*runtime.Guest{g}, nil)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("NewServer error = %v\nwant %s", err, tt.want)
			}

			// On reload: the old version keeps its tool and its name.
			names := &mcpserver.NameSet{}
			old := loadGuest(t, h, manifestGuest(tool(`{"type":"object"}`)), "")
			s, err := mcpserver.NewServer([]*runtime.Guest{old}, &mcpserver.Options{Names: names})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := mcpserver.ReplaceGuest(s, old, g, &mcpserver.GuestOptions{Names: names}); err == nil || err.Error() != tt.want {
				t.Fatalf("ReplaceGuest error = %v\nwant %s", err, tt.want)
			}
			cs := connectClient(t, s)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t"})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "ok" {
				t.Fatalf("old version after the failed reload: %v %+v", err, res)
			}
			if holder, ok := names.Claim("t", "upstream \"x\""); ok || holder != `guest "g"` {
				t.Errorf("name t held by %q after the failed reload, want the old guest", holder)
			}
		})
	}
}

// An exposed upstream's tool goes through the same check (the SDK's client already drops
// some — a list nested past 1000 levels fails to decode, a bad x-mcp-header is filtered —
// but not all): one the SDK would panic on is withheld with a warning, the others served.
func TestExposeWithholdsWhatTheSDKPanicsOn(t *testing.T) {
	obj := map[string]any{"type": "object"}
	bad := map[string]any{"type": "object"}
	_, ups, _ := upstreamPair(t, &mcp.Tool{Name: "ok", InputSchema: obj}, &mcp.Tool{Name: "str", InputSchema: bad})
	// The upstream's SDK checked the schema when the tool was added; what it lists later can
	// differ, as any upstream's can.
	bad["type"] = "string"
	logs := &syncBuf{}
	s := mcp.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, nil)
	if _, err := mcpserver.Expose(context.Background(), s, "up", ups, &mcpserver.ExposeOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"up__ok"}, listNames(t, connectClient(t, s))); diff != "" {
		t.Errorf("exposed tools (-want +got):\n%s", diff)
	}
	want := `msg="gateway: tool withheld: the MCP SDK cannot serve it" upstream=up tool=str problem="inputSchema must have type \"object\" (got string)"`
	if !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %s:\n%s", want, logs)
	}
}
