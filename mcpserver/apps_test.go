package mcpserver_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// appManifest has a tool naming an MCP Apps view (both keys registerAppTool writes, a reserved
// key and a plain one), a tool without _meta, and the view as a ui:// resource with _meta.ui.
const appManifest = `{"name":"app","tools":[` +
	`{"name":"show","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://app/view.html","visibility":["model","app"]},"ui/resourceUri":"ui://app/view.html","io.modelcontextprotocol/x":1,"k":2}},` +
	`{"name":"plain","inputSchema":{"type":"object"}}],` +
	`"resources":[{"uri":"ui://app/view.html","name":"view","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"prefersBorder":true,"csp":{"connectDomains":[]}},"dev.mcp/y":1}}]}`

// toolMetas are the _meta of each tool of a tools/list answer, by name, as JSON ("" absent).
func toolMetas(t *testing.T, answer string) map[string]string {
	t.Helper()
	var msg struct {
		Result struct {
			Tools []struct {
				Name string          `json:"name"`
				Meta json.RawMessage `json:"_meta"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(answer), &msg); err != nil {
		t.Fatalf("%v: %s", err, answer)
	}
	out := map[string]string{}
	for _, tl := range msg.Result.Tools {
		out[tl.Name] = string(tl.Meta)
	}
	return out
}

const (
	appsCaps       = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`
	fullShowMeta   = `{"k":2,"ui":{"resourceUri":"ui://app/view.html","visibility":["model","app"]},"ui/resourceUri":"ui://app/view.html"}`
	textOnlyMeta   = `{"k":2}`
	viewResourceLn = `{"_meta":{"ui":{"csp":{"connectDomains":[]},"prefersBorder":true}},"mimeType":"text/html;profile=mcp-app","name":"view","uri":"ui://app/view.html"}`
)

// TestAppsNegotiation: a guest tool's _meta reaches tools/list (reserved keys dropped and
// logged); the server declares io.modelcontextprotocol/ui; a client that declared the
// extension gets _meta.ui and the flat ui/resourceUri, one that did not gets the text-only
// variant (the other keys stay) — over stdio (session capabilities) and over HTTP
// (2026-07-28 per-request capabilities). The ui:// resource is listed with its _meta.ui.
func TestAppsNegotiation(t *testing.T) {
	logs := &syncBuf{}
	g := loadGuest(t, newHost(t), manifestGuest(appManifest), "")
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, &mcpserver.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`msg="manifest _meta keys in MCP's reserved namespace dropped" guest=app tool=show keys=[io.modelcontextprotocol/x]`,
		`msg="manifest _meta keys in MCP's reserved namespace dropped" guest=app resource=ui://app/view.html keys=[dev.mcp/y]`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, tt := range []struct {
		name, caps, want string
	}{{"declared", appsCaps, fullShowMeta}, {"not declared", `{}`, textOnlyMeta},
		{"other mime types only", `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/uri-list"]}}}`, textOnlyMeta}} {
		t.Run("stdio "+tt.name, func(t *testing.T) {
			p := newStdioPeer(t, s)
			init := p.ask("1", strings.Replace(initLine("2025-11-25"), `"capabilities":{}`, `"capabilities":`+tt.caps, 1))
			if !strings.Contains(init, `"extensions":{"io.modelcontextprotocol/ui":{}}`) {
				t.Errorf("initialize does not declare the extension: %s", init)
			}
			p.tell(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			metas := toolMetas(t, p.ask("2", list))
			if metas["show"] != tt.want || metas["plain"] != "" {
				t.Errorf("tools/list _meta: show %s, plain %q; want show %s", metas["show"], metas["plain"], tt.want)
			}
			res := p.ask("3", `{"jsonrpc":"2.0","id":3,"method":"resources/list"}`)
			if !strings.Contains(res, viewResourceLn) {
				t.Errorf("resources/list lacks %s:\n%s", viewResourceLn, res)
			}
		})
	}
	ts := httptest.NewServer(mcpserver.NewHTTPHandler(s, nil))
	t.Cleanup(ts.Close)
	h26 := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
	for _, tt := range []struct{ caps, want string }{{appsCaps, fullShowMeta}, {`{}`, textOnlyMeta}} {
		meta := strings.Replace(meta26, `"io.modelcontextprotocol/clientCapabilities":{}`, `"io.modelcontextprotocol/clientCapabilities":`+tt.caps, 1)
		got, _ := httpAsk(t, ts.URL, h26, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":`+meta+`}}`)
		if metas := toolMetas(t, got); metas["show"] != tt.want {
			t.Errorf("HTTP 2026-07-28 tools/list with capabilities %s: show _meta %s, want %s", tt.caps, metas["show"], tt.want)
		}
	}
	got, _ := httpAsk(t, ts.URL, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"},
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":`+meta26+`}}`)
	if !strings.Contains(got, `"io.modelcontextprotocol/ui":{}`) {
		t.Errorf("server/discover does not declare the extension: %s", got)
	}
}

// TestAppsNotDeclaredWithoutView: a server none of whose tools names a view does not declare
// the extension.
func TestAppsNotDeclaredWithoutView(t *testing.T) {
	g := loadGuest(t, newHost(t), manifestGuest(`{"name":"p","tools":[{"name":"p","inputSchema":{"type":"object"},"_meta":{"k":1}}]}`), "")
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := newStdioPeer(t, s)
	if init := p.ask("1", initLine("2025-11-25")); strings.Contains(init, "io.modelcontextprotocol/ui") {
		t.Errorf("initialize declares the extension without a view: %s", init)
	}
	p.tell(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if metas := toolMetas(t, p.ask("2", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)); metas["p"] != `{"k":1}` {
		t.Errorf("tools/list _meta of p = %s, want {\"k\":1}", metas["p"])
	}
}

// TestBadManifestMeta: a tool or resource _meta that is not a JSON object fails the guest's
// registration, naming the tool or resource.
func TestBadManifestMeta(t *testing.T) {
	h := newHost(t)
	for _, tt := range []struct{ manifest, want string }{
		{`{"name":"b","tools":[{"name":"t","inputSchema":{"type":"object"},"_meta":5}]}`, `guest "b" tool "t": _meta must be a JSON object`},
		{`{"name":"b","tools":[{"name":"t","inputSchema":{"type":"object"},"_meta":["ui"]}]}`, `guest "b" tool "t": _meta must be a JSON object`},
		{`{"name":"b","tools":[],"resources":[{"uri":"ui://b","name":"v","_meta":"x"}]}`, `guest "b" resource "ui://b": _meta must be a JSON object`},
		{`{"name":"b","tools":[],"resourceTemplates":[{"uriTemplate":"ui://b/{x}","name":"v","_meta":true}]}`, `guest "b" resource template "ui://b/{x}": _meta must be a JSON object`},
	} {
		g, err := h.Load(context.Background(), manifestGuest(tt.manifest), &runtime.GuestConfig{})
		if err == nil {
			_, err = mcpserver.NewServer([]*runtime.Guest{g}, nil)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.manifest, err, tt.want)
		}
	}
}

// TestAppsToolPrefix: a tool prefix renames the tool, never the view's URI: _meta.ui and
// the flat ui/resourceUri still name ui://app/view.html, which is served under that URI.
func TestAppsToolPrefix(t *testing.T) {
	g, err := newHost(t).Load(context.Background(), manifestGuest(appManifest), &runtime.GuestConfig{ToolPrefix: "p_"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := newStdioPeer(t, s)
	p.ask("1", strings.Replace(initLine("2025-11-25"), `"capabilities":{}`, `"capabilities":`+appsCaps, 1))
	p.tell(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	metas := toolMetas(t, p.ask("2", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	if _, ok := metas["show"]; ok || metas["p_show"] != fullShowMeta {
		t.Errorf("tools/list _meta: %v; want p_show with %s", metas, fullShowMeta)
	}
	if res := p.ask("3", `{"jsonrpc":"2.0","id":3,"method":"resources/list"}`); !strings.Contains(res, viewResourceLn) {
		t.Errorf("resources/list lacks %s:\n%s", viewResourceLn, res)
	}
}

// TestGatewayAppsMeta: exposed without ExposeOptions.All (no resources served, so the view
// could not be read), an upstream tool naming a view is served as its text-only variant;
// its other _meta keys stay.
func TestGatewayAppsMeta(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	up.AddTool(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"},
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://up/v.html"}, "ui/resourceUri": "ui://up/v.html", "k": 1}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}, nil
		})
	st, ct := mcp.NewInMemoryTransports()
	if _, err := up.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	ups, err := mcp.NewClient(&mcp.Implementation{Name: "gw", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ups.Close() })
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuf{}
	if _, err := mcpserver.Expose(context.Background(), s, "up", ups, &mcpserver.ExposeOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))}); err != nil {
		t.Fatal(err)
	}
	p := newStdioPeer(t, s)
	p.ask("1", strings.Replace(initLine("2025-11-25"), `"capabilities":{}`, `"capabilities":`+appsCaps, 1))
	p.tell(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if metas := toolMetas(t, p.ask("2", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)); metas["up__t"] != `{"k":1}` {
		t.Errorf("tools/list _meta of up__t = %s, want {\"k\":1}", metas["up__t"])
	}
	if want := `msg="gateway: MCP Apps view of tool not served (the server's resources are not exposed)" upstream=up tool=t`; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %s:\n%s", want, logs)
	}
}
