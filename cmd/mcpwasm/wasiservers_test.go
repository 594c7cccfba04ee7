package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/names"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const helloPkg = "github.com/modelcontextprotocol/go-sdk/examples/server/hello"

// wasiServerConfig writes a config serving the whole-server guests given as name → (module
// bytes, args, limits) and returns its path.
type wasiGuest struct {
	name      string
	wasm      []byte
	args      []string
	limits    map[string]int
	isolation string
	prefix    string // tool_prefix
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
		if g.isolation != "" {
			e["isolation"] = g.isolation
		}
		if g.prefix != "" {
			e["tool_prefix"] = g.prefix
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

// go-sdk's hello, built for wasip1, is served by mcpwasm as greet (its own name, as any
// guest's tools) with the same definition its native build lists, and answers as it.
func TestWASIServerHelloServed(t *testing.T) {
	wasm := testenv.GoWasip1(t, helloPkg)
	base, _ := startHTTP(t, "--config", wasiServerConfig(t, wasiGuest{name: "hello", wasm: wasm}))
	cs := connectSDK(t, base+"/mcp")
	var got *mcp.Tool
	for tool, err := range cs.Tools(testContext(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "greet" {
			got = tool
		}
	}
	if got == nil {
		t.Fatalf("tools: %v, want greet", toolNames(t, cs))
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
	want.Name = "greet"
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(&want)
	if string(gb) != string(wb) {
		t.Errorf("listed:\n got %s\nwant %s", gb, wb)
	}
	if text, isErr := callText(t, cs, "greet", map[string]any{"name": "Ada"}); text != "Hi Ada" || isErr {
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
		if got, _ := callText(t, want.cs, "count", nil); got != want.text {
			t.Errorf("call %d: %q, want %q", i, got, want.text)
		}
	}
	c := connectSDK(t, base+"/mcp")
	for i := range 2 {
		if got, _ := callText(t, c, "count", nil); got != "1" {
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
	if got, _ := callText(t, cs, "count", nil); got != "1" {
		t.Fatalf("count: %q", got)
	}
	start := time.Now()
	text, isErr := callText(t, cs, "spin", nil)
	if !isErr || !strings.Contains(text, `guest "counter" tool "spin": time limit exceeded (2s); its instance did not answer within 1s after the cancellation and was stopped`) || !strings.Contains(text, "was stopped") {
		t.Errorf("spin: %q (error %v)", text, isErr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("spin took %v", d)
	}
	if got, _ := callText(t, cs, "count", nil); got != "1" {
		t.Errorf("count after the stop: %q, want 1 (a fresh instance)", got)
	}
	text, isErr = callText(t, cs, "alloc", nil)
	if !isErr || !strings.Contains(text, `guest "counter" tool "alloc": memory limit reached: its linear memory would exceed 64 MiB; the instance ended`) {
		t.Errorf("alloc: %q (error %v)", text, isErr)
	}
	if got, _ := callText(t, cs, "greet", map[string]any{"name": "Bo"}); got != "Hi Bo" {
		t.Errorf("hello after the failures: %q", got)
	}
	if got, _ := callText(t, cs, "count", nil); got != "1" {
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

// inspect names the kind and lists the tools as serve serves them, with the argv from args.
func TestWASIServerInspect(t *testing.T) {
	if testenv.Race {
		// inspect runs in this process: wazero's compiler under the race detector takes over
		// the 5 min compile limit for this 14 MB module when the cache is cold.
		t.Skip("compiling a Go-built module in a -race test binary exceeds the compile limit")
	}
	wasm := testenv.GoWasip1(t, helloPkg)
	p := filepath.Join(t.TempDir(), "hello.wasm")
	if err := os.WriteFile(p, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("inspect", "--json", "--cache-dir", cacheDir, p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Kind   string
		Name   string
		Argv   []string
		Server struct{ Name string }
		Tools  []struct{ Name, Description string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Kind != "wasi-server" || got.Name != "hello" || strings.Join(got.Argv, " ") != "hello" || got.Server.Name != "greeter" ||
		len(got.Tools) != 1 || got.Tools[0].Name != "greet" || got.Tools[0].Description != "say hi" {
		t.Errorf("inspect: %s", out)
	}
	// inspect --config shows it among the config's guests, with its args.
	cfg := wasiServerConfig(t, wasiGuest{name: "hi", wasm: wasm, args: []string{"-x"}})
	out, errOut, code = runCLI("inspect", "--cache-dir", cacheDir, "--config", cfg)
	for _, want := range []string{"guest hi\n", "kind: wasi-server", "argv: hi -x\n", "\n  greet\n    say hi\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("inspect --config: exit %d, want %q in:\n%s%s", code, want, out, errOut)
		}
	}
}

// BenchmarkWASIServerHello: go-sdk hello as a whole-server guest beside the same program
// built natively as an exposed upstream, both behind one `mcpwasm serve --http`, called one
// at a time by a 2025-11-25 client (its session keeps its instance). first-call is a new
// session's connect and first answered call (the compile cache is warm). The target is a
// ratio (RATIONALE "Whole MCP servers (WASI commands)"): guest calls/s ≥ 0.8 × native's.
func BenchmarkWASIServerHello(b *testing.B) {
	wasm := testenv.GoWasip1(b, helloPkg)
	dir := b.TempDir()
	bin := filepath.Join(dir, "hello")
	if out, err := exec.Command("go", "build", "-o", bin, helloPkg).CombinedOutput(); err != nil {
		b.Fatalf("native build: %v\n%s", err, out)
	}
	wp := filepath.Join(dir, "hello.wasm")
	if err := os.WriteFile(wp, wasm, 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{
		"guests":    []any{map[string]any{"name": "hello", "path": wp}},
		"upstreams": map[string]any{"native": map[string]any{"command": []string{bin}, "expose": true}},
	})
	cp := filepath.Join(dir, "mcpwasm.json")
	if err := os.WriteFile(cp, cfg, 0o644); err != nil {
		b.Fatal(err)
	}
	base, stop := benchHTTP(b, "--config", cp)
	defer stop()
	ctx := context.Background()
	connect := func() *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	call := func(cs *mcp.ClientSession, tool string) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"name": "b"}})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", tool, err, res)
		}
	}
	rate := map[string]float64{}
	// The sub-benchmarks keep their names from when a whole server's tools were prefixed
	// (bench/HISTORY.md compares by name): hello__greet calls the guest's greet.
	for _, lt := range [][2]string{{"hello__greet", "greet"}, {"native__greet", "native__greet"}} {
		label, tool := lt[0], lt[1]
		b.Run(label, func(b *testing.B) {
			cs := connect()
			defer cs.Close()
			call(cs, tool) // the instance (or process) is up
			start := time.Now()
			for b.Loop() {
				call(cs, tool)
			}
			rate[label] = float64(b.N) / time.Since(start).Seconds()
			b.ReportMetric(rate[label], "calls/s")
		})
	}
	if rate["native__greet"] > 0 {
		b.Logf("guest/native calls/s: %.2f", rate["hello__greet"]/rate["native__greet"])
	}
	b.Run("first-call", func(b *testing.B) {
		for b.Loop() {
			cs := connect()
			call(cs, "greet")
			b.StopTimer()
			cs.Close()
			b.StartTimer()
		}
	})
	b.Run("call-2026-07-28", func(b *testing.B) { // no sessions: an instance per call
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		for b.Loop() {
			call(cs, "greet")
		}
	})
}

// benchHTTP runs `mcpwasm serve --http 127.0.0.1:0 args…` for a benchmark and returns its
// base URL and a stop function.
func benchHTTP(b *testing.B, args ...string) (string, func()) {
	b.Helper()
	cmd := exec.Command(binPath, append([]string{"serve", "--cache-dir", cacheDir, "--http", "127.0.0.1:0"}, args...)...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	re := regexp.MustCompile(`transport=http addr=(\S+)`)
	deadline := time.After(5 * time.Minute)
	for {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return "http://" + m[1], stop
		}
		select {
		case <-stderr.changed():
		case <-deadline:
			stop()
			b.Fatalf("serve did not listen: %s", stderr)
		}
	}
}

// The process gets argv from args, the environment from the env grant only, and the fs
// grant read-only (rw not set).
func TestWASIServerGrants(t *testing.T) {
	wasm := testenv.GoWasip1(t, "./testdata/wasiserver")
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "in.txt"), []byte("granted"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCPWASM_TEST_SECRET", "leak")
	dir := t.TempDir()
	wp := filepath.Join(dir, "counter.wasm")
	if err := os.WriteFile(wp, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"guests": []any{map[string]any{
		"name": "counter", "path": wp, "args": []string{"a", "b c"},
		"grants": map[string]any{"env": []string{"GREETING=hi"}, "fs": []any{map[string]any{"guest": "/data", "host": data}}},
	}}})
	cp := filepath.Join(dir, "mcpwasm.json")
	if err := os.WriteFile(cp, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	base, _ := startHTTP(t, "--config", cp)
	cs := connectSDK(t, base+"/mcp")
	if got, _ := callText(t, cs, "process", nil); got != "counter a b c|GREETING=hi" {
		t.Errorf("process: %q, want %q", got, "counter a b c|GREETING=hi")
	}
	got, _ := callText(t, cs, "files", nil)
	if !strings.HasPrefix(got, `read "granted" <nil>; write open /data/out.txt: `) || strings.HasSuffix(got, "<nil>") {
		t.Errorf("files: %q", got)
	}
	if _, err := os.Stat(filepath.Join(data, "out.txt")); err == nil {
		t.Error("out.txt was written through a read-only grant")
	}
}

// go-sdk's sequentialthinking, toolschemas and everything examples, built for wasip1 and
// served side by side, each list what their native builds list (each with tool_prefix
// NAME__: served side by side, their own names would clash).
func TestWASIServerExamplesList(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and compiles three 15 MB modules")
	}
	const prefix = "github.com/modelcontextprotocol/go-sdk/examples/server/"
	examples := []string{"sequentialthinking", "toolschemas", "everything"}
	var guests []wasiGuest
	for _, e := range examples {
		guests = append(guests, wasiGuest{name: e, wasm: testenv.GoWasip1(t, prefix+e), prefix: e + "__"})
	}
	base, _ := startHTTP(t, "--config", wasiServerConfig(t, guests...))
	cs := connectSDK(t, base+"/mcp")
	served := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(testContext(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		served[tool.Name] = tool
	}
	for _, e := range examples {
		bin := filepath.Join(t.TempDir(), e)
		if out, err := exec.Command("go", "build", "-o", bin, prefix+e).CombinedOutput(); err != nil {
			t.Fatalf("native build: %v\n%s", err, out)
		}
		native, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(testContext(t), &mcp.CommandTransport{Command: exec.Command(bin)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for tool, err := range native.Tools(testContext(t), nil) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			want := *tool
			want.Name = names.MapName(e + "__" + tool.Name)
			got := served[want.Name]
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(&want)
			if string(gb) != string(wb) {
				t.Errorf("%s: served\n %s\nnative\n %s", e, gb, wb)
			}
		}
		native.Close()
		if n == 0 {
			t.Errorf("%s: native lists no tool", e)
		}
		t.Logf("%s: %d tools", e, n)
	}
}

// A timer fires after about its duration of real time, with the clock granted or not (a
// clock that advanced 1 ms per reading left a 300 ms sleep unfinished after 20 s).
func TestWASIServerTimers(t *testing.T) {
	wasm := testenv.GoWasip1(t, "./testdata/wasiserver")
	dir := t.TempDir()
	wp := filepath.Join(dir, "counter.wasm")
	if err := os.WriteFile(wp, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"guests": []any{
		map[string]any{"name": "fake", "path": wp, "limits": map[string]int{"timeout_ms": 20000}, "tool_prefix": "fake__"}, // one module twice:
		map[string]any{"name": "real", "path": wp, "grants": map[string]any{"clock": true}, "tool_prefix": "real__"},       // its names need prefixes
	}})
	cp := filepath.Join(dir, "mcpwasm.json")
	if err := os.WriteFile(cp, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	base, _ := startHTTP(t, "--config", cp)
	cs := connectSDK(t, base+"/mcp")
	for _, g := range []string{"real", "fake"} {
		start := time.Now()
		got, isErr := callText(t, cs, g+"__sleep", nil)
		t.Logf("%s: %q in %v", g, got, time.Since(start))
		if got != "slept true" || isErr {
			t.Errorf("%s: %q (error %v)", g, got, isErr)
		}
	}
}

// isolation "shared": one instance for every client (the counter crosses sessions); "call":
// an instance per call (it never moves).
func TestWASIServerIsolationModes(t *testing.T) {
	wasm := testenv.GoWasip1(t, "./testdata/wasiserver")
	base, _ := startHTTP(t, "--config", wasiServerConfig(t,
		wasiGuest{name: "shared", wasm: wasm, isolation: "shared", prefix: "shared__"},
		wasiGuest{name: "percall", wasm: wasm, isolation: "call", prefix: "percall__"})) // both serve count
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
	for i, c := range []struct {
		cs         *mcp.ClientSession
		tool, want string
	}{{a, "shared__count", "1"}, {b, "shared__count", "2"}, {a, "shared__count", "3"},
		{a, "percall__count", "1"}, {a, "percall__count", "1"}, {b, "percall__count", "1"}} {
		if got, _ := callText(t, c.cs, c.tool, nil); got != c.want {
			t.Errorf("call %d (%s): %q, want %q", i, c.tool, got, c.want)
		}
	}
}

// Two whole-server guests serving one tool name: serve refuses to start, naming both and
// tool_prefix, in the words it uses for two guests of any kind, and inspect --config reports
// the same with the same exit code; with a tool_prefix on one, both are served.
func TestWASIServerNameClash(t *testing.T) {
	wasm := testenv.GoWasip1(t, helloPkg)
	const want = `tool "greet" of guest "b" is already provided by guest "a"; to serve both, give one a tool prefix (config: "tool_prefix" of the guest; runtime.GuestConfig.ToolPrefix)`
	cfg := wasiServerConfig(t, wasiGuest{name: "a", wasm: wasm}, wasiGuest{name: "b", wasm: wasm})
	_, errOut, code := runCLI("serve", "--cache-dir", cacheDir, "--config", cfg)
	if code != ExitLoad || !strings.Contains(errOut, want) {
		t.Errorf("serve: exit %d, want %d and %q in:\n%s", code, ExitLoad, want, errOut)
	}
	out, errOut, code := runCLI("inspect", "--cache-dir", cacheDir, "--config", cfg)
	if code != ExitLoad || !strings.Contains(errOut, want) || !strings.Contains(out, "\n  greet\n") {
		t.Errorf("inspect --config: exit %d, want %d and %q in:\n%s%s", code, ExitLoad, want, out, errOut)
	}
	cfg = wasiServerConfig(t, wasiGuest{name: "a", wasm: wasm}, wasiGuest{name: "b", wasm: wasm, prefix: "b_"})
	if out, errOut, code := runCLI("inspect", "--cache-dir", cacheDir, "--config", cfg); code != ExitOK || !strings.Contains(out, "\n  b_greet\n") {
		t.Errorf("inspect --config with tool_prefix: exit %d\n%s%s", code, out, errOut)
	}
	base, _ := startHTTP(t, "--config", cfg)
	cs := connectSDK(t, base+"/mcp")
	if got := strings.Join(toolNames(t, cs), ","); got != "b_greet,greet" {
		t.Errorf("tools %s, want b_greet,greet", got)
	}
	if text, isErr := callText(t, cs, "b_greet", map[string]any{"name": "Bo"}); text != "Hi Bo" || isErr {
		t.Errorf("b_greet: %q (error %v)", text, isErr)
	}
}
