package runtime_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jsguest "github.com/mcpwasm/mcpwasm/abi/js"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var jsServerBuilds sync.Map // package → *jsServerBuild (one build per test binary)

type jsServerBuild struct {
	once sync.Once
	wasm []byte
	out  string
	err  error
}

// buildNPMServer builds the pinned npm package pkg of testdata/npm-servers (its bin file
// entry) with build.mjs --package, which picks the whole-server path for it, and returns the
// module and the build's output. It skips without node or the npm packages (a failure under
// CI).
func buildNPMServer(t testing.TB, pkg, entry string) ([]byte, string) {
	t.Helper()
	dir := filepath.Join("..", "guests", "typescript")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "esbuild")); err != nil {
		testenv.Skip(t, "guests/typescript's npm packages are not installed (npm ci --prefix guests/typescript): %v", err)
	}
	pdir, err := filepath.Abs(filepath.Join("..", "testdata", "npm-servers", "node_modules", filepath.FromSlash(pkg)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pdir); err != nil {
		testenv.Skip(t, "testdata/npm-servers' packages are not installed (npm ci --prefix testdata/npm-servers): %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Skip(t, "node is not installed: %v", err)
	}
	v, _ := jsServerBuilds.LoadOrStore(pkg, &jsServerBuild{})
	b := v.(*jsServerBuild)
	b.once.Do(func() {
		if b.err = jsguest.Sync(filepath.Join(dir, "mcpwasm")); b.err != nil {
			return
		}
		for _, f := range []string{"mcpwasm/shim.js", "mcpwasm/build.mjs"} { // inputs, for go test's cache
			if _, b.err = os.ReadFile(filepath.Join(dir, f)); b.err != nil {
				return
			}
		}
		tmp, err := os.MkdirTemp("", "jsserver")
		if err != nil {
			b.err = err
			return
		}
		defer os.RemoveAll(tmp)
		out := filepath.Join(tmp, "server.wasm")
		cmd := exec.Command(node, "mcpwasm/build.mjs", filepath.Join(pdir, filepath.FromSlash(entry)), out, "--package", pdir)
		cmd.Dir = dir
		o, err := cmd.CombinedOutput()
		b.out = string(o)
		if err != nil {
			b.err = err
			return
		}
		b.wasm, b.err = os.ReadFile(out)
	})
	if b.err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, b.err, b.out)
	}
	return b.wasm, b.out
}

// jsSession loads wasm as a whole server under cfg, starts an instance and connects a
// go-sdk client to it over its pipes.
func jsSession(t testing.TB, h *runtime.Host, wasm []byte, cfg *runtime.GuestConfig, opts *mcp.ClientOptions) (*runtime.Server, *mcp.ClientSession) {
	t.Helper()
	if !h.IsWASIServer(wasm) {
		t.Fatal("IsWASIServer = false for a JavaScript whole server")
	}
	srv, err := h.LoadServer(t.Context(), wasm, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	p, err := srv.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cs, err := c.Connect(cctx, &mcp.IOTransport{Reader: io.NopCloser(p), Writer: writeCloser{p}}, nil)
	if err != nil {
		select {
		case <-p.Done():
			t.Fatalf("initialize: %v; the instance ended: %v", err, p.Err())
		case <-time.After(5 * time.Second):
		}
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return srv, cs
}

type writeCloser struct {
	p interface{ Write([]byte) (int, error) }
}

func (w writeCloser) Write(b []byte) (int, error) { return w.p.Write(b) }
func (w writeCloser) Close() error                { return nil }

func resultText(t testing.TB, r *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// server-basic-vanillajs 2.0.3 (TS SDK v2 and ext-apps bundled in one file) runs as a whole
// server with args ["--stdio"]: its tool carries _meta.ui, its ui:// resource is the HTML with
// the MCP App mime type, and get-time answers the real time with the clock grant and the
// instance's own clock (from 2022-01-01) without it.
func TestJSServerBasicVanilla(t *testing.T) {
	wasm, out := buildNPMServer(t, "@modelcontextprotocol/server-basic-vanillajs", "dist/index.js")
	if !strings.Contains(out, "whole-server path") {
		t.Errorf("build output does not say it took the whole-server path:\n%s", out)
	}
	h := wasiHost(t)
	for _, clock := range []bool{true, false} {
		t.Run("clock="+map[bool]string{true: "granted", false: "none"}[clock], func(t *testing.T) {
			srv, cs := jsSession(t, h, wasm, &runtime.GuestConfig{Name: "vanilla", Source: "vanilla.wasm", Args: []string{"--stdio"},
				Grants: policy.Grants{Clock: clock}}, nil)
			if srv.Kind() != "javascript-server" {
				t.Errorf("Kind = %q, want javascript-server", srv.Kind())
			}
			if got := cs.InitializeResult().ServerInfo.Name; got != "Basic MCP App Server (Vanilla JS)" {
				t.Errorf("server name %q", got)
			}
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.Tools) != 1 || tools.Tools[0].Name != "get-time" {
				b, _ := json.Marshal(tools)
				t.Fatalf("tools: %s", b)
			}
			meta, _ := json.Marshal(tools.Tools[0].Meta)
			if !strings.Contains(string(meta), `"resourceUri":"ui://get-time/mcp-app.html"`) {
				t.Errorf("get-time _meta = %s, want ui.resourceUri ui://get-time/mcp-app.html", meta)
			}
			rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "ui://get-time/mcp-app.html"})
			if err != nil {
				t.Fatal(err)
			}
			if len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "text/html;profile=mcp-app" || !strings.Contains(rr.Contents[0].Text, "<html") {
				t.Errorf("resource: mime %q, %d bytes", rr.Contents[0].MIMEType, len(rr.Contents[0].Text))
			}
			before := time.Now().UTC()
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get-time", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			got := resultText(t, res)
			ts, err := time.Parse(time.RFC3339Nano, got)
			if err != nil {
				t.Fatalf("get-time answered %q: %v", got, err)
			}
			if clock {
				if ts.Before(before.Add(-time.Second)) || ts.After(time.Now().Add(time.Second)) {
					t.Errorf("get-time with the clock grant = %s, want now (%s)", ts, before)
				}
			} else if ts.Year() != 2022 || ts.Month() != 1 || ts.Day() != 1 {
				t.Errorf("get-time without the clock grant = %s, want 2022-01-01 plus the instance's age", ts)
			}
			t.Logf("get-time (clock granted %v): %s", clock, got)
		})
	}
}

// server-everything 2026.8.31 (SDK v1 with its setInterval notifications, not bundled: the
// build bundles it with its own SDK) runs as a whole server: its tools are listed and
// called, and after resources/subscribe its timer sends notifications/resources/updated
// between calls (every 5 s: the test waits for the first one, no call running). This is the
// runtime's side: the client here is connected to the process's pipes; whether mcpwasm serve
// relays the update to its own client is the relay's (upstream) part.
func TestJSServerEverything(t *testing.T) {
	wasm, out := buildNPMServer(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	if !strings.Contains(out, "whole-server path") {
		t.Errorf("build output does not say it took the whole-server path:\n%s", out)
	}
	h := wasiHost(t)
	updated := make(chan string, 16)
	_, cs := jsSession(t, h, wasm, &runtime.GuestConfig{Name: "everything", Args: []string{"stdio"}, Grants: policy.Grants{Clock: true}},
		&mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case updated <- r.Params.URI:
			default:
			}
		}})
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"echo", "get-sum", "get-env"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %q", names, want)
		}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "Echo: hi" {
		t.Errorf("echo = %q, want %q", got, "Echo: hi")
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 40}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); !strings.Contains(got, "42") {
		t.Errorf("get-sum(2, 40) = %q, want it to say 42", got)
	}
	const uri = "demo://resource/static/document/architecture.md"
	if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	// The tool starts the updates: one at once (within the call), then one every 5 s from
	// setInterval, which the pump fires with no call running.
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "toggle-subscriber-updates", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	called := time.Now()
	for i := range 2 {
		select {
		case got := <-updated:
			if got != uri {
				t.Errorf("resources/updated for %q, want %q", got, uri)
			}
		case <-time.After(time.Minute):
			t.Fatalf("update %d: no notifications/resources/updated within a minute (the server's interval is 5 s)", i+1)
		}
	}
	t.Logf("second update %s after the call returned: %s", time.Since(called).Round(time.Millisecond), resultText(t, res))
}

// BenchmarkJSServerVanilla: server-basic-vanillajs as a whole server (warm compile: the
// module is loaded once). first-call is a new instance's start, initialize and first
// answered get-time; call is one get-time on a running instance (calls/s = 1/call).
func BenchmarkJSServerVanilla(b *testing.B) {
	wasm, _ := buildNPMServer(b, "@modelcontextprotocol/server-basic-vanillajs", "dist/index.js")
	h, err := runtime.NewHost(b.Context(), &runtime.Options{NoDiskCache: true})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	cfg := &runtime.GuestConfig{Name: "vanilla", Args: []string{"--stdio"}, Grants: policy.Grants{Clock: true}}
	srv, err := h.LoadServer(b.Context(), wasm, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close(context.Background())
	connect := func() (*mcp.ClientSession, func()) {
		p, err := srv.Start(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(b.Context(), &mcp.IOTransport{Reader: io.NopCloser(p), Writer: writeCloser{p}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs, func() { cs.Close(); p.Close() }
	}
	call := func(cs *mcp.ClientSession) {
		if _, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "get-time", Arguments: map[string]any{}}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("first-call", func(b *testing.B) {
		for b.Loop() {
			cs, done := connect()
			call(cs)
			b.StopTimer()
			done()
			b.StartTimer()
		}
	})
	b.Run("call", func(b *testing.B) {
		cs, done := connect()
		defer done()
		for b.Loop() {
			call(cs)
		}
	})
}
