package quickjs

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi/js"
	"github.com/tetratelabs/wazero"
)

// BenchmarkCompileEngine is the uncached compile of the engine (wazero's compiler).
func BenchmarkCompileEngine(b *testing.B) {
	engine := engineBytes(b)
	ctx := context.Background()
	for b.Loop() {
		r := wazero.NewRuntime(ctx)
		if _, err := r.CompileModule(ctx, engine); err != nil {
			b.Fatal(err)
		}
		r.Close(ctx)
	}
}

// BenchmarkStartExample is instantiate + Start (engine init, shim, the bundled example with
// zod) of the TypeScript example.
func BenchmarkStartExample(b *testing.B) {
	script, err := Script(buildExample(b, "server.ts"))
	if err != nil {
		b.Fatal(err)
	}
	r := runtimeFor(b)
	for b.Loop() {
		startOnce(b, r, script)
	}
}

// BenchmarkEcho100B is one warm tools/call of an echo tool with 100 bytes of text.
func BenchmarkEcho100B(b *testing.B) {
	call := &Call{}
	vm := start(b, hello, call, 32<<20)
	ctx := WithCall(context.Background(), call)
	args := []byte(`{"name":"echo","arguments":{"text":"` + string(make100()) + `"}}`)
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := vm.Run(ctx, EntryCallTool, args); err != nil {
			b.Fatal(err)
		}
	}
}

func make100() []byte {
	b := make([]byte, 100)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return b
}

// BenchmarkStartHello is instantiate + Start of the shim and a small script (no zod).
func BenchmarkStartHello(b *testing.B) {
	r := runtimeFor(b)
	script := Code{Source: []byte(js.Shim + "\n" + hello)}
	for b.Loop() {
		startOnce(b, r, script)
	}
}

// startOnce instantiates the engine, runs _initialize and Start, and closes the instance.
func startOnce(b *testing.B, r *testRuntime, code Code) {
	ctx := context.Background()
	mod, err := r.r.InstantiateModule(ctx, r.compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		b.Fatal(err)
	}
	defer mod.Close(ctx)
	if _, err := mod.ExportedFunction("_initialize").Call(ctx); err != nil {
		b.Fatal(err)
	}
	call := &Call{Engine: plainEngine{mod}}
	if _, err := Start(WithCall(ctx, call), call.Engine, code, 64<<20); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkGreetZod is one warm tools/call of the example's greet tool: its arguments parsed
// with zod, its structured output checked with zod.
func BenchmarkGreetZod(b *testing.B) {
	call := &Call{}
	vm := startModule(b, buildExample(b, "server.ts"), call)
	ctx := WithCall(context.Background(), call)
	args := []byte(`{"name":"greet","arguments":{"name":"` + string(make100()) + `"}}`)
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := vm.Run(ctx, EntryCallTool, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkZodEchoIdle is the benchmark driver's JavaScript tool (section 9: the echo of
// testdata/limits.js, its argument parsed by zod) called warm, in two ways: back to back
// ("hot"), and each call after the thread has slept for a millisecond ("after-idle"), as a
// server's thread does between the calls of a client with one call in flight. It reports the
// call alone as call-ns; the difference is what the engine pays for caches that went cold
// while the CPU idled (RATIONALE.md, "Why 0.8× of Node for a JavaScript tool is blocked";
// the runs: bench/HISTORY.md "The JavaScript tool's calls/s: where the time goes (wave 9)").
func BenchmarkZodEchoIdle(b *testing.B) {
	call := &Call{}
	vm := startModule(b, buildExample(b, "testdata/limits.js"), call)
	ctx := WithCall(context.Background(), call)
	args := []byte(`{"name":"echo","arguments":{"text":"` + string(make100()) + `"},"_meta":{"progressToken":"mcpwasm"}}`)
	want := `{"content":[{"type":"text","text":"` + string(make100()) + `"}]}`
	for _, idle := range []time.Duration{0, time.Millisecond} {
		name := "hot"
		if idle > 0 {
			name = "after-idle"
		}
		b.Run(name, func(b *testing.B) {
			var inCall time.Duration
			for b.Loop() {
				if idle > 0 {
					time.Sleep(idle)
				}
				t0 := time.Now()
				out, err := vm.Run(ctx, EntryCallTool, args)
				inCall += time.Since(t0)
				if err != nil || string(out) != want {
					b.Fatalf("Run = %s, %v; want %s", out, err, want)
				}
			}
			b.ReportMetric(float64(inCall.Nanoseconds())/float64(b.N), "call-ns")
		})
	}
}

// BenchmarkSignalAborted is one read of extra.signal.aborted while the call runs on (it asks
// the host): a tool reading it 1,000 times, per read; and, for the baseline, the same loop
// reading a plain property.
func BenchmarkSignalAborted(b *testing.B) {
	script := `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "sig", version: "1" });
server.registerTool("aborted", { description: "x" }, async (extra) => { let n = 0; for (let i = 0; i < 1000; i++) if (!extra.signal.aborted) n++; return { content: [{ type: "text", text: String(n) }] }; });
server.registerTool("plain", { description: "x" }, async (extra) => { let n = 0; const o = { aborted: false }; for (let i = 0; i < 1000; i++) if (!o.aborted) n++; return { content: [{ type: "text", text: String(n) }] }; });
`
	for _, tool := range []string{"aborted", "plain"} {
		b.Run(tool, func(b *testing.B) {
			call := &Call{Ending: func() string { return "" }}
			vm := start(b, script, call, 32<<20)
			ctx := WithCall(context.Background(), call)
			args := []byte(`{"name":"` + tool + `","arguments":{}}`)
			for b.Loop() {
				if _, err := vm.Run(ctx, EntryCallTool, args); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/read")
		})
	}
}

// noop is a script with two tools that return a constant, one synchronously and one through
// an async handler: a call's fixed cost (the host's Run, the shim's dispatch, JSON.parse of
// the params, JSON.stringify of the result) with no work of the tool's own.
const noop = `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "noop", version: "1" });
server.registerTool("sync", { description: "x" }, () => ({ content: [{ type: "text", text: "x" }] }));
server.registerTool("async", { description: "x" }, async () => ({ content: [{ type: "text", text: "x" }] }));
`

// BenchmarkCallNoop is one warm tools/call of a tool returning a constant, with the params
// the runtime sends (kind.go: a progress token in _meta).
func BenchmarkCallNoop(b *testing.B) {
	for _, tool := range []string{"sync", "async"} {
		b.Run(tool, func(b *testing.B) {
			call := &Call{}
			vm := start(b, noop, call, 32<<20)
			ctx := WithCall(context.Background(), call)
			args := []byte(`{"name":"` + tool + `","arguments":{},"_meta":{"progressToken":"mcpwasm"}}`)
			want := `{"content":[{"type":"text","text":"x"}]}`
			defer reportCPU(b)()
			for b.Loop() {
				out, err := vm.Run(ctx, EntryCallTool, args)
				if err != nil || string(out) != want {
					b.Fatalf("Run = %s, %v; want %s", out, err, want)
				}
			}
		})
	}
}

// reportCPU, deferred (defer reportCPU(b)()), reports the process's CPU time per iteration
// (user and system, all threads: the GC's too) as "cpu-ns/op": on a machine other work keeps
// busy it varies much less than the wall clock's ns/op.
func reportCPU(b *testing.B) func() {
	before := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
