package quickjs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/js"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// enginePath is quickjs-wasi's engine as guests/typescript installs it (npm ci there; .ci/run
// does).
var enginePath = filepath.Join("..", "..", "..", "..", "guests", "typescript", "node_modules", "quickjs-wasi", "quickjs.wasm")

// engineBytes returns the pinned engine, checked against EngineSHA256.
func engineBytes(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(enginePath)
	if err != nil {
		testenv.Skip(t, "the quickjs-wasi engine is not installed (run: npm ci --prefix guests/typescript): %v", err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != EngineSHA256 {
		t.Fatalf("%s: sha256 %x, want %s", enginePath, sum, EngineSHA256)
	}
	return b
}

// testRuntime is one wazero runtime with WASI and the engine's host module, compiling the
// engine once for all tests of the package.
type testRuntime struct {
	r        wazero.Runtime
	compiled wazero.CompiledModule
}

var (
	rtOnce sync.Once
	rt     *testRuntime
	rtErr  error
)

func runtimeFor(t testing.TB) *testRuntime {
	t.Helper()
	engine := engineBytes(t)
	rtOnce.Do(func() {
		ctx := context.Background()
		cfg := wazero.NewRuntimeConfig().WithMemoryLimitPages(1024) // 64 MiB; host_interrupt stops scripts
		r := wazero.NewRuntimeWithConfig(ctx, cfg)
		wasi_snapshot_preview1.MustInstantiate(ctx, r)
		b := r.NewHostModuleBuilder(HostModuleName)
		for _, f := range HostFuncs(nil) {
			b.NewFunctionBuilder().WithGoModuleFunction(f.Fn, f.Params, f.Results).Export(f.Name)
		}
		if _, rtErr = b.Instantiate(ctx); rtErr != nil {
			return
		}
		c, err := r.CompileModule(ctx, engine)
		if err != nil {
			rtErr = err
			return
		}
		rt = &testRuntime{r: r, compiled: c}
	})
	if rtErr != nil {
		t.Fatal(rtErr)
	}
	return rt
}

// plainEngine is an Engine over a module instance, without the seam's limits; like the
// seam's, it resolves each export once (wazero builds a call engine on every lookup).
type plainEngine struct{ mod api.Module }

// plainFuncs caches plainEngine's lookups: module → name → function.
var plainFuncs sync.Map

func (e plainEngine) Func(name string) api.Function {
	m, _ := plainFuncs.LoadOrStore(e.mod, &sync.Map{})
	if fn, ok := m.(*sync.Map).Load(name); ok {
		return fn.(api.Function)
	}
	fn := e.mod.ExportedFunction(name)
	m.(*sync.Map).Store(name, fn)
	return fn
}
func (e plainEngine) Memory() api.Memory { return e.mod.Memory() }
func (e plainEngine) Invoke(ctx context.Context, fn api.Function, stack []uint64) error {
	return fn.CallWithStack(ctx, stack)
}

// instantiate makes an engine instance (its _initialize run, as the pool does) and sets it as
// call's Engine.
func instantiate(t testing.TB, call *Call) plainEngine {
	t.Helper()
	r := runtimeFor(t)
	ctx := context.Background()
	mod, err := r.r.InstantiateModule(ctx, r.compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mod.Close(context.Background()) })
	if _, err := mod.ExportedFunction("_initialize").Call(ctx); err != nil {
		t.Fatal(err)
	}
	e := plainEngine{mod}
	call.Engine = e
	return e
}

// start instantiates the engine and starts script (the shim prepended) under call.
func start(t testing.TB, script string, call *Call, memoryLimit uint64) *VM {
	t.Helper()
	e := instantiate(t, call)
	vm, err := Start(WithCall(context.Background(), call), e, Code{Source: []byte(js.Shim + "\n" + script)}, memoryLimit)
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

// hello is a script in the SDK's style, against the shim's classes directly (no bundler, so
// JSON Schema instead of zod).
const hello = `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "hello", version: "0.1.0" });
server.registerTool("hello", {
  description: "Greets someone by name",
  inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
}, async ({ name }) => ({ content: [{ type: "text", text: "hello, " + name }] }));
server.registerTool("boom", { description: "Throws" }, () => { throw new Error("no such thing"); });
server.registerTool("later", { description: "Answers after two timers and a promise chain" }, async () => {
  const order = [];
  await new Promise((resolve) => { setTimeout(() => { order.push("b"); resolve(); }, 20); setTimeout(() => order.push("a"), 10); });
  await Promise.resolve().then(() => order.push("c"));
  return { content: [{ type: "text", text: order.join("") }] };
});
server.registerTool("echo", { description: "Returns its text argument", inputSchema: { type: "object", properties: { text: { type: "string" } } } }, async (args) => ({ content: [{ type: "text", text: args.text }] }));
server.registerTool("nap", { description: "Waits a minute" }, async () => { await new Promise((r) => setTimeout(r, 60000)); return { content: [{ type: "text", text: "rested" }] }; });
server.registerTool("spin", { description: "Never returns" }, () => { for (;;) {} });
server.registerTool("hog", { description: "Allocates without end" }, () => { const a = []; for (;;) a.push("x".repeat(1 << 16) + a.length); });
server.registerTool("fetch", { description: "Fetches a URL", inputSchema: { type: "object", properties: { url: { type: "string" } } } }, async ({ url }) => {
  const r = await fetch(url, { headers: { Accept: "text/plain" } });
  return { content: [{ type: "text", text: r.status + " " + (await r.text()) }] };
});
server.registerTool("web", { description: "Web-platform basics" }, async () => {
  const u = new URL("../b?x=1#h", "https://Example.com:443/a/c");
  const bytes = new TextEncoder().encode("é€😀");
  const back = new TextDecoder().decode(bytes);
  const r = new Uint8Array(4); crypto.getRandomValues(r);
  console.log("log line", { a: 1 });
  return { content: [{ type: "text", text: [u.href, u.searchParams.get("x"), bytes.length, back, process.env.GREETING, crypto.randomUUID().length].join("|") }] };
});
server.registerTool("ask", { description: "Elicits, lists roots, and draws a UUID" }, async () => {
  const e = await server.server.elicitInput({ message: "name?", requestedSchema: { type: "object", properties: { n: { type: "string" } } } });
  const r = await server.server.listRoots();
  return { content: [{ type: "text", text: e.action + " " + r.roots.length + " " + crypto.randomUUID() }] };
});
await server.connect({});
`

func run(t *testing.T, vm *VM, call *Call, entry string, params any) ([]byte, error) {
	t.Helper()
	b, _ := json.Marshal(params)
	return vm.Run(WithCall(context.Background(), call), entry, b)
}

func TestDescribeAndCall(t *testing.T) {
	call := &Call{}
	vm := start(t, hello, call, 32<<20)
	m, err := run(t, vm, call, EntryDescribe, nil)
	if err != nil {
		t.Fatal(err)
	}
	var man abi.Manifest
	if err := json.Unmarshal(m, &man); err != nil {
		t.Fatalf("manifest %s: %v", m, err)
	}
	if man.Name != "hello" || man.Version != "0.1.0" || len(man.Tools) != 10 || man.Tools[0].Name != "hello" ||
		string(man.Tools[0].InputSchema) != `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}` ||
		string(man.Tools[1].InputSchema) != `{"type":"object","properties":{}}` {
		t.Fatalf("manifest %s", m)
	}
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "hello", "arguments": map[string]any{"name": "Ada"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"hello, Ada"}]}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
}

func TestThrownErrorIsToolError(t *testing.T) {
	call := &Call{}
	vm := start(t, hello, call, 32<<20)
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "boom"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"no such thing"}],"isError":true}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	_, err = run(t, vm, call, EntryCallTool, map[string]any{"name": "nope"})
	var ee *EntryError
	if !errors.As(err, &ee) || ee.Code != -32602 || ee.Message != "Tool nope not found" {
		t.Fatalf("unknown tool: %v", err)
	}
}

func TestAsyncTimersInOrder(t *testing.T) {
	call := &Call{}
	vm := start(t, hello, call, 32<<20)
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "later"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"abc"}]}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
}

func TestLargeUnicodeArgumentsRoundTrip(t *testing.T) {
	call := &Call{}
	vm := start(t, hello, call, 64<<20)
	text := strings.Repeat("añ€😀\"\\\n\u2028", 1<<20/16) // 1 MiB of UTF-8, escapes included
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "echo", "arguments": map[string]any{"text": text}})
	if err != nil {
		t.Fatal(err)
	}
	var res abi.Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != text {
		t.Fatalf("the text came back changed (%d bytes, want %d)", len(res.Content[0].Text), len(text))
	}
}

func TestInfiniteLoopInterruptedThenNextCallWorks(t *testing.T) {
	call := &Call{}
	vm := start(t, hello, call, 32<<20)
	ctx, cancel := context.WithTimeout(WithCall(context.Background(), call), 100*time.Millisecond)
	defer cancel()
	_, err := vm.Run(ctx, EntryCallTool, []byte(`{"name":"spin"}`))
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("spin: %v, want ErrInterrupted and the deadline", err)
	}
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "hello", "arguments": map[string]any{"name": "again"}})
	if err != nil || !strings.Contains(string(out), "hello, again") {
		t.Fatalf("after the interrupt: %s, %v", out, err)
	}
}

func TestMemoryBombRefused(t *testing.T) {
	call := &Call{}
	vm := start(t, hello, call, 16<<20)
	_, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "hog"})
	if !errors.Is(err, ErrMemory) {
		t.Fatalf("hog: %v, want ErrMemory", err)
	}
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "hello", "arguments": map[string]any{"name": "again"}})
	if err != nil || !strings.Contains(string(out), "hello, again") {
		t.Fatalf("after the memory limit: %s, %v", out, err)
	}
}

// fakeSandbox answers http requests from a map and records them.
type fakeSandbox struct {
	mu   sync.Mutex
	seen []string
}

func (f *fakeSandbox) Request(_ context.Context, kind string, body []byte) (abi.Status, []byte) {
	f.mu.Lock()
	f.seen = append(f.seen, kind+" "+string(body))
	f.mu.Unlock()
	var req struct{ URL string }
	json.Unmarshal(body, &req)
	if strings.Contains(req.URL, "denied.example") {
		return abi.StatusDenied, []byte(`{"error":"net: host \"denied.example\" is not granted to guest \"hello\""}`)
	}
	return abi.StatusOK, []byte(`{"status":200,"headers":{"Content-Type":["text/plain"]},"body":"pong","url":"` + req.URL + `"}`)
}

func TestFetchGoesThroughTheSandbox(t *testing.T) {
	sb := &fakeSandbox{}
	call := &Call{Sandbox: sb}
	vm := start(t, hello, call, 32<<20)
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "fetch", "arguments": map[string]any{"url": "https://api.example/ping"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"200 pong"}]}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	if want := `http {"method":"GET","url":"https://api.example/ping","headers":{"accept":["text/plain"]}}`; len(sb.seen) != 1 || sb.seen[0] != want {
		t.Fatalf("requests %q, want [%q]", sb.seen, want)
	}
	out, err = run(t, vm, call, EntryCallTool, map[string]any{"name": "fetch", "arguments": map[string]any{"url": "https://denied.example/"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"fetch https://denied.example/: net: host \"denied.example\" is not granted to guest \"hello\""}],"isError":true}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
}

func TestWebBasicsAndLog(t *testing.T) {
	var logs []string
	call := &Call{Env: []string{"GREETING=hi"}, Log: func(level, msg string) { logs = append(logs, level+": "+msg) }}
	vm := start(t, hello, call, 32<<20)
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "web"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"https://example.com/b?x=1#h|1|9|é€😀|hi|36"}]}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	if want := []string{`info: log line {"a":1}`}; len(logs) != 1 || logs[0] != want[0] {
		t.Fatalf("logs %q, want %q", logs, want)
	}
}

func TestScriptErrorAtLoad(t *testing.T) {
	call := &Call{}
	e := instantiate(t, call)
	_, err := Start(WithCall(context.Background(), call), e, Code{Source: []byte(js.Shim + "\nthrow new TypeError('broken at load');")}, 0)
	if !errors.Is(err, ErrScript) || !strings.Contains(err.Error(), "TypeError: broken at load") {
		t.Fatalf("got %v", err)
	}
}

func TestScriptSection(t *testing.T) {
	engine := engineBytes(t)
	if _, err := Script(engine); !errors.Is(err, ErrNoScript) {
		t.Fatalf("bare engine: %v", err)
	}
	s := strings.Repeat("x", 300)
	got, err := Script(WithScript(engine, []byte(s)))
	if err != nil || string(got.Source) != s || got.Bytecode != nil {
		t.Fatalf("got %d bytes of source, %d of bytecode, %v", len(got.Source), len(got.Bytecode), err)
	}
	var defs = map[string]api.FunctionDefinition{}
	c := runtimeFor(t).compiled
	for n, d := range c.ExportedFunctions() {
		defs[n] = d
	}
	if err := Check(defs); err != nil {
		t.Fatal(err)
	}
	delete(defs, "qjs_call")
	if err := Check(defs); err == nil || err.Error() != `not a quickjs-wasi engine: export "qjs_call" is missing` {
		t.Fatalf("got %v", err)
	}
}

// With the clock granted a timer really waits, in slices that end when the call is
// interrupted (the seam keeps the deadline in the instance, not in ctx); without it, the
// same timer fires at once.
func TestTimerWaitEndsWhenInterrupted(t *testing.T) {
	checks := 0
	call := &Call{Clock: true}
	vm := start(t, hello, call, 32<<20)
	call.Interrupted = func() bool { checks++; return checks > 3 }
	vm.Call = call
	_, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "nap"})
	if !errors.Is(err, ErrInterrupted) || checks < 4 {
		t.Fatalf("nap: %v after %d checks, want ErrInterrupted after the fourth", err, checks)
	}
	call.Clock, call.Interrupted = false, nil
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "nap"})
	if want := `{"content":[{"type":"text","text":"rested"}]}`; err != nil || string(out) != want {
		t.Fatalf("nap without the clock: %s, %v; want %s", out, err, want)
	}
}

// kindSandbox answers elicitation and roots requests and records their kinds.
type kindSandbox struct{ kinds []string }

func (k *kindSandbox) Request(_ context.Context, kind string, body []byte) (abi.Status, []byte) {
	k.kinds = append(k.kinds, kind+" "+string(body))
	switch kind {
	case abi.KindElicitation:
		return abi.StatusOK, []byte(`{"action":"accept","content":{"n":"x"}}`)
	case abi.KindRoots:
		return abi.StatusOK, []byte(`{"roots":[{"uri":"file:///a"},{"uri":"file:///b"}]}`)
	}
	return abi.StatusNotFound, []byte(`{"error":"no"}`)
}

// elicitInput and listRoots go through their request kinds; without the random grant the
// UUID is the same in every call (a fixed sequence per call), with it it differs.
func TestElicitRootsAndRandom(t *testing.T) {
	sb := &kindSandbox{}
	call := &Call{Sandbox: sb}
	vm := start(t, hello, call, 32<<20)
	var outs []string
	for range 2 {
		call.rng = nil // a new entry (the kind's enter does this)
		out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "ask"})
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, string(out))
	}
	if want := `{"content":[{"type":"text","text":"accept 2 `; !strings.HasPrefix(outs[0], want) || outs[0] != outs[1] {
		t.Fatalf("without the random grant: %s and %s; want equal answers starting %s", outs[0], outs[1], want)
	}
	if want := []string{`elicitation {"message":"name?","requestedSchema":{"type":"object","properties":{"n":{"type":"string"}}}}`, `roots {}`}; len(sb.kinds) != 4 || sb.kinds[0] != want[0] || sb.kinds[1] != want[1] {
		t.Fatalf("requests %q, want %q twice", sb.kinds, want)
	}
	call.Random = true
	a, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "ask"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "ask"})
	if err != nil || string(a) == string(b) {
		t.Fatalf("with the random grant: %s and %s (%v); want different UUIDs", a, b, err)
	}
}

// inputSchema {} is the SDK's empty shape (a tool with no arguments): tools/list shows what
// the SDK shows for it, and the handler gets the arguments and extra, as in the SDK. An
// inputSchema that is neither a zod shape or schema nor an object JSON Schema fails at
// registration with the tool's name, not at the host's load with an empty type.
func TestEmptyShapeInputSchema(t *testing.T) {
	call := &Call{}
	vm := start(t, `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "s", version: "1" });
server.registerTool("spin", { description: "No arguments", inputSchema: {} }, async (args, extra) => ({ content: [{ type: "text", text: typeof extra.signal + " " + JSON.stringify(args) }] }));
server.tool("old", {}, async (args, extra) => ({ content: [{ type: "text", text: typeof extra.signal }] }));
await server.connect({});
`, call, 0)
	out, err := run(t, vm, call, EntryDescribe, struct{}{})
	if want := `{"name":"s","version":"1","tools":[{"name":"spin","description":"No arguments","inputSchema":{"type":"object","properties":{}}},{"name":"old","inputSchema":{"type":"object","properties":{}}}]}`; err != nil || string(out) != want {
		t.Fatalf("describe: %s, %v\nwant %s", out, err, want)
	}
	out, err = run(t, vm, call, EntryCallTool, map[string]any{"name": "spin", "arguments": map[string]any{}})
	if want := `{"content":[{"type":"text","text":"object {}"}]}`; err != nil || string(out) != want {
		t.Fatalf("spin: %s, %v; want %s", out, err, want)
	}
	out, err = run(t, vm, call, EntryCallTool, map[string]any{"name": "old"})
	if want := `{"content":[{"type":"text","text":"object"}]}`; err != nil || string(out) != want {
		t.Fatalf("old: %s, %v; want %s", out, err, want)
	}

	bad := &Call{}
	e := instantiate(t, bad)
	_, err = Start(WithCall(context.Background(), bad), e, Code{Source: []byte(js.Shim + `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "s", version: "1" });
server.registerTool("spin", { inputSchema: { n: "number" } }, async () => ({ content: [] }));
`)}, 0)
	if want := `Tool spin: inputSchema must be a zod shape ({name: z.string()}, or {} for no arguments), a zod object or a JSON Schema with "type": "object"`; !errors.Is(err, ErrScript) || !strings.Contains(err.Error(), want) {
		t.Fatalf("bad schema: %v, want %q", err, want)
	}
}

// URL percent-encodes and puts hosts through punycode as WHATWG URL (Node's) does, and a
// ResourceTemplate matches as the TS SDK's UriTemplate, leaving variables encoded: the
// expected strings are Node 20's and SDK 1.32.2's (cmd/mcpwasm's TestResourceTemplatesMatchNode
// compares with them live).
func TestURLAndTemplatesAsNode(t *testing.T) {
	script := `
const { McpServer, ResourceTemplate } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "urls", version: "1" });
const urls = ["https://Exämple.COM/a b/ü?q=ä ö'#frag ü` + "`" + `", "x://us er:pä@h/p%20q?a='ü'", "tag:ü x", "http://münchen.de./", "note://caf%C3%A9"];
const matches = [["note://{id}", "note://caf%C3%A9"], ["doc://{path*}", "doc://a,b,%C3%A7"], ["search://q{?q,lang}", "search://q?q=gr%C3%BC%C3%9Fe&lang=de"], ["file:///{+path}", "file:///a%20b/%C3%BC"], ["users://{name}/profile", "users://zo%C3%AB"]];
server.registerTool("urls", { description: "URLs" }, async () => ({
  content: [{ type: "text", text: JSON.stringify({ hrefs: urls.map((u) => new URL(u).href), vars: matches.map(([t, u]) => new ResourceTemplate(t, {}).uriTemplate.match(u)) }) }],
}));
`
	call := &Call{}
	vm := start(t, script, call, 32<<20)
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "urls"})
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Content []struct{ Text string } }
	if err := json.Unmarshal(out, &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("%s: %v", out, err)
	}
	want := `{"hrefs":["https://xn--exmple-cua.com/a%20b/%C3%BC?q=%C3%A4%20%C3%B6%27#frag%20%C3%BC%60","x://us%20er:p%C3%A4@h/p%20q?a='%C3%BC'","tag:%C3%BC x","http://xn--mnchen-3ya.de./","note://caf%C3%A9"],` +
		`"vars":[{"id":"caf%C3%A9"},{"path":["a","b","%C3%A7"]},{"q":"gr%C3%BC%C3%9Fe","lang":"de"},{"path":"a%20b/%C3%BC"},null]}`
	if res.Content[0].Text != want {
		t.Errorf("got  %s\nwant %s", res.Content[0].Text, want)
	}
}

// countingEngine counts the calls into the engine.
type countingEngine struct {
	plainEngine
	n int
}

func (e *countingEngine) Invoke(ctx context.Context, fn api.Function, stack []uint64) error {
	e.n++
	return e.plainEngine.Invoke(ctx, fn, stack)
}

// TestRunEngineCalls: a warm Run of a tool that answers synchronously calls into the engine
// eight times (the payload's string and its check, dispatch and its check, reading and
// freeing the answer, freeing the answer and the payload's string): the entry's name is made
// once per VM and the payload staged in a buffer kept from call to call, even when a longer
// payload grew it; a payload over maxKeptBuf gets a buffer of its own, freed after (malloc
// and free each time, as every payload before), and the small buffer is made again after it.
// The answer is the tool's.
func TestRunEngineCalls(t *testing.T) {
	call := &Call{}
	e := &countingEngine{plainEngine: instantiate(t, call)}
	call.Engine = e
	vm, err := Start(WithCall(context.Background(), call), e, Code{Source: []byte(js.Shim + "\n" + noop)}, 32<<20)
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithCall(context.Background(), call)
	for i, pad := range []int{0, 0, 5000, 5000, 10, maxKeptBuf, maxKeptBuf, 10, 10} {
		args := []byte(`{"name":"sync","arguments":{"pad":"` + strings.Repeat("x", pad) + `"}}`)
		e.n = 0
		out, err := vm.Run(ctx, EntryCallTool, args)
		if err != nil || string(out) != `{"content":[{"type":"text","text":"x"}]}` {
			t.Fatalf("Run %d = %s, %v", i, out, err)
		}
		want := 8
		switch i {
		case 0:
			want = 8 + 4 + 1 // the first: also the entry's name (malloc, string, check, free) and the buffer
		case 2:
			want = 8 + 2 // a longer payload: a larger buffer (malloc, free of the old one)
		case 5:
			want = 8 + 3 // over maxKeptBuf: free the small buffer, malloc a large one, free it
		case 6:
			want = 8 + 2 // malloc and free the large one
		case 7:
			want = 8 + 1 // a small buffer again
		}
		if e.n != want {
			t.Errorf("Run %d (a %d-byte payload) called the engine %d times, want %d", i, len(args), e.n, want)
		}
	}
}

// TestExtraAsTheSDK: what a tool handler sees in extra, as the TypeScript SDK's object
// literal shows it: its own enumerable keys in order, signal an enumerable accessor with no
// setter giving the same AbortSignal each read, the request id, the request's _meta, the
// notification and request functions (an unsupported request rejected with its method named).
func TestExtraAsTheSDK(t *testing.T) {
	script := `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "extra", version: "1" });
server.registerTool("look", { description: "x" }, async (extra) => {
  const d = Object.getOwnPropertyDescriptor(extra, "signal");
  let rejected = "";
  await extra.sendRequest({ method: "ping" }).catch((e) => { rejected = e.message; });
  const seen = {
    keys: Object.keys(extra),
    signal: [typeof d.get, typeof d.set, d.enumerable, d.configurable],
    same: extra.signal === extra.signal && extra.signal instanceof AbortSignal,
    aborted: extra.signal.aborted,
    requestId: extra.requestId,
    meta: extra._meta,
    fns: [typeof extra.sendNotification, typeof extra.sendRequest, extra.sessionId, extra.authInfo],
    rejected,
  };
  return { content: [{ type: "text", text: JSON.stringify(seen) }] };
});
`
	call := &Call{Ending: func() string { return "" }}
	vm := start(t, script, call, 32<<20)
	out, err := vm.Run(WithCall(context.Background(), call), EntryCallTool, []byte(`{"name":"look","arguments":{},"_meta":{"progressToken":"p1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("result %s: %v", out, err)
	}
	want := `{"keys":["signal","_entry","requestId","_meta","sessionId","authInfo","sendNotification","sendRequest"],` +
		`"signal":["function","undefined",true,true],"same":true,"aborted":false,"requestId":1,"meta":{"progressToken":"p1"},` +
		`"fns":["function","function",null,null],"rejected":"sendRequest: ping is not supported by mcpwasm"}`
	if res.Content[0].Text != want {
		t.Errorf("extra:\n got %s\nwant %s", res.Content[0].Text, want)
	}
}

// TestEndingBetweenCheckAndSleep: a cancellation that arrives after Run last asked Ending
// but before the script's timer wait begins still cuts the wait short, and the handler's
// signal aborts. Before, the wait read "already told" from the host's state, not the
// script's, and slept until the hard interrupt a grace later (CI, 2026-12-07:
// TestCancelAbortsJavaScriptSignal lost its "ended cleanly" line under load).
func TestEndingBetweenCheckAndSleep(t *testing.T) {
	script := `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "late", version: "1" });
server.registerTool("wait", { description: "x" }, async (extra) => {
  const how = await new Promise((resolve) => {
    const t = setTimeout(() => resolve("the timer fired"), 2000);
    extra.signal.addEventListener("abort", () => { clearTimeout(t); resolve("aborted: " + extra.signal.reason.name); });
  });
  return { content: [{ type: "text", text: how }] };
});
`
	asked := 0
	// The first question (Run's, before its first poll) hears nothing: the cancellation
	// lands just after it.
	call := &Call{Clock: true, Ending: func() string {
		if asked++; asked == 1 {
			return ""
		}
		return "cancelled"
	}}
	vm := start(t, script, call, 32<<20)
	vm.Call = call
	out, err := vm.Run(WithCall(context.Background(), call), EntryCallTool, []byte(`{"name":"wait","arguments":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"aborted: AbortError"}]}`; string(out) != want {
		t.Errorf("result %s, want %s", out, want)
	}
}

// TestTimerAfterAbortFires: a timer the script sets after its signal aborted (cleanup within
// the grace) really waits and fires: the ending the script already heard does not cut it.
// (Cut, it would never fire: each wait would end at once until the interrupt, here the 200th
// check — a slice of a 50 ms wait is 10 ms, so the timer needs about 6.)
func TestTimerAfterAbortFires(t *testing.T) {
	script := `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "cleanup", version: "1" });
server.registerTool("wait", { description: "x" }, async (extra) => {
  await new Promise((resolve) => extra.signal.addEventListener("abort", resolve));
  const how = await new Promise((resolve) => setTimeout(() => resolve("cleaned up"), 50));
  return { content: [{ type: "text", text: how }] };
});
`
	checks := 0
	call := &Call{Clock: true, Ending: func() string { return "cancelled" }}
	vm := start(t, script, call, 32<<20)
	call.Interrupted = func() bool { checks++; return checks > 200 }
	vm.Call = call
	out, err := vm.Run(WithCall(context.Background(), call), EntryCallTool, []byte(`{"name":"wait","arguments":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"cleaned up"}]}`; string(out) != want {
		t.Errorf("result %s, want %s", out, want)
	}
}
