package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP Apps (io.modelcontextprotocol/ui) from every kind of guest, served by `mcpwasm serve`
// over stdio and Streamable HTTP: tools/list carries the tool's _meta.ui (and the legacy flat
// ui/resourceUri), resources/read gives the view's HTML with its MIME type and _meta.ui.

const appMIME = "text/html;profile=mcp-app"

// appsCapsJSON is the client capability of a host that renders MCP Apps views.
const appsCapsJSON = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`

// appGuest is one guest with a view and what a client must see of it.
type appGuest struct {
	kind   string
	wasm   func(t *testing.T) string // the module's path
	tool   string
	args   map[string]any
	answer string // the text of the tool's answer
	uri    string // the view
	marker string // in the view's HTML
	// border is the view's _meta.ui.prefersBorder, on the listed resource and the contents.
	border bool
	// extra are the tool's _meta keys besides the two MCP Apps ones.
	extra map[string]any
}

// appGoWasm builds guests/appview once per test binary, beside the binary (TestMain removes
// it).
var appGoWasm = sync.OnceValues(func() (string, error) {
	out := filepath.Join(filepath.Dir(binPath), "appview.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, "./guests/appview")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building guests/appview: %v\n%s", err, b)
	}
	return out, nil
})

func appGuests() []appGuest {
	return []appGuest{
		{kind: "go", tool: "shout", args: map[string]any{"text": "hi"}, answer: `{"shout":"HI!"}`,
			uri: "ui://appview/shout.html", marker: `<button id="shout"`, border: true,
			wasm: func(t *testing.T) string {
				// The build runs in a child process: read its inputs so that go test's cache
				// never replays a PASS for an edited guest.
				for _, f := range []string{"main.go", "view.html"} {
					if _, err := os.ReadFile(filepath.Join("..", "..", "guests", "appview", f)); err != nil {
						t.Fatal(err)
					}
				}
				p, err := appGoWasm()
				if err != nil {
					t.Fatal(err)
				}
				return p
			}},
		{kind: "javascript", tool: "greet", args: map[string]any{"name": "Ada"}, answer: "hello, Ada",
			uri: "ui://tsapp/greet.html", marker: "<p id=greeting>", border: true, extra: map[string]any{"com.example/origin": "tsapp"},
			wasm: func(t *testing.T) string {
				abs, err := filepath.Abs("testdata/apps/server.ts")
				if err != nil {
					t.Fatal(err)
				}
				return buildScriptGuest(t, abs, t.TempDir())
			}},
		{kind: "extism", tool: "clock", args: map[string]any{}, answer: "12:00",
			uri: "ui://clock/view.html", marker: "<p id=t>12:00</p>", border: false,
			wasm: func(t *testing.T) string { return filepath.Join(extismTestdata, "apps.wasm") }},
	}
}

// wantToolMeta is the tool _meta a client that declared MCP Apps gets.
func (a appGuest) wantToolMeta() map[string]any {
	m := map[string]any{"ui": map[string]any{"resourceUri": a.uri}, "ui/resourceUri": a.uri}
	for k, v := range a.extra {
		m[k] = v
	}
	return m
}

// TestAppsStdio: over stdio, for a Go, a JavaScript (ext-apps' registerAppTool and
// registerAppResource) and an Extism guest.
func TestAppsStdio(t *testing.T) {
	for _, a := range appGuests() {
		t.Run(a.kind, func(t *testing.T) {
			s := startServer(t, a.wasm(t))
			s.send(strings.Replace(initLine, `"capabilities":{}`, `"capabilities":`+appsCapsJSON, 1), initializedLine)
			if l := s.recv(); !strings.Contains(l, `"io.modelcontextprotocol/ui":{}`) {
				t.Fatalf("initialize does not declare MCP Apps: %s", l)
			}
			args, _ := json.Marshal(a.args)
			s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
				`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`,
				`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"`+a.uri+`"}}`,
				`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"`+a.tool+`","arguments":`+string(args)+`}}`)
			replies := map[int]string{}
			for len(replies) < 4 {
				l := s.recvReply()
				var m struct{ ID *int }
				if json.Unmarshal([]byte(l), &m) == nil && m.ID != nil {
					replies[*m.ID] = l
				}
			}
			var list struct {
				Result struct{ Tools []mcp.Tool }
			}
			var resources struct {
				Result struct{ Resources []mcp.Resource }
			}
			var read struct {
				Result struct{ Contents []mcp.ResourceContents }
			}
			var call struct {
				Result struct {
					Content []struct{ Text string }
				}
			}
			for id, v := range map[int]any{2: &list, 3: &resources, 4: &read, 5: &call} {
				if err := json.Unmarshal([]byte(replies[id]), v); err != nil {
					t.Fatalf("reply %d: %v: %s", id, err, replies[id])
				}
			}
			checkApp(t, a, list.Result.Tools, resources.Result.Resources, read.Result.Contents)
			if len(call.Result.Content) != 1 || call.Result.Content[0].Text != a.answer {
				t.Errorf("tools/call %s: %s, want the text %q", a.tool, replies[5], a.answer)
			}
		})
	}
}

// TestAppsHTTP: the same over Streamable HTTP, with go-sdk's client declaring MCP Apps, at
// 2026-07-28 (capabilities per request, sessionless) and 2025-11-25 (a session).
func TestAppsHTTP(t *testing.T) {
	for _, a := range appGuests() {
		t.Run(a.kind, func(t *testing.T) {
			base, _ := startHTTP(t, a.wasm(t))
			ctx := testContext(t)
			for _, version := range []string{"2026-07-28", "2025-11-25"} {
				client := mcp.NewClient(&mcp.Implementation{Name: "apps-host", Version: "0"}, &mcp.ClientOptions{
					Capabilities: &mcp.ClientCapabilities{Extensions: map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []any{appMIME}}}},
				})
				cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				if _, ok := cs.InitializeResult().Capabilities.Extensions["io.modelcontextprotocol/ui"]; !ok {
					t.Errorf("%s: the server does not declare MCP Apps: %+v", version, cs.InitializeResult().Capabilities)
				}
				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				resources, err := cs.ListResources(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: a.uri})
				if err != nil {
					t.Fatal(err)
				}
				var ts []mcp.Tool
				for _, tl := range tools.Tools {
					ts = append(ts, *tl)
				}
				var rs []mcp.Resource
				for _, r := range resources.Resources {
					rs = append(rs, *r)
				}
				var cs2 []mcp.ResourceContents
				for _, c := range read.Contents {
					cs2 = append(cs2, *c)
				}
				checkApp(t, a, ts, rs, cs2)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: a.tool, Arguments: a.args})
				if err != nil {
					t.Fatal(err)
				}
				if tc, ok := res.Content[0].(*mcp.TextContent); len(res.Content) != 1 || !ok || tc.Text != a.answer {
					t.Errorf("%s: tools/call %s: %+v, want the text %q", version, a.tool, res.Content, a.answer)
				}
			}
		})
	}
}

// checkApp checks what a client that declared MCP Apps sees of guest a.
func checkApp(t *testing.T, a appGuest, tools []mcp.Tool, resources []mcp.Resource, contents []mcp.ResourceContents) {
	t.Helper()
	var tool *mcp.Tool
	for i := range tools {
		if tools[i].Name == a.tool {
			tool = &tools[i]
		}
	}
	if tool == nil {
		t.Fatalf("tools/list has no %s: %+v", a.tool, tools)
	}
	if diff := cmp.Diff(a.wantToolMeta(), map[string]any(tool.Meta)); diff != "" {
		t.Errorf("tool %s _meta (-want +got):\n%s", a.tool, diff)
	}
	var listed *mcp.Resource
	for i := range resources {
		if resources[i].URI == a.uri {
			listed = &resources[i]
		}
	}
	if listed == nil || listed.MIMEType != appMIME {
		t.Errorf("resources/list: %+v, want %s of type %s", resources, a.uri, appMIME)
	} else if ui, _ := listed.Meta["ui"].(map[string]any); ui == nil || ui["prefersBorder"] != a.border {
		t.Errorf("listed %s _meta: %v, want ui.prefersBorder %v", a.uri, listed.Meta, a.border)
	}
	if len(contents) != 1 {
		t.Fatalf("resources/read %s: %d contents, want 1", a.uri, len(contents))
	}
	c := contents[0]
	if c.URI != a.uri || c.MIMEType != appMIME || !strings.Contains(c.Text, a.marker) {
		t.Errorf("resources/read %s: uri %s, type %q, text %q; want type %s and a text with %s", a.uri, c.URI, c.MIMEType, c.Text, appMIME, a.marker)
	}
	ui, _ := c.Meta["ui"].(map[string]any)
	if ui == nil || ui["prefersBorder"] != a.border {
		t.Errorf("resources/read %s _meta: %v, want ui.prefersBorder %v", a.uri, c.Meta, a.border)
	}
}
