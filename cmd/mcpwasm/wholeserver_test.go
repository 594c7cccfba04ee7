package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client's resources/subscribe of a whole-server guest's resource reaches the guest (its
// session's instance), and the instance's notifications/resources/updated reach that session
// — not another session subscribed to the same URI, whose instance has its own state;
// unsubscribe reaches the instance too. The guest is a go-sdk server built for wasip1
// (testdata/subscriber).
func TestWASIServerResourceSubscribe(t *testing.T) {
	wasm := testenv.GoWasip1(t, "./testdata/subscriber")
	cfg := relayConfig(t, wasm, map[string]any{"name": "sub"})
	base, _ := startHTTP(t, "--config", cfg)
	const uri = "test://note"
	connect := func() (*mcp.ClientSession, chan string) {
		updated := make(chan string, 64)
		c := mcp.NewClient(&mcp.Implementation{Name: "sub-test", Version: "0"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
				updated <- r.Params.URI
			}})
		cs, err := c.Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs, updated
	}
	a, aUpdates := connect()
	b, bUpdates := connect()
	if caps := a.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
		t.Fatalf("resources capability %+v: want subscribe", caps.Resources)
	}
	subscribed := func(cs *mcp.ClientSession) string {
		got, _ := callText(t, cs, servedName(t, cs, "subscribed"), map[string]any{})
		return got
	}
	if got := subscribed(a); got != "0" {
		t.Fatalf("a's instance subscribed before a subscribed: %q", got)
	}
	for _, cs := range []*mcp.ClientSession{a, b} {
		if err := cs.Subscribe(testContext(t), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	if got := subscribed(a); got != "1" {
		t.Errorf("a's instance after a's resources/subscribe: subscribed %q, want 1", got)
	}
	if got, _ := callText(t, a, servedName(t, a, "touch"), map[string]any{}); got != "touched" {
		t.Fatalf("touch: %q", got)
	}
	select {
	case got := <-aUpdates:
		if got != uri {
			t.Errorf("resources/updated for %q, want %q", got, uri)
		}
	case <-testContext(t).Done():
		t.Fatal("no notifications/resources/updated reached the subscribed session")
	}
	// b's instance was not touched: a's update is not b's, though b subscribed to the URI.
	// b's own touch then comes alone.
	if got, _ := callText(t, b, servedName(t, b, "touch"), map[string]any{}); got != "touched" {
		t.Fatalf("touch: %q", got)
	}
	select {
	case <-bUpdates:
	case <-testContext(t).Done():
		t.Fatal("b's own update did not reach it")
	}
	select {
	case got := <-bUpdates:
		t.Errorf("session b got a second update (a's?) for %q", got)
	default:
	}
	// A URI no resource has is refused; unsubscribe reaches the instance.
	if err := a.Subscribe(testContext(t), &mcp.SubscribeParams{URI: "test://nothing"}); err == nil {
		t.Error("subscribing to an unknown URI succeeded")
	}
	if err := a.Unsubscribe(testContext(t), &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatalf("unsubscribe: %v", err)
	}
	if got := subscribed(a); got != "0" {
		t.Errorf("a's instance after a's resources/unsubscribe: subscribed %q, want 0", got)
	}

	// A URI no resource lists but the server's template test://notes/{id} matches: the
	// subscription reaches a's instance, and its update reaches a.
	const note1 = "test://notes/1"
	if err := a.Subscribe(testContext(t), &mcp.SubscribeParams{URI: note1}); err != nil {
		t.Fatalf("subscribing to %s (matched by a template): %v", note1, err)
	}
	if got, _ := callText(t, a, servedName(t, a, "subscribed"), map[string]any{"uri": note1}); got != "1" {
		t.Errorf("a's instance after subscribing to %s: subscribed %q, want 1", note1, got)
	}
	if got, _ := callText(t, a, servedName(t, a, "touch"), map[string]any{"uri": note1}); got != "touched" {
		t.Fatalf("touch %s: %q", note1, got)
	}
	select {
	case got := <-aUpdates:
		if got != note1 {
			t.Errorf("resources/updated for %q, want %q", got, note1)
		}
	case <-testContext(t).Done():
		t.Fatalf("no notifications/resources/updated for %s reached the subscribed session", note1)
	}
}

// inspectorOver runs the Inspector CLI against target (stdio: `mcpwasm serve --config cfg`;
// http: the URL) and decodes its JSON.
func inspectorOver(t *testing.T, out any, transport, cfg, url string, args ...string) {
	t.Helper()
	if transport == "stdio" {
		runInspector(t, out, append([]string{"--config", cfg}, args...)...)
		return
	}
	inspectorJSON(t, out, append([]string{url, "--transport", "http"}, args...)...)
}

// The real MCP Inspector CLI and the TypeScript SDK's client drive whole-server guests over
// stdio and Streamable HTTP: go-sdk's hello built for wasip1, and a TS SDK v2 server built
// with mcpwasm build (testdata/npm-servers/v2server.ts). Each lists the tools and calls one,
// answered exactly. Served names are looked up in tools/list, not assumed.
func TestWholeServersInterop(t *testing.T) {
	buildPrereqs(t)
	if _, err := os.Stat(filepath.Join(npmServersDir, "server", "package.json")); err != nil {
		testenv.Skip(t, "testdata/npm-servers is not installed (run: npm ci --prefix testdata/npm-servers): %v", err)
	}
	hello := testenv.GoWasip1(t, "github.com/modelcontextprotocol/go-sdk/examples/server/hello")
	v2 := filepath.Join(t.TempDir(), "v2.wasm")
	if stdout, stderr, code := runCLI("build", "--toolchain", filepath.Dir(exampleModules), "-o", v2, filepath.Join("..", "..", "testdata", "npm-servers", "v2server.ts")); code != ExitOK {
		t.Fatalf("build v2server.ts: exit %d\n%s%s", code, stdout, stderr)
	}
	v2wasm, err := os.ReadFile(v2)
	if err != nil {
		t.Fatal(err)
	}
	cfg := wasiServerConfig(t, wasiGuest{name: "hello", wasm: hello}, wasiGuest{name: "v2", wasm: v2wasm})
	base, _ := startHTTP(t, "--config", cfg)
	cs := connectSDK(t, base+"/mcp")
	greet, add := servedName(t, cs, "greet"), servedName(t, cs, "add")
	wantTools := []string{add, greet}
	slices.Sort(wantTools)
	calls := []struct {
		tool string
		args string   // JSON, for the TS SDK client
		argv []string // --tool-arg, for the Inspector
		want string
	}{
		{tool: greet, args: `{"name":"Ada"}`, argv: []string{"name=Ada"}, want: "Hi Ada"},
		{tool: add, args: `{"a":2,"b":40}`, argv: []string{"a=2", "b=40"}, want: `{"result":42}`},
	}
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			target := []string{"http", base + "/mcp"}
			if transport == "stdio" {
				target = []string{"stdio", binPath, "serve", "--cache-dir", cacheDir, "--config", cfg}
			}
			for _, c := range calls {
				var r npmResult
				runInteropClient(t, &r, append([]string{"testdata/interop/npm-client.mjs", c.tool, c.args}, target...)...)
				slices.Sort(r.Tools)
				if !slices.Equal(r.Tools, wantTools) {
					t.Errorf("TS SDK client: tools %q, want %q", r.Tools, wantTools)
				}
				if r.Result.IsError || len(r.Result.Content) != 1 || r.Result.Content[0].Text != c.want {
					t.Errorf("TS SDK client: %s: %+v, want %q", c.tool, r.Result, c.want)
				}

				var list struct{ Tools []struct{ Name string } }
				inspectorOver(t, &list, transport, cfg, base+"/mcp", "--method", "tools/list")
				var names []string
				for _, tl := range list.Tools {
					names = append(names, tl.Name)
				}
				slices.Sort(names)
				if !slices.Equal(names, wantTools) {
					t.Errorf("Inspector: tools %q, want %q", names, wantTools)
				}
				var res struct {
					Content []struct{ Type, Text string }
					IsError bool
				}
				args := []string{"--method", "tools/call", "--tool-name", c.tool}
				for _, a := range c.argv {
					args = append(args, "--tool-arg", a)
				}
				inspectorOver(t, &res, transport, cfg, base+"/mcp", args...)
				if res.IsError || len(res.Content) != 1 || res.Content[0].Text != c.want {
					t.Errorf("Inspector: %s: %+v, want %q", c.tool, res, c.want)
				}
			}
		})
	}
}

// A whole-server guest's notifications/progress reach the client whose call asked for them,
// under that client's own token, over stdio's relay as over HTTP; a second session's call
// without a token gets none. The guest is testdata/subscriber's steps tool.
func TestWASIServerProgress(t *testing.T) {
	wasm := testenv.GoWasip1(t, "./testdata/subscriber")
	cfg := relayConfig(t, wasm, map[string]any{"name": "sub"})
	base, _ := startHTTP(t, "--config", cfg)
	connect := func() (*mcp.ClientSession, chan string) {
		got := make(chan string, 16)
		c := mcp.NewClient(&mcp.Implementation{Name: "progress-test", Version: "0"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				got <- fmt.Sprintf("%v %v/%v %s", r.Params.ProgressToken, r.Params.Progress, r.Params.Total, r.Params.Message)
			}})
		cs, err := c.Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs, got
	}
	a, aGot := connect()
	b, bGot := connect()
	params := &mcp.CallToolParams{Name: servedName(t, a, "steps"), Arguments: map[string]any{}}
	params.SetProgressToken("a-token")
	text := func(res *mcp.CallToolResult, err error) string {
		if err != nil || res == nil || len(res.Content) == 0 {
			t.Fatalf("steps: %+v %v", res, err)
		}
		tc, _ := res.Content[0].(*mcp.TextContent)
		if tc == nil {
			t.Fatalf("steps: %+v", res)
		}
		return tc.Text
	}
	if got := text(a.CallTool(testContext(t), params)); got != "done" {
		t.Fatalf("steps: %q", got)
	}
	for _, want := range []string{"a-token 1/2 step", "a-token 2/2 step"} {
		select {
		case got := <-aGot:
			if got != want {
				t.Errorf("a's progress %q, want %q", got, want)
			}
		case <-testContext(t).Done():
			t.Fatalf("a's progress %q never arrived", want)
		}
	}
	if got := text(b.CallTool(testContext(t), &mcp.CallToolParams{Name: servedName(t, b, "steps"), Arguments: map[string]any{}})); got != "done" {
		t.Fatalf("b's steps: %q", got)
	}
	select {
	case got := <-bGot:
		t.Errorf("b, which asked for no progress, got %q", got)
	default:
	}
}
