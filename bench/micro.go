package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Env holds everything the in-process benchmarks share, set up once: the Go guests, a Host
// with both echo guests loaded, raw wazero runtimes for the floor, and an Extism plugin.
type Env struct {
	ctx context.Context
	Go  *GoGuests

	host             *runtime.Host
	watGuest, goGust *runtime.Guest
	pluginGuest      *runtime.Guest // ExtismV1Wat through mcpwasm's Extism kind
	pluginP          *extism.Plugin // ExtismV1Wat through extism/go-sdk
	shaGuest         *runtime.Guest
	floorSha         [2]api.Function // gosha's bare sha export: [0] plain runtime, [1] CloseOnContextDone

	floorRT, floorTORT    wazero.Runtime // default config; WithCloseOnContextDone (CPU rows)
	floorWat, floorGo     *rawEcho
	floorWatTO, floorGoTO *rawEcho // in floorRT too: the per-call deadline machinery alone
	bareWatCM, bareGoCM   wazero.CompiledModule
	extismCP              *extism.CompiledPlugin
	extismP               *extism.Plugin
	freshHost             *runtime.Host
	loadGuest             []byte // wat.Echo padded to the size of ExtismV1Wat (LoadCases)
	closers               []func()
}

// NewEnv builds the Go guests into dir and sets everything up. Close it.
func NewEnv(ctx context.Context, dir string) (_ *Env, err error) {
	e := &Env{ctx: ctx}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	if e.Go, err = BuildGoGuests(ctx, dir); err != nil {
		return nil, err
	}
	cache := wazero.NewCompilationCache()
	e.closers = append(e.closers, func() { cache.Close(ctx) })

	if e.host, err = runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true}); err != nil {
		return nil, err
	}
	e.closers = append(e.closers, func() { e.host.Close(ctx) })
	if e.watGuest, err = e.host.Load(ctx, wat.Echo, &runtime.GuestConfig{Source: "wat echo"}); err != nil {
		return nil, err
	}
	if e.goGust, err = e.host.Load(ctx, e.Go.Echo, &runtime.GuestConfig{Source: "go echo"}); err != nil {
		return nil, err
	}
	if e.pluginGuest, err = e.host.Load(ctx, ExtismV1Wat, &runtime.GuestConfig{Source: "extism_v1_echo.wasm"}); err != nil {
		return nil, err
	}
	if e.shaGuest, err = e.host.Load(ctx, e.Go.Sha, &runtime.GuestConfig{Source: "go sha"}); err != nil {
		return nil, err
	}
	// A second host for the fresh-instance benchmarks, which load and close guests per op;
	// loading the same modules once now fills its compilation cache. It must be a disk cache:
	// closing a guest drops its code from wazero's in-memory cache.
	if e.freshHost, err = runtime.NewHost(ctx, &runtime.Options{CacheDir: filepath.Join(dir, "fresh-cache")}); err != nil {
		return nil, err
	}
	e.closers = append(e.closers, func() { e.freshHost.Close(ctx) })
	e.loadGuest = PadTo(wat.Echo, len(ExtismV1Wat))
	for _, w := range [][]byte{wat.Echo, e.Go.Echo, e.loadGuest, ExtismV1Wat} {
		g, err := e.freshHost.Load(ctx, w, nil)
		if err != nil {
			return nil, err
		}
		g.Close(ctx)
	}

	newRT := func(cfg wazero.RuntimeConfig) (wazero.Runtime, error) {
		rt := wazero.NewRuntimeWithConfig(ctx, cfg.WithCompilationCache(cache))
		e.closers = append(e.closers, func() { rt.Close(ctx) })
		if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
			return nil, err
		}
		return rt, stubImports(ctx, rt)
	}
	if e.floorRT, err = newRT(wazero.NewRuntimeConfig()); err != nil {
		return nil, err
	}
	if e.floorTORT, err = newRT(wazero.NewRuntimeConfig().WithCloseOnContextDone(true)); err != nil {
		return nil, err
	}
	if e.bareWatCM, err = e.floorRT.CompileModule(ctx, BareWat); err != nil {
		return nil, err
	}
	if e.bareGoCM, err = e.floorRT.CompileModule(ctx, e.Go.Bare); err != nil {
		return nil, err
	}
	for _, x := range []struct {
		dst  **rawEcho
		rt   wazero.Runtime
		wasm []byte
	}{{&e.floorWat, e.floorRT, BareWat}, {&e.floorGo, e.floorRT, e.Go.Bare}, {&e.floorWatTO, e.floorRT, BareWat}, {&e.floorGoTO, e.floorRT, e.Go.Bare}} {
		cm, err := x.rt.CompileModule(ctx, x.wasm)
		if err != nil {
			return nil, err
		}
		if *x.dst, err = newRawEcho(ctx, x.rt, cm); err != nil {
			return nil, err
		}
	}

	for i, rt := range []wazero.Runtime{e.floorRT, e.floorTORT} {
		cm, err := rt.CompileModule(ctx, e.Go.Sha)
		if err != nil {
			return nil, err
		}
		mod, err := rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
		if err != nil {
			return nil, err
		}
		e.floorSha[i] = mod.ExportedFunction("sha")
	}

	manifest := extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: ExtismWat}}}
	if e.extismCP, err = extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{}, nil); err != nil {
		return nil, err
	}
	e.closers = append(e.closers, func() { e.extismCP.Close(ctx) })
	if e.extismP, err = e.extismCP.Instance(ctx, extism.PluginInstanceConfig{}); err != nil {
		return nil, err
	}
	e.closers = append(e.closers, func() { e.extismP.Close(ctx) })
	pm := extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: ExtismV1Wat}}}
	pcp, err := extism.NewCompiledPlugin(ctx, pm, extism.PluginConfig{}, nil)
	if err != nil {
		return nil, err
	}
	e.closers = append(e.closers, func() { pcp.Close(ctx) })
	if e.pluginP, err = pcp.Instance(ctx, extism.PluginInstanceConfig{}); err != nil {
		return nil, err
	}
	e.closers = append(e.closers, func() { e.pluginP.Close(ctx) })
	return e, nil
}

// Close releases everything NewEnv set up.
func (e *Env) Close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
}

// rawEcho is the floor: a warm instance of a bare echo module, its exports looked up once,
// called with CallWithStack on a reused stack. One memcpy in, one call, one copy out.
type rawEcho struct {
	mod         api.Module
	mem         api.Memory
	alloc, echo api.Function
	stack       []uint64
	ptr, cap    uint32
}

func newRawEcho(ctx context.Context, rt wazero.Runtime, cm wazero.CompiledModule) (*rawEcho, error) {
	mod, err := rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
	if err != nil {
		return nil, err
	}
	return &rawEcho{mod: mod, mem: mod.Memory(), alloc: mod.ExportedFunction("alloc"), echo: mod.ExportedFunction("echo"), stack: make([]uint64, 2)}, nil
}

func (r *rawEcho) call(ctx context.Context, in []byte) ([]byte, error) {
	if uint32(len(in)) > r.cap {
		r.stack[0] = uint64(len(in))
		if err := r.alloc.CallWithStack(ctx, r.stack[:1]); err != nil {
			return nil, err
		}
		r.ptr, r.cap = uint32(r.stack[0]), uint32(len(in))
	}
	if !r.mem.Write(r.ptr, in) {
		return nil, errors.New("write out of range")
	}
	r.stack[0], r.stack[1] = uint64(r.ptr), uint64(len(in))
	if err := r.echo.CallWithStack(ctx, r.stack); err != nil {
		return nil, err
	}
	out, ok := r.mem.Read(uint32(r.stack[0]>>32), uint32(r.stack[0]))
	if !ok {
		return nil, errors.New("read out of range")
	}
	return bytes.Clone(out), nil
}

// Case is one in-process benchmark.
type Case struct {
	Group, Name string
	Size        int // payload bytes; 0 when not a sized echo
	F           func(b *testing.B)
}

// WarmCases are the per-call benchmarks on warm instances, for each payload size.
func (e *Env) WarmCases(sizes []int) []Case {
	var cs []Case
	for _, n := range sizes {
		args := Args(n)
		check := func(b *testing.B, out []byte, err error, want int) {
			if err != nil {
				Fail(b, "%v", err)
			}
			if len(out) < want {
				Fail(b, "echo returned %d bytes, want at least %d", len(out), want)
			}
		}
		floor := func(r *rawEcho, timeout bool) func(b *testing.B) {
			return func(b *testing.B) {
				out, err := r.call(e.ctx, args)
				verifyEcho(b, out, err, args, false)
				b.ReportAllocs()
				b.SetBytes(int64(n))
				defer reportCPU(b)()
				for b.Loop() {
					ctx := e.ctx
					var cancel context.CancelFunc
					var stop func() bool
					if timeout { // what Guest.Call pays per call to be stoppable (epoch.go)
						ctx, cancel = context.WithTimeout(ctx, 30*time.Second)
						stop = context.AfterFunc(ctx, func() {})
					}
					out, err := r.call(ctx, args)
					if cancel != nil {
						stop()
						cancel()
					}
					check(b, out, err, n)
				}
			}
		}
		ours := func(g *runtime.Guest, tool string) func(b *testing.B) {
			return func(b *testing.B) {
				out, err := g.Call(e.ctx, tool, args)
				verifyEcho(b, out, err, args, true)
				b.ReportAllocs()
				b.SetBytes(int64(n))
				defer reportCPU(b)()
				for b.Loop() {
					out, err := g.Call(e.ctx, tool, args)
					check(b, out, err, n)
				}
			}
		}
		cs = append(cs,
			Case{"wat", "floor: bare wazero ptr+len call", n, floor(e.floorWat, false)},
			Case{"wat", "floor + WithTimeout + AfterFunc", n, floor(e.floorWatTO, true)},
			Case{"wat", "mcpwasm Guest.Call", n, ours(e.watGuest, "echo")},
			Case{"wat", "Extism go-sdk Plugin.Call", n, func(b *testing.B) {
				_, out, err := e.extismP.Call("echo", args)
				verifyEcho(b, out, err, args, false)
				b.ReportAllocs()
				b.SetBytes(int64(n))
				for b.Loop() {
					_, out, err := e.extismP.Call("echo", args)
					check(b, out, err, n)
				}
			}},
			Case{"plugin", "hyper-mcp v1 plugin: mcpwasm Guest.Call", n, func(b *testing.B) {
				in := PluginInput(args)
				out, err := e.pluginGuest.Call(e.ctx, "echo", args)
				if err == nil && !bytes.Equal(out, in) {
					err = fmt.Errorf("plugin echo returned %d bytes, want its %d-byte input", len(out), len(in))
				}
				check(b, out, err, len(in))
				b.ReportAllocs()
				b.SetBytes(int64(n))
				defer reportCPU(b)()
				for b.Loop() {
					out, err := e.pluginGuest.Call(e.ctx, "echo", args)
					check(b, out, err, len(in))
				}
			}},
			Case{"plugin", "hyper-mcp v1 plugin: Extism go-sdk Plugin.Call", n, func(b *testing.B) {
				in := PluginInput(args)
				_, out, err := e.pluginP.Call("call", in)
				if err == nil && !bytes.Equal(out, in) {
					err = fmt.Errorf("plugin echo returned %d bytes, want its %d-byte input", len(out), len(in))
				}
				check(b, out, err, len(in))
				b.ReportAllocs()
				b.SetBytes(int64(n))
				defer reportCPU(b)()
				for b.Loop() {
					_, out, err := e.pluginP.Call("call", in)
					check(b, out, err, len(in))
				}
			}},
			Case{"go", "floor: bare //go:wasmexport call", n, floor(e.floorGo, false)},
			Case{"go", "floor + WithTimeout + AfterFunc", n, floor(e.floorGoTO, true)},
			Case{"go", "mcpwasm Guest.Call", n, ours(e.goGust, GoEchoID)},
		)
	}
	cs = append(cs, Case{"wat", "Extism go-sdk Plugin.Call no-op", 0, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := e.extismP.Call("noop", nil); err != nil {
				Fail(b, "%v", err)
			}
		}
	}})
	return cs
}

// FreshCases instantiate per call: a 100-byte echo in a fresh instance, closed afterwards.
func (e *Env) FreshCases() []Case {
	args := Args(100)
	floor := func(cm wazero.CompiledModule) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			first := true
			for b.Loop() {
				r, err := newRawEcho(e.ctx, e.floorRT, cm)
				if err != nil {
					Fail(b, "%v", err)
				}
				out, err := r.call(e.ctx, args)
				if first {
					verifyEcho(b, out, err, args, false)
					first = false
				} else if err != nil {
					Fail(b, "%v", err)
				}
				r.mod.Close(e.ctx)
			}
		}
	}
	load := func(wasm []byte, tool string) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			first := true
			for b.Loop() {
				g, err := e.freshHost.Load(e.ctx, wasm, nil)
				if err != nil {
					Fail(b, "%v", err)
				}
				out, err := g.Call(e.ctx, tool, args)
				if first {
					verifyEcho(b, out, err, args, true)
					first = false
				} else if err != nil {
					Fail(b, "%v", err)
				}
				g.Close(e.ctx)
			}
		}
	}
	return []Case{
		{"wat", "floor: instantiate + call + close", 100, floor(e.bareWatCM)},
		{"wat", "mcpwasm Host.Load (warm cache) + Call + Close", 100, load(wat.Echo, "echo")},
		{"wat", "Extism CompiledPlugin.Instance + Call + Close", 100, func(b *testing.B) {
			b.ReportAllocs()
			first := true
			for b.Loop() {
				p, err := e.extismCP.Instance(e.ctx, extism.PluginInstanceConfig{})
				if err != nil {
					Fail(b, "%v", err)
				}
				_, out, err := p.Call("echo", args)
				if first {
					verifyEcho(b, out, err, args, false)
					first = false
				} else if err != nil {
					Fail(b, "%v", err)
				}
				p.Close(e.ctx)
			}
		}},
		{"go", "floor: instantiate + call + close", 100, floor(e.bareGoCM)},
		{"go", "mcpwasm Host.Load (warm cache) + Call + Close", 100, load(e.Go.Echo, GoEchoID)},
	}
}

// LoadCases load a guest whose compiled code is in the host's (disk) cache and close it: an
// mcpwasm-ABI guest (wat.Echo, padded with a custom section to the plugin's byte size) and
// the hyper-mcp v1 echo plugin (ExtismV1Wat), through the same Host.Load. Issue 25 asks the
// plugin to load in at most 2× the guest's time.
func (e *Env) LoadCases() []Case {
	load := func(wasm []byte, source string) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				g, err := e.freshHost.Load(e.ctx, wasm, &runtime.GuestConfig{Source: source})
				if err != nil {
					Fail(b, "%v", err)
				}
				g.Close(e.ctx)
			}
		}
	}
	return []Case{
		{"load", fmt.Sprintf("mcpwasm guest, %d B: Host.Load (warm cache) + Close", len(e.loadGuest)), 0, load(e.loadGuest, "echo.wasm")},
		{"load", fmt.Sprintf("hyper-mcp v1 plugin, %d B: Host.Load (warm cache) + Close", len(ExtismV1Wat)), 0, load(ExtismV1Wat, "extism_v1_echo.wasm")},
	}
}

// PadTo returns wasm with a custom section "pad" appended so that it is n bytes long (or
// wasm itself if it is already that long or longer, or too close to n for a section).
func PadTo(wasm []byte, n int) []byte {
	const name = "pad"
	// A section: id 0, its size (LEB128), the name's length and bytes, then the padding.
	for sizeLen := 1; sizeLen <= 5; sizeLen++ {
		body := n - len(wasm) - 1 - sizeLen
		pad := body - 1 - len(name)
		if pad < 0 || len(binary.AppendUvarint(nil, uint64(body))) != sizeLen {
			continue
		}
		out := append(slices.Clip(wasm), 0)
		out = binary.AppendUvarint(out, uint64(body))
		out = append(append(out, byte(len(name))), name...)
		return append(out, make([]byte, pad)...)
	}
	return wasm
}

// Result is one benchmark's outcome.
type Result struct {
	Case
	NsPerOp, BytesPerOp, AllocsPerOp float64
	N                                int
}

// Run runs c with testing.Benchmark for at least benchtime. A case that fails (Fail, or any
// b.Fatal), or that completes no iteration, is an error naming it: never a row of zeros.
func Run(c Case) (Result, error) {
	failure.mu.Lock()
	failure.msg = ""
	failure.mu.Unlock()
	r := testing.Benchmark(c.F)
	res := Result{Case: c, N: r.N}
	if r.N == 0 || r.T <= 0 {
		failure.mu.Lock()
		why := failure.msg
		failure.mu.Unlock()
		if why == "" {
			why = "it failed or ran no iteration"
		}
		return res, fmt.Errorf("benchmark %s/%s: %s", c.Group, c.Name, why)
	}
	res.NsPerOp = float64(r.T.Nanoseconds()) / float64(r.N)
	res.BytesPerOp = float64(r.MemBytes) / float64(r.N)
	res.AllocsPerOp = float64(r.MemAllocs) / float64(r.N)
	return res, nil
}

// failure is the message of the last Fail: testing.Benchmark returns a failed benchmark as
// a zero result and drops what it logged, so Run reads the reason here.
var failure struct {
	mu  sync.Mutex
	msg string
}

// Fail records why the running benchmark failed, for Run, and stops it (b.Fatal).
func Fail(b *testing.B, format string, args ...any) {
	b.Helper()
	msg := fmt.Sprintf(format, args...)
	failure.mu.Lock()
	failure.msg = msg
	failure.mu.Unlock()
	b.Fatal(msg)
}

// verifyEcho fails b unless out, what one call of an echo path returned for args, is args:
// as they are, or (wrapped) as the structured content of a tool result, as Guest.Call
// returns it. Cases call it once, before their timed loop: a path that errs, or answers
// fast with the wrong bytes, gives no figure at all.
func verifyEcho(b *testing.B, out []byte, err error, args []byte, wrapped bool) {
	b.Helper()
	if err := echoed(out, err, args, wrapped); err != nil {
		Fail(b, "%v", err)
	}
}

func echoed(out []byte, err error, args []byte, wrapped bool) error {
	if err != nil {
		return fmt.Errorf("echo: %w", err)
	}
	got := out
	if wrapped {
		var res struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			return fmt.Errorf("echo: the result is not a tool result: %w", err)
		}
		got = res.StructuredContent
	}
	if !bytes.Equal(got, args) {
		return fmt.Errorf("echo: returned %d bytes (%.40q…), not the %d bytes it was given", len(got), got, len(args))
	}
	return nil
}

// stubImports gives a raw runtime the mcpwasm_v1 imports the SDK guests declare, doing
// nothing, so the floor rows can instantiate gosha (whose bare export never calls them).
func stubImports(ctx context.Context, rt wazero.Runtime) error {
	i32, i64, f64 := api.ValueTypeI32, api.ValueTypeI64, api.ValueTypeF64
	b := rt.NewHostModuleBuilder("mcpwasm_v1")
	for _, f := range []struct {
		name           string
		params, result []api.ValueType
	}{
		{"log", []api.ValueType{i32, i32, i32}, []api.ValueType{i32}},
		{"progress", []api.ValueType{f64, f64, i32, i32}, []api.ValueType{i32}},
		{"cancelled", nil, []api.ValueType{i32}},
		{"request", []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i64}},
		{"response", []api.ValueType{i32, i32}, []api.ValueType{i32}},
	} {
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(context.Context, api.Module, []uint64) {}), f.params, f.result).Export(f.name)
	}
	_, err := b.Instantiate(ctx)
	return err
}

// CPUCases run CPU-bound guest work, SHA-256 of 1 MiB in a Go guest (testdata/guests/gosha),
// under each way of stopping a runaway guest: none, wazero's WithCloseOnContextDone, and
// mcpwasm's (instrumentCalls' fuel checks and interrupt flag, through Guest.Call).
func (e *Env) CPUCases() []Case {
	floor := func(fn api.Function, timeout bool) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			st := make([]uint64, 1)
			for b.Loop() {
				ctx := e.ctx
				var cancel context.CancelFunc
				if timeout {
					ctx, cancel = context.WithTimeout(ctx, 30*time.Second)
				}
				err := fn.CallWithStack(ctx, st)
				if cancel != nil {
					cancel()
				}
				if err != nil {
					Fail(b, "%v", err)
				}
			}
		}
	}
	return []Case{
		{"cpu", "floor: sha256 1MiB, no interruption checks", 0, floor(e.floorSha[0], false)},
		{"cpu", "floor + CloseOnContextDone + WithTimeout", 0, floor(e.floorSha[1], true)},
		{"cpu", "mcpwasm Guest.Call (fuel checks + interrupt flag)", 0, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.shaGuest.Call(e.ctx, "gosha", nil); err != nil {
					Fail(b, "%v", err)
				}
			}
		}},
	}
}

// reportCPU starts measuring the process's CPU time (user+system, all threads: the GC's
// too); the function it returns reports it per op as "cpu-ns/op". On a shared machine it
// moves less with the load than ns/op does.
func reportCPU(b *testing.B) func() {
	c0 := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(processCPU()-c0)/float64(b.N), "cpu-ns/op")
		}
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
