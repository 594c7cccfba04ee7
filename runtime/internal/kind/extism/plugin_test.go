package extism

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

//go:embed testdata/v1.wasm
var v1Wasm []byte

//go:embed testdata/v2.wasm
var v2Wasm []byte

//go:embed testdata/reactor.wasm
var reactorWasm []byte

// watPlugins are the test plugins written in WAT (testdata/NAME.wat, built with wat2wasm).
var watPlugins = []string{"badsig", "argcap"}

// TestWATPluginsCurrent rebuilds the WAT test plugins and compares them with the committed
// .wasm files.
func TestWATPluginsCurrent(t *testing.T) {
	wat2wasm, err := exec.LookPath("wat2wasm")
	if err != nil {
		testenv.Skip(t, "wat2wasm not installed (Debian package wabt)")
	}
	for _, name := range watPlugins {
		out := filepath.Join(t.TempDir(), name+".wasm")
		cmd := exec.Command(wat2wasm, name+".wat", "-o", out)
		cmd.Dir = "testdata"
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("wat2wasm %s.wat: %v\n%s", name, err, b)
		}
		want, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join("testdata", name+".wasm")); err != nil || !bytes.Equal(got, want) {
			t.Errorf("testdata/%s.wasm is stale: rebuild it with the command at the top of testdata/%s.wat (%v)", name, name, err)
		}
	}
}

// TestPluginsCurrent rebuilds testdata/v1.c, v2.c, reactor.c, dyn.c, names.c and apps.c and compares them with the committed
// .wasm files.
func TestPluginsCurrent(t *testing.T) {
	clang, err := exec.LookPath("clang-16")
	if err != nil {
		testenv.Skip(t, "clang-16 not installed (Debian packages clang-16, lld-16)")
	}
	for _, name := range []string{"v1", "v2", "reactor", "dyn", "names", "apps"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), name+".wasm")
			args := []string{"--target=wasm32-unknown-unknown", "-O2", "-fno-builtin", "-nostdlib", "-Wl,--no-entry", "-Wl,--strip-all", "-o", out, name + ".c"}
			if name == "reactor" {
				args = []string{"--target=wasm32-wasi", "-mexec-model=reactor", "-O2", "-Wl,--strip-all", "-o", out, name + ".c"}
			}
			cmd := exec.Command(clang, args...)
			cmd.Dir = "testdata"
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("clang %s.c: %v\n%s", name, err, b)
			}
			want, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join("testdata", name+".wasm"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("testdata/%s.wasm is stale: rebuild it with the command at the top of testdata/%s.c", name, name)
			}
		})
	}
}

const pageSize = 64 << 10

// env is one wazero runtime with the Extism host modules, as a Host would hold it.
type env struct {
	t      testing.TB
	rt     wazero.Runtime
	limit  uint64 // memory limit in bytes: linear memory plus kernel memory
	module int
	stdout io.Writer // the plugins' WASI stdout, if set
	mods   []api.Module
	// kernel is KernelWasm compiled; each plugin gets an instance of it, as the seam's pool
	// links it. nil (goKernel): plugins import the Go host module's kernel functions.
	kernel wazero.CompiledModule
}

// goKernel makes e's plugins use the Go kernel functions of the host module (no kernel
// module), the fallback a plugin linked without the seam gets.
func (e *env) goKernel() *env { e.kernel = nil; return e }

func newEnv(t testing.TB, limit uint64) *env {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).WithMemoryLimitPages(uint32(limit/pageSize)))
	t.Cleanup(func() { rt.Close(ctx) })
	if err := Instantiate(ctx, rt); err != nil {
		t.Fatal(err)
	}
	kernel, err := rt.CompileModule(ctx, KernelWasm())
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, rt: rt, limit: limit, kernel: kernel}
}

// load compiles, detects, checks and instantiates a plugin, and starts it.
func (e *env) load(wasm []byte) *Plugin { return e.loadModule(wasm, true) }

// loadModule is load; without detect, for a module that exports no hyper-mcp entry point
// (the bench's echo plugin).
func (e *env) loadModule(wasm []byte, detect bool) *Plugin { return e.loadStarted(wasm, detect).p }

// loadStarted is loadModule, returning the seam's started instance.
func (e *env) loadStarted(wasm []byte, detect bool) *started {
	e.t.Helper()
	ctx := context.Background()
	cm, err := e.rt.CompileModule(ctx, wasm)
	if err != nil {
		e.t.Fatal(err)
	}
	info, match, err := DetectCompiled(cm)
	if detect && (err != nil || match != Confident) {
		e.t.Fatalf("Detect: %v, %v", match, err)
	}
	if err := Check(cm.ExportedFunctions()); err != nil {
		e.t.Fatal(err)
	}
	e.module++
	cfg := wazero.NewModuleConfig().WithName(fmt.Sprint("plugin", e.module)).WithStartFunctions()
	if e.stdout != nil {
		cfg = cfg.WithStdout(e.stdout)
	}
	var kernel api.Module
	ictx := ctx
	if e.kernel != nil {
		if kernel, err = e.rt.InstantiateModule(ctx, e.kernel, wazero.NewModuleConfig().WithName("")); err != nil {
			e.t.Fatal(err)
		}
		ictx = experimental.WithImportResolver(ctx, func(name string) api.Module {
			if name == EnvModule {
				return kernel
			}
			return nil
		})
	}
	mod, err := e.rt.InstantiateModule(ictx, cm, cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.mods = append(e.mods, mod)
	s := e.start(cm, mod, kernel, info, detect)
	if err := s.p.Start(ctx, &Call{}); err != nil {
		e.t.Fatal(err)
	}
	return s
}

// start binds mod to a fresh seam Call and starts the plugin through
// the seam, as the pool does (kind.Bind, Kind.Start, Call.Started): the host functions find
// the plugin with kind.CallOf. A module that exports no hyper-mcp entry point (detect false)
// is wrapped directly, Kind.Start refusing it.
func (e *env) start(cm wazero.CompiledModule, mod, kernel api.Module, info Info, detect bool) *started {
	e.t.Helper()
	in := &testInstance{mod: mod, kernel: kernel, module: moduleOf(cm)}
	c := &kind.Call{Instance: in, Vars: kind.NewArena(e.limit, func() uint64 { return uint64(mod.Memory().Size()) })}
	kind.Bind(mod, c) // the plugin only: a call its kernel module forwards is the plugin's (wazero)
	e.t.Cleanup(func() { kind.Unbind(mod) })
	var s *started
	if detect {
		st, err := Kind{}.Start(context.Background(), in, c)
		if err != nil {
			e.t.Fatal(err)
		}
		s = st.(*started)
	} else {
		s = &started{in: in}
		s.p = NewPlugin(in.Func, info, func(ctx context.Context, fn api.Function) ([]uint64, error) { return fn.Call(ctx) }, c.Vars, DefaultMaxVarBytes)
		if err := s.p.Link(kernel); err != nil {
			e.t.Fatal(err)
		}
	}
	c.Started = s
	return s
}

// moduleOf is what the seam's Detect looks at in cm.
func moduleOf(cm wazero.CompiledModule) *kind.Module {
	m := &kind.Module{}
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		m.Imports = append(m.Imports, kind.Import{Module: mod, Name: name, Sig: kind.SignatureOf(f.ParamTypes(), f.ResultTypes())})
	}
	for name := range cm.ExportedFunctions() {
		m.Exports = append(m.Exports, name)
	}
	slices.Sort(m.Exports)
	return m
}

// testInstance is the seam's kind.Instance over a plain wazero module: Invoke calls the
// function (the limits are the test's context and runtime), and onInvoke, if set, runs just
// before it with the context the entry runs with.
type testInstance struct {
	mod, kernel api.Module
	module      *kind.Module
	onInvoke    func(ctx context.Context)
}

func (in *testInstance) Func(name string) api.Function { return in.mod.ExportedFunction(name) }
func (in *testInstance) Invoke(ctx context.Context, fn api.Function, stack []uint64) error {
	if in.onInvoke != nil {
		in.onInvoke(ctx)
	}
	return fn.CallWithStack(ctx, stack)
}
func (in *testInstance) Interrupted() bool    { return false }
func (in *testInstance) Ending() error        { return nil }
func (in *testInstance) Memory() api.Memory   { return in.mod.Memory() }
func (in *testInstance) Custom(string) []byte { return nil }
func (in *testInstance) Module() *kind.Module { return in.module }
func (in *testInstance) Environ() []string    { return nil }
func (in *testInstance) Random() bool         { return false }
func (in *testInstance) Linked(name string) api.Module {
	if name == EnvModule && in.kernel != nil {
		return in.kernel
	}
	return nil
}
func (in *testInstance) Region(ptr, n uint32) ([]byte, error) {
	b, ok := in.mod.Memory().Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("%w: [%d, %d) is outside the memory", ErrABI, ptr, uint64(ptr)+uint64(n))
	}
	return b, nil
}

// arena is the seam's kind.Arena in small: host-side bytes counted with linear memory
// against the limit.
type arena struct {
	limit, used uint64
	memory      func() uint64
}

func (a *arena) Grow(n uint64) error {
	if a.memory()+a.used+n > a.limit {
		return fmt.Errorf("%w: %d bytes of host-side memory over %d of linear memory", ErrMemoryLimit, a.used+n, a.memory())
	}
	a.used += n
	return nil
}

func (a *arena) Shrink(n uint64) { a.used -= min(n, a.used) }

// recorder collects what a call delivers.
type recorder struct {
	mu       sync.Mutex
	logs     []string
	progress []string
	updated  []string
	changed  []string
	notes    []string
}

func (r *recorder) install(c *Call) *Call {
	c.Log = func(l abi.Level, msg string) { r.mu.Lock(); r.logs = append(r.logs, l.String()+":"+msg); r.mu.Unlock() }
	c.Progress = func(p, total float64, msg string) {
		r.mu.Lock()
		r.progress = append(r.progress, fmt.Sprintf("%g/%g %s", p, total, msg))
		r.mu.Unlock()
	}
	c.ResourceUpdated = func(uri string) { r.updated = append(r.updated, uri) }
	c.ListChanged = func(l string) { r.changed = append(r.changed, l) }
	c.Note = func(msg string) { r.notes = append(r.notes, msg) }
	return c
}

// text returns the text of a CallToolResult's single text block and its isError.
func text(t *testing.T, out []byte) (string, bool) {
	t.Helper()
	var r struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("not a one-text CallToolResult: %s (%v)", out, err)
	}
	return r.Content[0].Text, r.IsError
}

func callText(t *testing.T, p *Plugin, c *Call, tool, args string) string {
	t.Helper()
	out, err := p.CallTool(context.Background(), c, tool, []byte(args))
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	s, isErr := text(t, out)
	if isErr {
		t.Fatalf("%s: tool error %q", tool, s)
	}
	return s
}

func TestDetectPlugins(t *testing.T) {
	rt := wazero.NewRuntime(context.Background())
	defer rt.Close(context.Background())
	for _, tc := range []struct {
		wasm    []byte
		version Version
		entries []string
		uses    []string
	}{
		{v1Wasm, V1, []string{"call", "describe"}, []string{"elicitation", "net", "roots", "sampling"}},
		{v2Wasm, V2, []string{"call_tool", "complete", "get_prompt", "list_prompts", "list_resource_templates", "list_resources", "list_tools", "read_resource"}, []string{"net"}},
	} {
		cm, err := rt.CompileModule(context.Background(), tc.wasm)
		if err != nil {
			t.Fatal(err)
		}
		info, match, err := DetectCompiled(cm)
		if err != nil || match != Confident || info.Version != tc.version || !slices.Equal(info.Entries, tc.entries) || !slices.Equal(info.Uses, tc.uses) {
			t.Errorf("Detect = %v %v %v %v, %v; want %v %v %v", info.Version, match, info.Entries, info.Uses, err, tc.version, tc.entries, tc.uses)
		}
	}
}

func TestDetectRefuses(t *testing.T) {
	alloc := Import{Module: EnvModule, Name: "alloc", Params: []api.ValueType{i64}, Results: []api.ValueType{i64}}
	for _, tc := range []struct {
		name    string
		imports []Import
		exports []string
		want    string
	}{
		{"pre-1.0", []Import{{Module: "env", Name: "extism_input_length"}}, []string{"call"},
			"imports env.extism_input_length: a pre-1.0 Extism plugin"},
		{"unknown kernel function", []Import{{Module: EnvModule, Name: "reset"}}, []string{"call", "describe"},
			"imports extism:host/env.reset, which this host does not define (hosted: alloc, config_get,"},
		{"unknown callback", []Import{{Module: UserModule, Name: "my_db_query"}}, []string{"call", "describe"},
			"imports extism:host/user.my_db_query, a host function neither hyper-mcp nor mcpwasm defines"},
		{"signature", []Import{{Module: EnvModule, Name: "alloc", Params: []api.ValueType{i32}, Results: []api.ValueType{i32}}}, []string{"call", "describe"},
			"imports extism:host/env.alloc as (i32) -> (i32), but this host (as the Extism kernel) defines it as (i64) -> (i64)"},
		{"both ABIs", []Import{alloc, {Module: "mcpwasm_v1", Name: "log"}}, []string{"call", "describe"},
			"imports both mcpwasm_v1 and extism:host/env"},
		{"no entry point", []Import{alloc}, []string{"run"},
			"an Extism plugin exporting no hyper-mcp entry point: want describe and call (v1) or list_tools and call_tool (v2)"},
	} {
		_, match, err := Detect(tc.imports, tc.exports)
		if err == nil || !errors.Is(err, ErrABI) || !strings.Contains(err.Error(), tc.want) || match != Confident {
			t.Errorf("%s: Detect = %v, %v; want Confident and an ErrABI containing %q", tc.name, match, err, tc.want)
		}
	}
	// Export names alone are only Possible; an mcpwasm guest or an unrelated module is No.
	for _, tc := range []struct {
		imports []Import
		exports []string
		want    Match
	}{
		{nil, []string{"describe", "call"}, Possible},
		{nil, []string{"list_tools", "call_tool"}, Possible},
		{[]Import{{Module: "mcpwasm_v1", Name: "log"}}, []string{"describe", "call"}, No},
		{nil, []string{"mcpwasm_describe"}, No},
	} {
		if _, m, err := Detect(tc.imports, tc.exports); m != tc.want || err != nil {
			t.Errorf("Detect(%v, %v) = %v, %v; want %v", tc.imports, tc.exports, m, err, tc.want)
		}
	}
}

func TestV1Describe(t *testing.T) {
	p := newEnv(t, 16<<20).load(v1Wasm)
	m, err := p.Describe(context.Background(), &Call{}, "v1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range m.Tools {
		names = append(names, tool.Name)
	}
	if want := "echo kernel vars config log http fail trap loop alloc grow callbacks badjson"; strings.Join(names, " ") != want {
		t.Errorf("tools = %q, want %q", names, want)
	}
	if got := string(m.Tools[0].InputSchema); got != `{"type":"object","properties":{"text":{"type":"string"}}}` {
		t.Errorf("echo inputSchema = %s", got)
	}
	if got := string(m.Tools[1].InputSchema); got != `{"type":"object"}` {
		t.Errorf("a tool without inputSchema gets %s, want {\"type\":\"object\"}", got)
	}
}

func TestV1KernelFunctions(t *testing.T) {
	t.Run("go", func(t *testing.T) { testV1KernelFunctions(t, newEnv(t, 16<<20).goKernel()) })
	t.Run("wasm", func(t *testing.T) { testV1KernelFunctions(t, newEnv(t, 16<<20)) })
}

// testV1KernelFunctions runs the v1 plugin's "kernel" tool, which checks every kernel
// function (testdata/v1.c tool_kernel), and an echo through them.
func testV1KernelFunctions(t *testing.T, e *env) {
	p := e.load(v1Wasm)
	if e.kernel != nil && !p.Instance().Kernel.Linked() {
		t.Fatal("the plugin's kernel is not the kernel module")
	}
	if got := callText(t, p, &Call{}, "kernel", `{}`); got != "kernel ok" {
		t.Errorf("kernel = %q", got)
	}
	if got := callText(t, p, &Call{}, "echo", `{"text":"héllo \"x\""}`); got != `héllo \"x\"` {
		t.Errorf("echo = %q", got) // the plugin copies the JSON string's inside, escapes kept
	}
}

func TestV1Vars(t *testing.T) {
	e := newEnv(t, 16<<20)
	p := e.load(v1Wasm)
	for i := 1; i <= 3; i++ {
		if got, want := callText(t, p, &Call{}, "vars", `{}`), fmt.Sprintf("count=%d tmp deleted", i); got != want {
			t.Errorf("call %d: %q, want %q", i, got, want)
		}
	}
	// count (5 bytes + 8) and nothing else: tmp was deleted.
	if got := p.Instance().Vars.Size(); got != 5+8+varOverhead {
		t.Errorf("vars size = %d, want %d", got, 5+8+varOverhead)
	}
	// Vars are per instance.
	if got := callText(t, e.load(v1Wasm), &Call{}, "vars", `{}`); got != "count=1 tmp deleted" {
		t.Errorf("a new instance: %q", got)
	}
	// A store over its bound ends the call naming the bound.
	p.Instance().Vars.Max = 60
	_, err := p.CallTool(context.Background(), &Call{}, "vars", []byte(`{}`))
	if !errors.Is(err, ErrMemoryLimit) || !strings.Contains(err.Error(), "variable store is full (61 bytes is over the 60-byte bound)") {
		t.Errorf("vars over the bound: %v", err)
	}
}

func TestV1Config(t *testing.T) {
	p := newEnv(t, 16<<20).load(v1Wasm)
	if got := callText(t, p, &Call{Config: map[string]string{"greeting": "hi there"}}, "config", `{}`); got != "greeting=hi there; missing unset" {
		t.Errorf("with a value: %q", got)
	}
	if got := callText(t, p, &Call{}, "config", `{}`); got != "greeting unset; missing unset" {
		t.Errorf("without: %q", got)
	}
}

func TestV1Log(t *testing.T) {
	p := newEnv(t, 16<<20).load(v1Wasm)
	var r recorder
	if got := callText(t, p, r.install(&Call{LogLevel: 2}), "log", `{}`); got != "level=2" {
		t.Errorf("log = %q", got)
	}
	if want := []string{"info:i", "warning:w", "error:e"}; !slices.Equal(r.logs, want) {
		t.Errorf("at level info: logs %q, want %q", r.logs, want)
	}
	r = recorder{}
	callText(t, p, r.install(&Call{}), "log", `{}`)
	if want := []string{"debug:t", "debug:d", "info:i", "warning:w", "error:e"}; !slices.Equal(r.logs, want) {
		t.Errorf("at level trace: logs %q, want %q", r.logs, want)
	}
}

func TestV1Failures(t *testing.T) {
	e := newEnv(t, 16<<20)
	p := e.load(v1Wasm)
	ctx := context.Background()
	out, err := p.CallTool(ctx, &Call{}, "fail", []byte(`{"text":"bad input"}`))
	if s, isErr := text(t, out); err != nil || !isErr || s != "boom: bad input" {
		t.Errorf("fail: %s, %v; want a tool error \"boom: bad input\"", out, err)
	}
	if _, err := p.CallTool(ctx, &Call{}, "trap", nil); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("trap: %v", err)
	}
	if _, err := e.load(v1Wasm).CallTool(ctx, &Call{}, "badjson", nil); !errors.Is(err, ErrABI) || !strings.Contains(err.Error(), "call returned 8 bytes that are not a JSON object") {
		t.Errorf("badjson: %v", err)
	}
	q := e.load(v1Wasm)
	if _, err := q.CallTool(ctx, &Call{OutputBytes: 10}, "echo", []byte(`{"text":"longer than ten bytes"}`)); !errors.Is(err, ErrOutputLimit) ||
		!strings.Contains(err.Error(), "output of 60 bytes is over the limit of 10 bytes") {
		t.Errorf("output limit: %v", err)
	}
	// A loop ends with the call's context (the seam adds the interruption instrumentation).
	lctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := e.load(v1Wasm).CallTool(lctx, &Call{}, "loop", nil); err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("loop: %v", err)
	}
	// Linear memory grown to the limit traps.
	if _, err := e.load(v1Wasm).CallTool(ctx, &Call{}, "grow", nil); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("grow: %v", err)
	}
}

func TestV1UnboundedAlloc(t *testing.T) {
	const limit = 16 << 20
	e := newEnv(t, limit)
	p := e.load(v1Wasm)
	out, err := p.CallTool(context.Background(), &Call{}, "alloc", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, isErr := text(t, out)
	m := regexp.MustCompile(`^alloc failed after (\d+) MiB \(a kernel allocation of 1048576 bytes failed: the plugin's kernel memory is at its limit\)$`).FindStringSubmatch(s)
	if !isErr || m == nil {
		t.Fatalf("alloc: %q (isError %v)", s, isErr)
	}
	n, _ := strconv.Atoi(m[1])
	linear := uint64(e.mods[0].Memory().Size())
	// The kernel got what the limit leaves beside linear memory, to the MiB.
	if got := uint64(n)<<20 + linear; got > limit || limit-got > 2<<20 {
		t.Errorf("%d MiB of kernel memory beside %d bytes of linear memory, limit %d", n, linear, limit)
	}
	if got := callText(t, p, &Call{}, "echo", `{"text":"still serving"}`); got != "still serving" {
		t.Errorf("after: %q", got)
	}
}

// toolSandbox is the sandbox of tool "t" of guest "g" granted g, with requests inferred
// from the v1 plugin's imports.
func toolSandbox(t *testing.T, p *Plugin, g policy.Grants) *sandbox.Tool {
	t.Helper()
	sb, err := sandbox.NewTool("g", "t", g, false, Requests(p.Info, nil, g), sandbox.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// sandboxCall is a Call whose requests go through sb with client.
func sandboxCall(sb *sandbox.Tool, client peer.Client) *Call {
	return &Call{Request: SandboxRequest(sb, client)}
}

func TestV1HTTP(t *testing.T) {
	var got struct {
		method, body, header string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.method, got.body, got.header = r.Method, string(b), r.Header.Get("X-Plugin")
		w.Header().Set("X-Test", "yes")
		w.WriteHeader(http.StatusTeapot)
		fmt.Fprint(w, "short and stout")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	p := newEnv(t, 16<<20).load(v1Wasm)
	args := fmt.Sprintf(`{"url":%q,"method":"post","body":"ping"}`, srv.URL+"/tea")

	s := callText(t, p, sandboxCall(toolSandbox(t, p, policy.Grants{Net: []string{u.Host}}), nil), "http", args)
	status, rest, _ := strings.Cut(s, "\n")
	body, headers, _ := strings.Cut(rest, "\n")
	if status != "418" || body != "short and stout" || got.method != "POST" || got.body != "ping" || got.header != "v1" {
		t.Errorf("granted: %q %q; server saw %+v", status, body, got)
	}
	var h map[string]string
	if err := json.Unmarshal([]byte(headers), &h); err != nil || h["x-test"] != "yes" || h["content-length"] != "15" {
		t.Errorf("headers %s: %v", headers, err)
	}

	for _, tc := range []struct {
		name string
		c    *Call
		want string
	}{
		{"no net grant", sandboxCall(toolSandbox(t, p, policy.Grants{}), nil), `refused: net: no hosts are granted to guest "g"`},
		{"another host", sandboxCall(toolSandbox(t, p, policy.Grants{Net: []string{"example.com"}}), nil),
			fmt.Sprintf(`refused: net: host %q is not granted to guest "g"`, u.Host)},
		{"loopback under *:*", sandboxCall(toolSandbox(t, p, policy.Grants{Net: []string{"*:*"}}), nil),
			fmt.Sprintf(`refused: net: "127.0.0.1" resolves to 127.0.0.1, a loopback address; "*:*" leaves out loopback and private addresses: grant %q itself`, u.Host)},
		{"outside a tool call", &Call{}, "http: request outside a tool call (UNAVAILABLE)"},
	} {
		_, err := p.CallTool(context.Background(), tc.c, "http", []byte(args))
		if err == nil || !strings.Contains(err.Error(), "extism:host http_request: "+tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if tc.name != "outside a tool call" && !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v is not ErrRefused", tc.name, err)
		}
	}
}

// fakeClient answers the client request kinds and records what it got.
type fakeClient struct {
	got map[string]string
}

func (f *fakeClient) Request(_ context.Context, kind string, params []byte) ([]byte, error) {
	f.got[kind] = string(params)
	switch kind {
	case abi.KindSampling:
		return []byte(`{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m","stopReason":"endTurn"}`), nil
	case abi.KindElicitation:
		return []byte(`{"action":"accept","content":{"at":"2026-01-01T00:00:00Z"}}`), nil
	case abi.KindRoots:
		return []byte(`{"roots":[{"uri":"file:///w","name":"w"}]}`), nil
	}
	return nil, errors.New("unexpected kind")
}

func TestV1Callbacks(t *testing.T) {
	p := newEnv(t, 16<<20).load(v1Wasm)
	client := &fakeClient{got: map[string]string{}}
	var r recorder
	c := r.install(sandboxCall(toolSandbox(t, p, policy.Grants{Sampling: true, Elicitation: true, Roots: true}), client))
	lines := strings.Split(callText(t, p, c, "callbacks", `{}`), "\n")
	want := []string{
		`{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m","stopReason":"endTurn"}`,
		`{"action":"accept","content":{"at":"2026-01-01T00:00:00Z"}}`,
		`{"roots":[{"uri":"file:///w","name":"w"}]}`,
		`0`,
		`{"Error":"get_access_token refused: mcpwasm does not run OAuth flows for plugins; give a token in the guest's config map (config_get)"}`,
	}
	if !slices.Equal(lines, want) {
		t.Errorf("answers:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if got, want := client.got[abi.KindElicitation], `{"message":"when?","requestedSchema":{"properties":{"at":{"format":"date-time","type":"string"}},"type":"object"}}`; got != want {
		t.Errorf("elicitation sent %s, want %s (timeout removed, date_time patched)", got, want)
	}
	if got := client.got[abi.KindSampling]; got != `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}` {
		t.Errorf("sampling sent %s", got)
	}
	if want := []string{"warning:lg: careful", `info:{"k":1}`}; !slices.Equal(r.logs, want) {
		t.Errorf("logs %q, want %q", r.logs, want)
	}
	if want := []string{"1/2 half"}; !slices.Equal(r.progress, want) {
		t.Errorf("progress %q", r.progress)
	}
	if !slices.Equal(r.changed, []string{"tools", "prompts", "resources"}) || !slices.Equal(r.updated, []string{"mem://a"}) {
		t.Errorf("changed %q, updated %q", r.changed, r.updated)
	}
	if len(r.notes) != 3 || !strings.HasPrefix(r.notes[0], "notify_url_elicitation_completed is not forwarded") ||
		!strings.HasPrefix(r.notes[1], "get_keyring_secret refused: mcpwasm does not read the OS keyring") ||
		!strings.HasPrefix(r.notes[2], "get_access_token refused") {
		t.Errorf("notes %q", r.notes)
	}

	// Without the grants each callback answers as hyper-mcp answers a client without the
	// capability, with the reason naming the grant.
	r = recorder{}
	lines = strings.Split(callText(t, p, r.install(sandboxCall(toolSandbox(t, p, policy.Grants{}), client)), "callbacks", `{}`), "\n")
	want = []string{
		`{"content":{"text":"sampling: not granted to guest \"g\"","type":"text"},"model":"","role":"assistant","stopReason":"error"}`,
		`{"action":"decline","content":{"error":"elicitation: not granted to guest \"g\""}}`,
		`{"roots":[]}`,
	}
	if !slices.Equal(lines[:3], want) {
		t.Errorf("refused answers:\n%s\nwant:\n%s", strings.Join(lines[:3], "\n"), strings.Join(want, "\n"))
	}
	if !slices.Contains(r.notes, `list_roots answered with no roots: roots: not granted to guest "g"`) {
		t.Errorf("notes %q", r.notes)
	}
}

func TestV2(t *testing.T) {
	p := newEnv(t, 16<<20).load(v2Wasm)
	ctx := context.Background()
	m, err := p.Describe(ctx, &Call{}, "v2")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(m)
	if want := `{"name":"v2","tools":[{"name":"echo","description":"echoes its input","inputSchema":{"type":"object"}},{"name":"fail","inputSchema":{"type":"object"}}],` +
		`"resources":[{"uri":"mem://readme","name":"readme","mimeType":"text/plain"}],"resourceTemplates":[{"uriTemplate":"mem://notes/{id}","name":"notes"}],` +
		`"prompts":[{"name":"greet","description":"a greeting","arguments":[{"name":"who","required":true}]}],"completions":true}`; string(b) != want {
		t.Errorf("manifest\n%s\nwant\n%s", b, want)
	}

	var r recorder
	c := r.install(&Call{RequestID: json.RawMessage(`7`), Meta: json.RawMessage(`{"progressToken":"p"}`)})
	if got, want := callText(t, p, c, "echo", `{"a":1}`), `{"context":{"id":7,"_meta":{"progressToken":"p"}},"request":{"name":"echo","arguments":{"a":1}}}`; got != want {
		t.Errorf("call_tool got input\n%s\nwant\n%s", got, want)
	}
	if !slices.Equal(r.progress, []string{"3/0 "}) {
		t.Errorf("progress %q", r.progress)
	}
	out, err := p.CallTool(ctx, &Call{}, "fail", nil)
	if s, isErr := text(t, out); err != nil || !isErr || s != "v2 says no" {
		t.Errorf("fail: %s %v", out, err)
	}

	for _, tc := range []struct {
		name string
		run  func() ([]byte, error)
		want string
	}{
		{"get_prompt", func() ([]byte, error) { return p.GetPrompt(ctx, &Call{}, "greet", []byte(`{"who":"ada"}`)) },
			`{"description":"a greeting","messages":[{"role":"user","content":{"type":"text","text":"hello ada"}}]}`},
		{"read_resource", func() ([]byte, error) { return p.ReadResource(ctx, &Call{}, "mem://notes/4") },
			`{"contents":[{"uri":"mem://notes/4","mimeType":"text/plain","text":"content of mem://notes/4"}]}`},
		{"complete", func() ([]byte, error) {
			return p.Complete(ctx, &Call{}, []byte(`{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"a"}}`))
		}, `{"completion":{"values":["prompt","a-one"],"total":2}}`},
	} {
		out, err := tc.run()
		if err != nil || string(out) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.name, out, err, tc.want)
		}
	}
	if out, err := p.GetPrompt(ctx, &Call{}, "greet", nil); err != nil || string(out) != `{"error":"get_prompt: argument who is required"}` {
		t.Errorf("get_prompt without who: %s, %v; want an ErrorBody", out, err)
	}
}

// A plugin built as a WASI reactor with wasi-libc (as Rust plugins for wasm32-wasip1 are):
// Start runs _initialize, which runs its constructors; its WASI imports are served.
func TestReactorPlugin(t *testing.T) {
	e := newEnv(t, 16<<20)
	wasi_snapshot_preview1.MustInstantiate(context.Background(), e.rt)
	var stdout bytes.Buffer
	e.stdout = &stdout
	p := e.load(reactorWasm)
	// The input is {"params":{"name":"hello","arguments":{}}}: 42 bytes.
	if got := callText(t, p, &Call{}, "hello", `{}`); got != "initialized=42 input=42" {
		t.Errorf("hello = %q", got)
	}
	if got := stdout.String(); got != "plugin stdout: 42 bytes of input\n" {
		t.Errorf("stdout %q", got)
	}
}
