package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const helloPkg = "github.com/modelcontextprotocol/go-sdk/examples/server/hello"

// wasiServerConfig writes a config serving the whole-server guests given as name → (module
// bytes, args, limits) and returns its path.
type wasiGuest struct {
	name   string
	wasm   []byte
	args   []string
	limits map[string]int
}

func wasiServerConfig(t *testing.T, guests ...wasiGuest) string {
	t.Helper()
	dir := t.TempDir()
	var entries []map[string]any
	for _, g := range guests {
		p := filepath.Join(dir, g.name+".wasm")
		if err := os.WriteFile(p, g.wasm, 0o644); err != nil {
			t.Fatal(err)
		}
		e := map[string]any{"name": g.name, "path": p}
		if len(g.args) > 0 {
			e["args"] = g.args
		}
		if g.limits != nil {
			e["limits"] = g.limits
		}
		entries = append(entries, e)
	}
	b, _ := json.Marshal(map[string]any{"guests": entries})
	cfg := filepath.Join(dir, "mcpwasm.json")
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func callText(t *testing.T, cs *mcp.ClientSession, tool string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(testContext(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// go-sdk's hello, built for wasip1, is served by mcpwasm as hello__greet (named as an
// upstream's tools are) with the same definition its native build lists, and answers as it.
func TestWASIServerHelloServed(t *testing.T) {
	wasm := testenv.GoWasip1(t, helloPkg)
	base, _ := startHTTP(t, "--config", wasiServerConfig(t, wasiGuest{name: "hello", wasm: wasm}))
	cs := connectSDK(t, base+"/mcp")
	var got *mcp.Tool
	for tool, err := range cs.Tools(testContext(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "hello__greet" {
			got = tool
		}
	}
	if got == nil {
		t.Fatalf("tools: %v, want hello__greet", toolNames(t, cs))
	}

	bin := filepath.Join(t.TempDir(), "hello")
	if out, err := exec.Command("go", "build", "-o", bin, helloPkg).CombinedOutput(); err != nil {
		t.Fatalf("native build: %v\n%s", err, out)
	}
	native, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(testContext(t), &mcp.CommandTransport{Command: exec.Command(bin)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer native.Close()
	nl, err := native.ListTools(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := *nl.Tools[0]
	want.Name = "hello__greet"
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(&want)
	if string(gb) != string(wb) {
		t.Errorf("listed:\n got %s\nwant %s", gb, wb)
	}
	if text, isErr := callText(t, cs, "hello__greet", map[string]any{"name": "Ada"}); text != "Hi Ada" || isErr {
		t.Errorf("greet: %q (error %v), want \"Hi Ada\"", text, isErr)
	}
}

// Two HTTP sessions each get their own instance: a counter in one does not move in the
// other, and a session's calls share its instance. Under 2026-07-28, which has no sessions,
// every call is its own session: a fresh instance each.
func TestWASIServerSessionsIsolated(t *testing.T) {
	wasm := testenv.GoWasip1(t, "./testdata/wasiserver")
	base, _ := startHTTP(t, "--config", wasiServerConfig(t, wasiGuest{name: "counter", wasm: wasm}))
	legacy := func() *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
		cs, err := c.Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b := legacy(), legacy()
	if v := a.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("protocol %q", v)
	}
	for i, want := range []struct {
		cs   *mcp.ClientSession
		text string
	}{{a, "1"}, {a, "2"}, {b, "1"}, {a, "3"}, {b, "2"}} {
		if got, _ := callText(t, want.cs, "counter__count", nil); got != want.text {
			t.Errorf("call %d: %q, want %q", i, got, want.text)
		}
	}
	c := connectSDK(t, base+"/mcp")
	for i := range 2 {
		if got, _ := callText(t, c, "counter__count", nil); got != "1" {
			t.Errorf("2026-07-28 call %d: %q, want 1", i, got)
		}
	}
}

// A call that loops forever ends at the time limit with an error naming it, the instance is
// stopped, and the session's next call gets a fresh instance; one that allocates without
// end ends at the memory limit. The other guest serves on throughout.
func TestWASIServerRunaway(t *testing.T) {
	wasm := testenv.GoWasip1(t, "./testdata/wasiserver")
	hello := testenv.GoWasip1(t, helloPkg)
	cfg := wasiServerConfig(t,
		wasiGuest{name: "counter", wasm: wasm, limits: map[string]int{"timeout_ms": 2000, "memory_mb": 64}},
		wasiGuest{name: "hello", wasm: hello})
	base, srv := startHTTP(t, "--config", cfg)
	cs := connectSDK(t, base+"/mcp")
	if got, _ := callText(t, cs, "counter__count", nil); got != "1" {
		t.Fatalf("count: %q", got)
	}
	start := time.Now()
	text, isErr := callText(t, cs, "counter__spin", nil)
	if !isErr || !strings.Contains(text, `guest "counter" tool "spin": time limit exceeded (2s); its instance did not answer within 1s after the cancellation and was stopped`) || !strings.Contains(text, "was stopped") {
		t.Errorf("spin: %q (error %v)", text, isErr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("spin took %v", d)
	}
	if got, _ := callText(t, cs, "counter__count", nil); got != "1" {
		t.Errorf("count after the stop: %q, want 1 (a fresh instance)", got)
	}
	text, isErr = callText(t, cs, "counter__alloc", nil)
	if !isErr || !strings.Contains(text, `guest "counter" tool "alloc": memory limit reached: its linear memory would exceed 64 MiB; the instance ended`) {
		t.Errorf("alloc: %q (error %v)", text, isErr)
	}
	if got, _ := callText(t, cs, "hello__greet", map[string]any{"name": "Bo"}); got != "Hi Bo" {
		t.Errorf("hello after the failures: %q", got)
	}
	if got, _ := callText(t, cs, "counter__count", nil); got != "1" {
		t.Errorf("count after alloc: %q, want 1", got)
	}
	_ = srv
}

// A WASI server that exits at start, or writes what is not JSON, fails the load with an
// error naming the guest and what it did.
func TestWASIServerBrokenAtStart(t *testing.T) {
	wasm := testenv.GoWasip1(t, "./testdata/wasiserver")
	for _, c := range []struct{ arg, want string }{
		{"exit", `guest "bad": listing its tools: the server exited with exit code 3; it wrote: wasiserver: told to exit at start`},
		{"garbage", `guest "bad": listing its tools: the server exited: wrote to stdout a line that is not JSON: "hello from wasiserver, which is not JSON"`},
	} {
		t.Run(c.arg, func(t *testing.T) {
			s := startServer(t, "--config", wasiServerConfig(t, wasiGuest{name: "bad", wasm: wasm, args: []string{c.arg}}))
			select {
			case <-s.exited:
			case <-time.After(waitLimit(t)):
				t.Fatalf("still running; stderr:\n%s", s.stderr)
			}
			code := s.cmd.ProcessState.ExitCode()
			if code != ExitLoad || !strings.Contains(s.stderr.String(), c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant %q", code, s.stderr, c.want)
			}
		})
	}
}
