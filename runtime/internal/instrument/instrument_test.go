package instrument

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/loadcheck"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/tetratelabs/wazero"
)

func TestInstrumentCalls(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	out, err := Calls(wat.Echo)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := rt.CompileModule(ctx, out)
	if err != nil {
		t.Fatalf("instrumented echo does not compile: %v", err)
	}
	defer cm.Close(ctx)
	if !bytes.Contains(out, []byte(ExportInterrupt)) {
		t.Errorf("no export %s", ExportInterrupt)
	}
	// echo.wat has 4 functions and no start section; the check goes at each entry (and loop).
	// echo.wat has no globals and no imports; $slow is function 4.
	check, _ := (&rewriter{fuel: 0, slow: 4}).appendCheck(nil)
	if n := bytes.Count(out, check[:3]); n < 4 {
		t.Errorf("check appears %d times, want at least 4", n)
	}
	for _, bad := range [][]byte{nil, []byte("\x00asm"), []byte("\x00asm\x01\x00\x00\x00\x0a\x05\x01"), []byte("nope nope")} {
		if _, err := Calls(bad); err == nil {
			t.Errorf("Calls(%q) accepted a malformed module", bad)
		}
	}
}

// FuzzInstrumentCalls: the rewrite never panics; a module wazero accepts still compiles after
// it (so instrumentation never turns a valid guest into an invalid one); the rewrite never
// makes an invalid module valid (as it would one that names an index past its own, which the
// rewrite gives to the host); and a rewritten module's code names the host's globals,
// functions and types only in the checks and charges the rewrite put there.
func FuzzInstrumentCalls(f *testing.F) {
	f.Add(wat.Echo)
	f.Add(wat.Fixture)
	f.Add(wat.Bulk)
	f.Add(wat.Bypass)
	for _, m := range wazeroForms {
		f.Add(m.mod)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		if loadcheck.VectorCounts(wasm) != nil {
			return // the host refuses it before wazero sees it (runtime/internal/loadcheck)
		}
		out, err := Calls(wasm)
		orig, cerr := rt.CompileModule(ctx, wasm)
		if cerr == nil {
			orig.Close(ctx)
		}
		if err != nil {
			if cerr == nil {
				t.Fatalf("wazero compiles the module but Calls fails: %v", err)
			}
			return
		}
		if err := hostRefsOutsideChecks(out); err != nil {
			t.Fatal(err)
		}
		cm, err := rt.CompileModule(ctx, out)
		if err == nil {
			cm.Close(ctx)
		}
		switch {
		case cerr == nil && err != nil:
			t.Fatalf("instrumented module does not compile: %v", err)
		case cerr != nil && err == nil:
			// Custom sections carry no indexes and the rewrite keeps them as they are, but
			// wazero refuses some only at the very end of a module (an empty name there:
			// EOF), and the rewrite adds sections after them. Judge without them.
			if stripped, serr := rt.CompileModule(ctx, withoutCustomSections(wasm)); serr != nil {
				t.Fatalf("the rewrite made an invalid module valid; wazero on the original: %v", serr)
			} else {
				stripped.Close(ctx)
			}
		}
	})
}

// withoutCustomSections returns wasm without its custom sections (wasm is well formed up to
// its section sizes: Calls accepted it).
func withoutCustomSections(b []byte) []byte {
	m, err := wasm.Parse(b)
	if err != nil {
		panic(err)
	}
	r := wasm.NewRewriter(m)
	r.DropCustom("")
	out, err := r.Bytes()
	if err != nil {
		panic(err)
	}
	return out
}

// hostRefsOutsideChecks returns an error if the code of the rewritten module out names one of
// the host's indexes (the last three globals, the last function, the last type) anywhere but
// in the checks and charges Calls puts there.
func hostRefsOutsideChecks(out []byte) error {
	m, err := wasm.Parse(out)
	if err != nil {
		return err
	}
	mi, err := m.Index(nil)
	if err != nil {
		return err
	}
	host := rewriter{fuel: mi.ImportGlobals + mi.Globals - 3, slow: mi.ImportFuncs + mi.Funcs - 1}
	host.flag, host.size = host.fuel+1, host.fuel+2
	types := mi.Types - 1
	check, at := host.appendCheck(nil)
	charges := [][]byte{host.appendCharge(nil, wasm.BulkBytesShift), host.appendCharge(nil, wasm.BulkElemsShift)}
	nbodies, err := m.Count(wasm.SectionCode)
	if err != nil {
		return err
	}
	return m.Bodies(func(f uint32, fn []byte) error {
		if f == nbodies-1 { // the last is $slow
			return nil
		}
		start, err := wasm.Locals(fn, nil)
		if err != nil {
			return err
		}
		var in wasm.Instr
	instructions:
		for i := start; i < len(fn); {
			if len(fn)-i >= len(check) && bytes.Equal(fn[i:i+at], check[:at]) && bytes.Equal(fn[i+at+5:i+len(check)], check[at+5:]) {
				i += len(check)
				continue
			}
			for _, c := range charges {
				if bytes.HasPrefix(fn[i:], c) {
					i += len(c)
					continue instructions
				}
			}
			if i, err = wasm.Decode(fn, i, &in); err != nil {
				return fmt.Errorf("function body %d: %v", f, err)
			}
			for _, r := range in.Refs[:in.NRefs] {
				if r.Space == wasm.SpaceGlobal && r.Idx >= host.fuel || r.Space == wasm.SpaceFunc && r.Idx >= host.slow || r.Space == wasm.SpaceType && r.Idx >= types {
					return fmt.Errorf("function body %d: %s names the host's %s %d", f, in.Name(), r.Space, r.Idx)
				}
			}
		}
		return nil
	})
}
