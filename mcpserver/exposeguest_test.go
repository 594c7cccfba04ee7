package mcpserver_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// appServer is a whole server as server-basic-vanillajs is (registerAppTool,
// registerAppResource): get-time names its view, the view is a ui:// resource; plus a prompt
// and, with extra, more tools. It returns the server and a client session to it.
func appServer(t *testing.T, extra ...*mcp.Tool) (*mcp.Server, *mcp.ClientSession) {
	t.Helper()
	obj := map[string]any{"type": "object"}
	tools := append([]*mcp.Tool{{Name: "get-time", InputSchema: obj,
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://get-time/mcp-app.html"}, "ui/resourceUri": "ui://get-time/mcp-app.html"}}}, extra...)
	up, ups, _ := upstreamPair(t, tools...)
	up.AddResource(&mcp.Resource{URI: "ui://get-time/mcp-app.html", Name: "view", MIMEType: mcpserver.AppMIMEType},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mcpserver.AppMIMEType, Text: "<html>view</html>"}}}, nil
		})
	up.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
	})
	// The session listed before the resource and prompt were added: reconnect so that
	// initialize declares them.
	st, ct := mcp.NewInMemoryTransports()
	if _, err := up.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "gw", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	_ = ups
	return up, cs
}

// appsSession connects to s as an MCP Apps host does (the extension declared).
func appsSession(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
		Extensions: map[string]any{mcpserver.AppsExtension: map[string]any{"mimeTypes": []any{mcpserver.AppMIMEType}}}}})
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A whole-server guest (Kind "guest") serves its tools and prompts under their own names,
// beside a module guest's, as an MCP App's view calls them; its view's _meta.ui reaches a
// host that declared MCP Apps and its ui:// resource reads. With a tool_prefix (Prefix) the
// names are prefixed and the resourceUri is left as it is (a URI is not a tool name).
func TestExposeGuestOwnNames(t *testing.T) {
	for _, tt := range []struct {
		prefix            string
		tools, prompt     []string
		call, promptToGet string
	}{
		{"", []string{"echo", "get-time"}, []string{"greet"}, "get-time", "greet"},
		{"v-", []string{"echo", "v-get-time"}, []string{"v-greet"}, "v-get-time", "v-greet"},
	} {
		t.Run("prefix="+tt.prefix, func(t *testing.T) {
			names := &mcpserver.NameSet{}
			s, err := mcpserver.NewServer([]*runtime.Guest{loadGuest(t, newHost(t), wat.Echo, "first")}, &mcpserver.Options{Names: names})
			if err != nil {
				t.Fatal(err)
			}
			_, ups := appServer(t)
			if _, err := mcpserver.Expose(context.Background(), s, "vanilla", ups, &mcpserver.ExposeOptions{Kind: "guest", All: true, Names: names, Prefix: tt.prefix}); err != nil {
				t.Fatal(err)
			}
			cs := appsSession(t, s)
			tl, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			meta := ""
			for _, tool := range tl.Tools {
				got = append(got, tool.Name)
				if tool.Name == tt.call {
					b, _ := json.Marshal(tool.Meta)
					meta = string(b)
				}
			}
			if diff := cmp.Diff(tt.tools, got); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if want := `{"ui":{"resourceUri":"ui://get-time/mcp-app.html"},"ui/resourceUri":"ui://get-time/mcp-app.html"}`; meta != want {
				t.Errorf("%s _meta = %s, want %s", tt.call, meta, want)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.call, Arguments: map[string]any{}})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "get-time {}" {
				t.Errorf("call %s: %v %+v", tt.call, err, res)
			}
			rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "ui://get-time/mcp-app.html"})
			if err != nil || rr.Contents[0].MIMEType != mcpserver.AppMIMEType || rr.Contents[0].Text != "<html>view</html>" {
				t.Errorf("read the view: %v %+v", err, rr)
			}
			pl, err := cs.ListPrompts(context.Background(), nil)
			if err != nil || len(pl.Prompts) != 1 || pl.Prompts[0].Name != tt.promptToGet {
				t.Errorf("prompts: %v %+v, want [%s]", err, pl, tt.promptToGet)
			}
			if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: tt.promptToGet}); err != nil {
				t.Errorf("get prompt %s: %v", tt.promptToGet, err)
			}
		})
	}
}

// A whole-server guest's tool named as another guest's is refused at its first listing with
// the words, and the way out, of two guests sharing a name; nothing of it stays served. An
// upstream's tools keep their NAME__ prefix, so the same server as an upstream is served.
func TestExposeGuestClash(t *testing.T) {
	names := &mcpserver.NameSet{}
	s, err := mcpserver.NewServer([]*runtime.Guest{loadGuest(t, newHost(t), wat.Echo, "first")}, &mcpserver.Options{Names: names})
	if err != nil {
		t.Fatal(err)
	}
	echo := &mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}
	_, ups := appServer(t, echo)
	_, err = mcpserver.Expose(context.Background(), s, "vanilla", ups, &mcpserver.ExposeOptions{Kind: "guest", All: true, Names: names})
	if want := `tool "echo" of guest "vanilla" is already provided by guest "first"` + prefixHint; err == nil || err.Error() != want {
		t.Fatalf("Expose error = %v; want %s", err, want)
	}
	cs := connectClient(t, s)
	if diff := cmp.Diff([]string{"echo"}, listNames(t, cs)); diff != "" {
		t.Errorf("after the refusal (-want +got):\n%s", diff)
	}
	if rl, err := cs.ListResources(context.Background(), nil); err == nil && len(rl.Resources) > 0 {
		t.Errorf("resources after the refusal: %+v", rl.Resources)
	}
	// The names it held were released: with a prefix it is served.
	_, ups = appServer(t, echo)
	if _, err := mcpserver.Expose(context.Background(), s, "vanilla", ups, &mcpserver.ExposeOptions{Kind: "guest", All: true, Names: names, Prefix: "vanilla__"}); err != nil {
		t.Fatal(err)
	}
	_, ups = appServer(t, echo)
	if _, err := mcpserver.Expose(context.Background(), s, "up", ups, &mcpserver.ExposeOptions{Names: names}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"echo", "up__echo", "up__get-time", "vanilla__echo", "vanilla__get-time"}, listNames(t, cs)); diff != "" {
		t.Errorf("served (-want +got):\n%s", diff)
	}
}

// A whole-server guest's _meta.ui.resourceUri changed after approval is withheld like a
// changed description (pins), as an upstream's.
func TestExposeGuestPinsView(t *testing.T) {
	up, ups := appServer(t)
	logs := &syncBuf{}
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := mcpserver.Expose(context.Background(), s, "vanilla", ups, &mcpserver.ExposeOptions{Kind: "guest", All: true,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectClient(t, s)
	if diff := cmp.Diff([]string{"get-time"}, listNames(t, cs)); diff != "" {
		t.Fatalf("exposed (-want +got):\n%s", diff)
	}
	up.AddTool(&mcp.Tool{Name: "get-time", InputSchema: map[string]any{"type": "object"},
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://evil/view.html"}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	if err := e.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, cs); len(got) != 0 {
		t.Errorf("after the change: %v, want none", got)
	}
	if !strings.Contains(logs.String(), "tool=get-time changed=_meta") {
		t.Errorf("log lacks the change:\n%s", logs)
	}
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get-time", Arguments: map[string]any{}})
	if want := `withheld: guest "vanilla" tool "get-time": its definition changed (_meta)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("call of the changed tool: %v, want %s", err, want)
	}
}
