package runtime

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/tetratelabs/wazero"
)

func TestInstrumentCalls(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	out, err := instrumentCalls(wat.Echo)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := rt.CompileModule(ctx, out)
	if err != nil {
		t.Fatalf("instrumented echo does not compile: %v", err)
	}
	defer cm.Close(ctx)
	if !bytes.Contains(out, []byte(exportInterrupt)) {
		t.Errorf("no export %s", exportInterrupt)
	}
	// echo.wat has 4 functions and no start section; the check goes at each entry (and loop).
	// echo.wat has no globals and no imports; $slow is function 4.
	check, _ := (&rewriter{fuel: 0, slow: 4}).appendCheck(nil)
	if n := bytes.Count(out, check[:3]); n < 4 {
		t.Errorf("check appears %d times, want at least 4", n)
	}
	for _, bad := range [][]byte{nil, []byte("\x00asm"), []byte("\x00asm\x01\x00\x00\x00\x0a\x05\x01"), []byte("nope nope")} {
		if _, err := instrumentCalls(bad); err == nil {
			t.Errorf("instrumentCalls(%q) accepted a malformed module", bad)
		}
	}
}

// FuzzInstrumentCalls: the rewrite never panics, and a module wazero accepts still compiles
// after it (so instrumentation never turns a valid guest into an invalid one).
func FuzzInstrumentCalls(f *testing.F) {
	f.Add(wat.Echo)
	f.Add(wat.Fixture)
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		if checkVectorCounts(wasm) != nil {
			return // the host refuses it before wazero sees it (loadcaps.go)
		}
		out, err := instrumentCalls(wasm)
		orig, cerr := rt.CompileModule(ctx, wasm)
		if cerr != nil {
			return
		}
		orig.Close(ctx)
		if err != nil {
			t.Fatalf("wazero compiles the module but instrumentCalls fails: %v", err)
		}
		cm, err := rt.CompileModule(ctx, out)
		if err != nil {
			t.Fatalf("instrumented module does not compile: %v", err)
		}
		cm.Close(ctx)
	})
}

// The names the rewrite adds are reserved: a module that already exports one is refused,
// and the loader says why.
func TestInstrumentRejectsReservedExports(t *testing.T) {
	out, err := instrumentCalls(wat.Echo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := instrumentCalls(out); !errors.Is(err, errReserved) {
		t.Fatalf("instrumenting twice: %v; want errReserved", err)
	}
	ctx := context.Background()
	h, err := NewHost(ctx, &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	_, err = h.Load(ctx, out, &GuestConfig{Source: "x.wasm"})
	want := "x.wasm: compiling: reserved export name: the module exports mcpwasm_interrupt, which the host reserves (ABI.md §2)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v; want %s", err, want)
	}
}
