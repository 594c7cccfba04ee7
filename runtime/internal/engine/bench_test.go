package engine

// Instance-level benchmarks, below Guest.Call, for bench/ and BENCHMARKS.md. They build the
// Go guests of testdata/guests unless MCPWASM_BENCH_GOECHO and MCPWASM_BENCH_GOBARE name
// prebuilt .wasm files (the driver bench/cmd/mcpwasm-bench sets them).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/schema"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

const benchGoEchoTool = "gecho0000"

var benchArgs100 = append(append([]byte(`{"text":"`), bytes.Repeat([]byte("a"), 89)...), `"}`...)

func benchGoGuest(b *testing.B, env, pkg string) []byte {
	b.Helper()
	if p := os.Getenv(env); p != "" {
		w, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return w
	}
	out := filepath.Join(b.TempDir(), "guest.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-o", out, "./testdata/guests/"+pkg)
	cmd.Dir = "../../.."
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building %s: %v\n%s", pkg, err, o)
	}
	w, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkInstanceCall splits a warm 100-byte Guest.Call into its parts: the instance
// round trip (instance.enter under a deadline context made once), and the per-call work
// Guest.Call adds around it.
func BenchmarkInstanceCall(b *testing.B) {
	ctx := context.Background()
	h, err := NewHost(ctx, &Options{NoDiskCache: true})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(ctx)
	for _, gc := range []struct {
		name, tool string
		wasm       func() []byte
	}{
		{"wat", "echo", func() []byte { return wat.Echo }},
		{"go", benchGoEchoTool, func() []byte { return benchGoGuest(b, "MCPWASM_BENCH_GOECHO", "goecho") }},
	} {
		g, err := h.Load(ctx, gc.wasm(), nil)
		if err != nil {
			b.Fatal(err)
		}
		t := g.lists().tools[gc.tool]
		b.Run(gc.name+"/instance.call", func(b *testing.B) {
			cctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			inst, err := t.pool.acquire(cctx, h.watch.Now()+time.Minute, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer t.pool.release(inst, true, h.watch.Now())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := inst.enter(cctx, kind.EntryTool, gc.tool, benchArgs100, t.limits, t.sandbox); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(gc.name+"/Guest.Call", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Call(ctx, gc.tool, benchArgs100); err != nil {
					b.Fatal(err)
				}
			}
		})
		if gc.name != "wat" {
			continue
		}
		b.Run("part/validateArgs", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := schema.Validate(t.input, benchArgs100); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("part/validate-flat", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := t.validate(benchArgs100); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("part/WithTimeout+cancel", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, cancel := context.WithTimeout(ctx, t.limits.Timeout)
				cancel()
			}
		})
		b.Run("part/pool.acquire+release", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				inst, err := t.pool.acquire(ctx, h.watch.Now()+t.limits.Timeout, 0)
				if err != nil {
					b.Fatal(err)
				}
				t.pool.release(inst, true, h.watch.Now())
			}
		})
	}
}

// BenchmarkInstrumentation measures the rewrite (runtime/internal/instrument) on the Go guests: the same
// export called in a module compiled as built ("raw"), as the host compiles it
// ("instrumented": fuel checks at entries and loop headers), and as the host compiled it
// before ("entryloop": an empty loop at each entry, for WithCloseOnContextDone), in a runtime
// with and without WithCloseOnContextDone (which makes every loop header call a termination
// check). The host today is plain/instrumented; it was CloseOnContextDone/entryloop.
// go-sha-1MiB is CPU-bound guest work (testdata/guests/gosha).
func BenchmarkInstrumentation(b *testing.B) {
	ctx := context.Background()
	echo, bare := benchGoGuest(b, "MCPWASM_BENCH_GOECHO", "goecho"), benchGoGuest(b, "MCPWASM_BENCH_GOBARE", "gobare")
	sha := benchGoGuest(b, "MCPWASM_BENCH_GOSHA", "gosha")
	for _, cocd := range []bool{true, false} {
		cfg := wazero.NewRuntimeConfig().WithCompilationCache(wazero.NewCompilationCache())
		rtName := "plain"
		if cocd {
			cfg, rtName = cfg.WithCloseOnContextDone(true), "CloseOnContextDone"
		}
		rt := wazero.NewRuntimeWithConfig(ctx, cfg)
		wasi_snapshot_preview1.MustInstantiate(ctx, rt)
		ks, err := newKinds(kinds)
		if err != nil {
			b.Fatal(err)
		}
		if err := (&Host{rt: rt, kinds: ks}).instantiateHostModules(ctx); err != nil {
			b.Fatal(err)
		}
		for _, instr := range []string{"raw", "instrumented", "entryloop"} {
			for _, m := range []struct {
				name, alloc, call string
				wasm              []byte
				abi               bool
			}{{"go-abi-echo", "mcpwasm_alloc", "mcpwasm_call", echo, true}, {"go-bare-echo", "alloc", "echo", bare, false}, {"go-sha-1MiB", "", "sha", sha, false}} {
				name := m.name + "/" + rtName + "/" + instr
				w := m.wasm
				var err error
				switch instr {
				case "instrumented":
					w, err = instrument.Calls(w)
				case "entryloop":
					w, err = entryLoops(w)
				}
				if err != nil {
					b.Fatal(err)
				}
				b.Run(name, func(b *testing.B) {
					cm, err := rt.CompileModule(ctx, w)
					if err != nil {
						b.Fatal(err)
					}
					mod, err := rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
					if err != nil {
						b.Fatal(err)
					}
					defer mod.Close(ctx)
					alloc, call := mod.ExportedFunction(m.alloc), mod.ExportedFunction(m.call)
					if alloc == nil { // sha: no input
						st := make([]uint64, 1)
						b.ReportAllocs()
						for b.Loop() {
							if err := call.CallWithStack(ctx, st); err != nil {
								b.Fatal(err)
							}
						}
						return
					}
					in := benchArgs100
					if m.abi {
						in = append([]byte(benchGoEchoTool), benchArgs100...)
					}
					st := make([]uint64, 4)
					st[0] = uint64(len(in))
					if err := alloc.CallWithStack(ctx, st[:1]); err != nil {
						b.Fatal(err)
					}
					p := uint32(st[0])
					b.ReportAllocs()
					for b.Loop() {
						mod.Memory().Write(p, in)
						s := st[:2]
						if m.abi {
							s = st[:4]
							s[0], s[1], s[2], s[3] = uint64(p), uint64(len(benchGoEchoTool)), uint64(p)+uint64(len(benchGoEchoTool)), uint64(len(benchArgs100))
						} else {
							s[0], s[1] = uint64(p), uint64(len(in))
						}
						if err := call.CallWithStack(ctx, s); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
		rt.Close(ctx)
	}
}

// BenchmarkValidateArgs compares validateArgs with its Decoder-only predecessor
// (validateArgsReference) on the echo guest's schema, and the flat acceptor in front of it
// (its three-pass predecessor: schema.BenchmarkAcceptsWave2).
func BenchmarkValidateArgs(b *testing.B) {
	tools := validateTools(b) // [0] permissive, [1] {"text": string}, required
	for _, n := range []int{100, 10 << 10, 1 << 20} {
		args := append(append([]byte(`{"text":"`), bytes.Repeat([]byte("a"), n-11)...), `"}`...)
		for _, c := range []struct {
			name string
			f    func() error
		}{
			{"before", func() error { return validateArgsReference(tools[1], args) }},
			{"after", func() error { return schema.Validate(tools[1].input, args) }},
			{"after-flat", func() error { return tools[1].validate(args) }},
		} {
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(n))
				for b.Loop() {
					if err := c.f(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// entryLoops is the host's previous rewrite, kept for BenchmarkInstrumentation: an empty
// `loop end` at the start of every function body, so WithCloseOnContextDone's loop-header
// check also ran at function entries.
func entryLoops(b []byte) ([]byte, error) {
	m, err := wasm.Parse(b)
	if err != nil {
		return nil, err
	}
	r := wasm.NewRewriter(m)
	r.DropCustom(".debug_")
	if err := r.RewriteBodies(func(_ uint32, fn, out []byte) ([]byte, error) {
		localsEnd, err := wasm.Locals(fn, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, fn[:localsEnd]...)
		out = append(out, 0x03, 0x40, 0x0b)
		return append(out, fn[localsEnd:]...), nil
	}); err != nil {
		return nil, err
	}
	return r.Bytes()
}

// BenchmarkSnapshot: a 100-byte echo through Guest.Call with a pristine instance per call
// (isolation call), beside the warm instance of isolation shared. call-reset resets the one
// instance in place to the snapshot (reset.go), as the host does: a snapshot of 1 MiB or more
// (the Go echo's) is mapped under the instance's memory and the pages a call wrote are
// copied back or dropped, a smaller one (the WAT echo's) is copied over it;
// call-reset-mapped maps every snapshot, call-reset-copy none. call-fresh instantiates,
// restores, calls and closes an instance per call (call-fresh-copy copying the snapshot, as
// wave 6 did); call-start runs the guest's start in every fresh instance (no snapshot).
// snapshot-B is the linear memory a snapshot keeps.
func BenchmarkSnapshot(b *testing.B) {
	ctx := context.Background()
	h, err := NewHost(ctx, &Options{NoDiskCache: true})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(ctx)
	for _, gc := range []struct {
		name, tool string
		wasm       []byte
	}{
		{"wat", "echo", wat.Echo},
		{"go", benchGoEchoTool, benchGoGuest(b, "MCPWASM_BENCH_GOECHO", "goecho")},
	} {
		for _, m := range []struct {
			name                             string
			iso                              string
			noSnap, noReset, noMap, mapSmall bool
		}{
			{name: "shared", iso: "shared"},
			{name: "call-reset", iso: "call"},
			{name: "call-reset-mapped", iso: "call", mapSmall: true},
			{name: "call-reset-copy", iso: "call", noMap: true},
			{name: "call-fresh", iso: "call", noReset: true},
			{name: "call-fresh-copy", iso: "call", noReset: true, noMap: true},
			{name: "call-start", iso: "call", noSnap: true, noReset: true},
		} {
			h.noSnapshots, h.noReset, h.noMappedMemory, h.mapSmall = m.noSnap, m.noReset, m.noMap, m.mapSmall
			g, err := h.Load(ctx, gc.wasm, &GuestConfig{Name: gc.name + "-" + m.name, Isolation: m.iso})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(gc.name+"/"+m.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := g.Call(ctx, gc.tool, benchArgs100); err != nil {
						b.Fatal(err)
					}
				}
				if s := g.lists().tools[gc.tool].pool.snaps.get(); s != nil {
					b.ReportMetric(float64(len(s.Memory())), "snapshot-B")
				}
			})
		}
	}
}
