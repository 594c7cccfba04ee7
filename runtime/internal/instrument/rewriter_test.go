package instrument

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/loadcheck"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Tests of the rewrite (instrument.go, scan.go) and of the wasm package's index checks
// (internal/wasm/index.go) and decoder (internal/wasm/decode.go) on modules built here, byte by byte: most are invalid on purpose, which
// wat2wasm refuses to build.

func tleb(v uint64) []byte { return binaryAppendU(nil, v) }

func binaryAppendU(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		if v >>= 7; v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func tsleb(v int64) []byte { return wasm.AppendS32(nil, int32(v)) }

func tcat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func tvec(items ...[]byte) []byte { return append(tleb(uint64(len(items))), tcat(items...)...) }

func tsec(id byte, body []byte) []byte { return tcat([]byte{id}, tleb(uint64(len(body))), body) }

func tmod(secs ...[]byte) []byte { return tcat([]byte("\x00asm\x01\x00\x00\x00"), tcat(secs...)) }

// tbody is a function body without locals: code, then end.
func tbody(code ...[]byte) []byte {
	b := tcat([]byte{0}, tcat(code...), []byte{0x0b})
	return tcat(tleb(uint64(len(b))), b)
}

func tname(s string) []byte { return tcat(tleb(uint64(len(s))), []byte(s)) }

// i32c is i32.const v.
func i32c(v int64) []byte { return tcat([]byte{0x41}, tsleb(v)) }

// A guest names only indexes it defines: after the rewrite, the indexes just past its own
// are the host's ($fuel, $flag and $size, $slow, its type). Every kind of reference is
// refused, with an error that names where and what (reproducer interrupt-bypass: a loop
// writing global 0 in a module without globals never stopped, and froze the process at the
// next garbage collection).
func TestRewriteRefusesUndefinedIndexes(t *testing.T) {
	const (
		typeSec, importSec, funcSec, tableSec, memSec, globalSec = 1, 2, 3, 4, 5, 6
		exportSec, startSec, elemSec, codeSec, dataSec           = 7, 8, 9, 10, 11
	)
	void := []byte{0x60, 0, 0}
	// base: type 0 [] -> []; function 0; a funcref table of 1; a memory of 1 page; global 0,
	// a mutable i32. With replace, one section is swapped for a variant naming index 1 (the
	// host's first type, function, global) or a table or memory past the module's.
	base := map[byte][]byte{
		typeSec:   tvec(void),
		funcSec:   tvec(tleb(0)),
		tableSec:  tvec([]byte{0x70, 0x00, 0x01}),
		memSec:    tvec([]byte{0x00, 0x01}),
		globalSec: tvec(tcat([]byte{0x7f, 0x01}, i32c(0), []byte{0x0b})),
		codeSec:   tvec(tbody()),
	}
	build := func(replace map[byte][]byte) []byte {
		var secs [][]byte
		for _, id := range []byte{typeSec, importSec, funcSec, tableSec, memSec, globalSec, exportSec, startSec, elemSec, codeSec, dataSec} {
			body, ok := replace[id]
			if !ok {
				body, ok = base[id]
			}
			if ok && body != nil { // replaced by nil: left out
				secs = append(secs, tsec(id, body))
			}
		}
		return tmod(secs...)
	}
	code := func(c ...[]byte) map[byte][]byte { return map[byte][]byte{codeSec: tvec(tbody(c...))} }
	const undef = "reference to an index the module does not define: "
	for _, tc := range []struct {
		name string
		mod  map[byte][]byte
		want string
	}{
		{"global.set in a loop (the reproducer)", code([]byte{0x03, 0x40}, i32c(1000), []byte{0x24, 1, 0x0c, 0, 0x0b}),
			"function 0: global.set names global 1, but the module defines 1 global (index 0)"},
		{"global.get", code([]byte{0x23, 1, 0x1a}), "function 0: global.get names global 1, but the module defines 1 global (index 0)"},
		{"call", code([]byte{0x10, 1}), "function 0: call names function 1, but the module defines 1 function (index 0)"},
		{"call, past the host's", code([]byte{0x10, 9}), "function 0: call names function 9, but the module defines 1 function (index 0)"},
		{"return_call", code([]byte{0x12, 1}), "function 0: return_call names function 1, but the module defines 1 function (index 0)"},
		{"ref.func", code([]byte{0xd2, 1, 0x1a}), "function 0: ref.func names function 1, but the module defines 1 function (index 0)"},
		{"call_indirect type", code(i32c(0), []byte{0x11, 1, 0}), "function 0: call_indirect names type 1, but the module defines 1 type (index 0)"},
		{"select type", code(i32c(0), i32c(0), i32c(0), []byte{0x1c, 1, 0x63, 1, 0x1a}), "function 0: select names type 1, but the module defines 1 type (index 0)"},
		{"call_indirect table", code(i32c(0), []byte{0x11, 0, 1}), "function 0: call_indirect names table 1, but the module defines 1 table (index 0)"},
		{"block type", code([]byte{0x02, 1, 0x0b}), "function 0: block names type 1, but the module defines 1 type (index 0)"},
		{"loop type", code([]byte{0x03, 2, 0x0b}), "function 0: loop names type 2, but the module defines 1 type (index 0)"},
		{"table.get", code(i32c(0), []byte{0x25, 1, 0x1a}), "function 0: table.get names table 1, but the module defines 1 table (index 0)"},
		{"table.fill", code(i32c(0), []byte{0xd0, 0x70}, i32c(0), []byte{0xfc, 17, 1}), "function 0: table.fill names table 1, but the module defines 1 table (index 0)"},
		{"memory.size", code([]byte{0x3f, 1, 0x1a}), "function 0: memory.size names memory 1, but the module defines 1 memory (index 0)"},
		{"memory.copy", code(i32c(0), i32c(0), i32c(0), []byte{0xfc, 10, 0, 1}), "function 0: memory.copy names memory 1, but the module defines 1 memory (index 0)"},
		{"load with a memory index", code(i32c(0), []byte{0x28, 0x42, 1, 0, 0x1a}), "function 0: load or store names memory 1, but the module defines 1 memory (index 0)"},
		{"export of a global", map[byte][]byte{exportSec: tvec(tcat(tname("g"), []byte{3, 1}))}, `export "g" names global 1, but the module defines 1 global (index 0)`},
		{"export of a function", map[byte][]byte{exportSec: tvec(tcat(tname("f"), []byte{0, 1}))}, `export "f" names function 1, but the module defines 1 function (index 0)`},
		{"export of a memory", map[byte][]byte{exportSec: tvec(tcat(tname("m"), []byte{2, 1}))}, `export "m" names memory 1, but the module defines 1 memory (index 0)`},
		{"start", map[byte][]byte{startSec: tleb(1)}, "the start section names function 1, but the module defines 1 function (index 0)"},
		{"element segment function", map[byte][]byte{elemSec: tvec(tcat([]byte{0}, i32c(0), []byte{0x0b}, tvec(tleb(1))))},
			"element segment 0 names function 1, but the module defines 1 function (index 0)"},
		{"element segment expression", map[byte][]byte{elemSec: tvec(tcat([]byte{5, 0x70}, tvec([]byte{0xd2, 1, 0x0b})))},
			"element segment 0: ref.func names function 1, but the module defines 1 function (index 0)"},
		{"element segment offset", map[byte][]byte{elemSec: tvec(tcat([]byte{0, 0x23, 1, 0x0b}, tvec(tleb(0))))},
			"element segment 0: global.get names global 1, but the module defines 1 global (index 0)"},
		{"element segment table", map[byte][]byte{elemSec: tvec(tcat([]byte{2, 1}, i32c(0), []byte{0x0b, 0}, tvec(tleb(0))))},
			"element segment 0 names table 1, but the module defines 1 table (index 0)"},
		{"global initializer", map[byte][]byte{globalSec: tvec(tcat([]byte{0x7f, 0x01}, i32c(0), []byte{0x0b}), []byte{0x7f, 0x00, 0x23, 2, 0x0b})},
			"global 1's initializer: global.get names global 2, but the module defines 2 globals (indexes 0 to 1)"},
		{"global initializer ref.func", map[byte][]byte{globalSec: tvec([]byte{0x70, 0x00, 0xd2, 1, 0x0b})},
			"global 0's initializer: ref.func names function 1, but the module defines 1 function (index 0)"},
		{"data segment offset", map[byte][]byte{dataSec: tvec(tcat([]byte{0, 0x23, 1, 0x0b}, tvec()))},
			"data segment 0: global.get names global 1, but the module defines 1 global (index 0)"},
		{"data segment memory", map[byte][]byte{dataSec: tvec(tcat([]byte{2, 1}, i32c(0), []byte{0x0b}, tvec()))},
			"data segment 0 names memory 1, but the module defines 1 memory (index 0)"},
		{"function type", map[byte][]byte{funcSec: tvec(tleb(1))}, "function 0's declaration names type 1, but the module defines 1 type (index 0)"},
		{"imported function type", map[byte][]byte{importSec: tvec(tcat(tname("env"), tname("f"), []byte{0, 1}))},
			`import 0 ("env" "f") names type 1, but the module defines 1 type (index 0)`},
		{"no globals at all", map[byte][]byte{globalSec: nil, codeSec: tvec(tbody([]byte{0x23, 0, 0x1a}))},
			"function 0: global.get names global 0, but the module defines no globals"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Calls(build(tc.mod))
			if !errors.Is(err, wasm.ErrUndefinedIndex) || err.Error() != undef+tc.want {
				t.Errorf("Calls: %v\nwant: %s%s", err, undef, tc.want)
			}
		})
	}
	// The base module is valid and is rewritten.
	if _, err := Calls(build(nil)); err != nil {
		t.Fatalf("base module: %v", err)
	}
}

// forms wazero accepts beyond WebAssembly 2.0 proper, each with the indexes it can name: the
// rewrite must read them to the byte (it counts types, tables and globals, and checks indexes
// inside them) and accept them.
var wazeroForms = []struct {
	name string
	mod  []byte
}{
	{"rec group of two types", tmod(tsec(1, tvec([]byte{0x4e, 2, 0x60, 0, 0, 0x60, 0, 0})), tsec(3, tvec(tleb(1))), tsec(10, tvec(tbody())))},
	{"local (ref null func)", tmod(tsec(1, tvec([]byte{0x60, 0, 0})), tsec(3, tvec(tleb(0))), tsec(10, tvec([]byte{5, 1, 1, 0x63, 0x70, 0x0b})))},
	{"local (ref null 0)", tmod(tsec(1, tvec([]byte{0x60, 0, 0})), tsec(3, tvec(tleb(0))), tsec(10, tvec([]byte{5, 1, 1, 0x63, 0x00, 0x0b})))},
	{"local exnref", tmod(tsec(1, tvec([]byte{0x60, 0, 0})), tsec(3, tvec(tleb(0))), tsec(10, tvec([]byte{4, 1, 1, 0x69, 0x0b})))},
	{"table with an initializer", tmod(tsec(1, tvec([]byte{0x60, 0, 0})), tsec(3, tvec(tleb(0))),
		tsec(4, tvec([]byte{0x40, 0x00, 0x70, 0x00, 0x01, 0xd2, 0x00, 0x0b})), tsec(10, tvec(tbody())))},
	{"table of (ref null func)", tmod(tsec(4, tvec([]byte{0x63, 0x70, 0x00, 0x01})))},
	{"global of (ref null func)", tmod(tsec(6, tvec([]byte{0x63, 0x70, 0x00, 0xd0, 0x70, 0x0b})))},
	// wazero's constant-expression reader takes ref.null of a type index (any u32: FuzzInstrumentCalls
	// found 48 in a module of no types), which in a function body it refuses.
	{"global initialized by ref.null of a type index", tmod(tsec(6, tvec([]byte{0x63, 0x70, 0x00, 0xd0, 0x30, 0x0b})))},
	{"block of (ref null func)", tmod(tsec(1, tvec([]byte{0x60, 0, 0})), tsec(3, tvec(tleb(0))), tsec(10, tvec(tbody([]byte{0x02, 0x63, 0x70, 0xd0, 0x70, 0x0b, 0x1a}))))},
}

func TestRewriteReadsWazeroForms(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	for _, tc := range wazeroForms {
		cm, err := rt.CompileModule(ctx, tc.mod)
		if err != nil {
			t.Fatalf("%s: wazero no longer accepts the module: %v", tc.name, err)
		}
		cm.Close(ctx)
		out, err := Calls(tc.mod)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if cm, err = rt.CompileModule(ctx, out); err != nil {
			t.Errorf("%s: the rewritten module does not compile: %v", tc.name, err)
			continue
		}
		cm.Close(ctx)
	}
	// And the indexes inside them are checked.
	for _, tc := range []struct {
		name string
		mod  []byte
		want string
	}{
		{"local (ref null 1)", tmod(tsec(1, tvec([]byte{0x60, 0, 0})), tsec(3, tvec(tleb(0))), tsec(10, tvec([]byte{5, 1, 1, 0x63, 0x01, 0x0b}))),
			"function 0: a local's type names type 1, but the module defines 1 type (index 0)"},
		{"table initializer", tmod(tsec(1, tvec([]byte{0x60, 0, 0})), tsec(3, tvec(tleb(0))),
			tsec(4, tvec([]byte{0x40, 0x00, 0x70, 0x00, 0x01, 0xd2, 0x01, 0x0b})), tsec(10, tvec(tbody()))),
			"table 0's initializer: ref.func names function 1, but the module defines 1 function (index 0)"},
		{"type in a rec group", tmod(tsec(1, tvec([]byte{0x4e, 2, 0x60, 0, 0, 0x60, 1, 0x63, 0x02, 0}))),
			"type 1 names type 2, but the module defines 2 types (indexes 0 to 1)"},
		{"global of (ref null 0) without types", tmod(tsec(6, tvec([]byte{0x63, 0x00, 0x00, 0xd0, 0x70, 0x0b}))),
			"global 0's value type names type 0, but the module defines no types"},
	} {
		_, err := Calls(tc.mod)
		if want := "reference to an index the module does not define: " + tc.want; err == nil || err.Error() != want {
			t.Errorf("%s: %v\nwant: %s", tc.name, err, want)
		}
	}
}

// A start function must be [] -> []: the host calls it as mcpwasm_start without arguments, and
// exporting one of another type would make an invalid module valid.
func TestRewriteRefusesStartWithParameters(t *testing.T) {
	mod := tmod(tsec(1, tvec([]byte{0x60, 1, 0x7f, 0})), tsec(3, tvec(tleb(0))), tsec(8, tleb(0)), tsec(10, tvec(tbody())))
	_, err := Calls(mod)
	if want := "malformed module: start section: start function 0 does not have type [] -> []"; err == nil || err.Error() != want {
		t.Fatalf("err = %v; want %s", err, want)
	}
}

// A section the rewrite appends to must end with its last entry: bytes left over would be
// read as the start of the host's first entry, shifting the host's indexes.
func TestRewriteRefusesTrailingBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  []byte
		want string
	}{
		{"global", tmod(tsec(6, []byte{0, 0x7c, 0x01, 0x44, 0, 0})), "malformed module: global section: 5 bytes after the last entry"},
		{"type", tmod(tsec(1, []byte{0, 0x60, 0, 0})), "malformed module: type section: 3 bytes after the last entry"},
		{"function", tmod(tsec(1, tvec([]byte{0x60, 0, 0})), tsec(3, []byte{0, 0})), "malformed module: function section: 1 bytes after the last entry"},
		{"export", tmod(tsec(7, []byte{0, 1, 'x', 3, 0})), "malformed module: export section: 4 bytes after the last entry"},
	} {
		if _, err := Calls(tc.mod); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v; want %s", tc.name, err, tc.want)
		}
	}
}

// bulkModule is a module whose export "run" loops forever over op, incrementing global 0
// (exported "n") each iteration, and whose export "once" runs memory.fill, memory.copy and
// table.fill once and returns what they wrote (7). It has a memory of 512 pages (32 MiB), a
// funcref table of 65,536 elements, a passive data segment of 1 MiB and a passive element
// segment of 16,384 functions.
func bulkModule(op []byte) []byte {
	void, ret := []byte{0x60, 0, 0}, []byte{0x60, 0, 1, 0x7f}
	elems := make([][]byte, 1<<14)
	for k := range elems {
		elems[k] = tleb(0)
	}
	run := tbody([]byte{0x03, 0x40}, op, []byte{0x23, 0}, i32c(1), []byte{0x6a, 0x24, 0, 0x0c, 0, 0x0b})
	once := tbody(i32c(100), i32c(7), i32c(50), []byte{0xfc, 11, 0}, // memory.fill 100 7 50
		i32c(200), i32c(100), i32c(50), []byte{0xfc, 10, 0, 0}, // memory.copy 200 100 50
		i32c(0), []byte{0xd2, 0}, i32c(10), []byte{0xfc, 17, 0}, // table.fill 0 (ref.func 0) 10
		i32c(249), []byte{0x2d, 0, 0}, // i32.load8_u 249: 7
		i32c(5), []byte{0x25, 0, 0xd1}, // ref.is_null (table.get 5): 0
		i32c(100), []byte{0x6c, 0x6a}) // 7 + 0*100
	return tmod(
		tsec(1, tvec(void, ret)),
		tsec(3, tvec(tleb(0), tleb(1))),
		tsec(4, tvec(tcat([]byte{0x70, 0x00}, tleb(1<<16)))),
		tsec(5, tvec(tcat([]byte{0x00}, tleb(512)))),
		tsec(6, tvec(tcat([]byte{0x7f, 0x01}, i32c(0), []byte{0x0b}))),
		tsec(7, tvec(tcat(tname("run"), []byte{0, 0}), tcat(tname("once"), []byte{0, 1}), tcat(tname("n"), []byte{3, 0}))),
		tsec(9, tvec(tcat([]byte{1, 0x00}, tvec(elems...)))),
		tsec(12, tleb(1)),
		tsec(10, tvec(run, once)),
		tsec(11, tvec(tcat([]byte{1}, tleb(1<<20), make([]byte, 1<<20)))),
	)
}

// The flag is looked at within a bounded amount of work, not a bounded number of checks: a
// loop whose body is one large bulk operation — memory.fill, copy, init; table.fill, copy,
// init — or a long run of plain instructions, with the flag already set, stops after a
// handful of iterations (reproducer bulk-op-deadline: the flag was looked at every 4096 loop
// iterations, so `loop { memory.fill 16 MiB }` ran 5-70 s past its time limit and the kill
// switch took 87 s). Deterministic: the iterations are counted, not timed.
func TestBulkOperationsLookAtTheFlag(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	straight := bytes.Repeat(tcat(i32c(1), []byte{0x1a}), 20000) // 20,000 × (i32.const 1, drop)
	for _, tc := range []struct {
		name   string
		op     []byte
		charge int // fuel one iteration costs at least
	}{
		{"memory.fill 16 MiB", tcat(i32c(0), i32c(7), i32c(16<<20), []byte{0xfc, 11, 0}), 16 << 20 >> wasm.BulkBytesShift},
		{"memory.copy 16 MiB", tcat(i32c(0), i32c(16<<20), i32c(16<<20), []byte{0xfc, 10, 0, 0}), 16 << 20 >> wasm.BulkBytesShift},
		{"memory.init 1 MiB", tcat(i32c(0), i32c(0), i32c(1<<20), []byte{0xfc, 8, 0, 0}), 1 << 20 >> wasm.BulkBytesShift},
		{"table.fill 65536", tcat(i32c(0), []byte{0xd0, 0x70}, i32c(1<<16), []byte{0xfc, 17, 0}), 1 << 16 >> wasm.BulkElemsShift},
		{"table.copy 32768", tcat(i32c(0), i32c(1<<15), i32c(1<<15), []byte{0xfc, 14, 0, 0}), 1 << 15 >> wasm.BulkElemsShift},
		{"table.init 16384", tcat(i32c(0), i32c(0), i32c(1<<14), []byte{0xfc, 12, 0, 0}), 1 << 14 >> wasm.BulkElemsShift},
		{"20000 plain instructions", straight, 40000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Calls(bulkModule(tc.op))
			if err != nil {
				t.Fatal(err)
			}
			cm, err := rt.CompileModule(ctx, w)
			if err != nil {
				t.Fatal(err)
			}
			defer cm.Close(ctx)
			mod, err := rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(""))
			if err != nil {
				t.Fatal(err)
			}
			defer mod.Close(ctx)
			// Unset, the operations do what they did before the rewrite.
			if r, err := mod.ExportedFunction("once").Call(ctx); err != nil || r[0] != 7 {
				t.Fatalf("once: %v, %v; want 7", r, err)
			}
			mod.ExportedGlobal(ExportInterrupt).(api.MutableGlobal).Set(1)
			_, err = mod.ExportedFunction("run").Call(ctx)
			if err == nil || !strings.Contains(err.Error(), "unreachable") {
				t.Fatalf("run with the flag set: %v; want the trap", err)
			}
			n := int(mod.ExportedGlobal("n").Get())
			if max := FuelInterval/tc.charge + 1; n > max {
				t.Errorf("%d iterations ran with the flag set; want at most %d", n, max)
			}
		})
	}
}

// The rewrite and the nesting cap decode instructions the same way (one decoder): for each
// instruction here — the ones two decoders once disagreed on among them — both accept it or
// both refuse it, and when they accept it they see the same blocks after it. wazero, given
// the same body, agrees on which are valid.
func TestDecodersAgree(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	for _, tc := range []struct {
		name     string
		instr    []byte // run in unreachable code, so the operand types do not matter
		ok       bool   // the rewrite and the nesting scan accept it
		wazeroOK bool
	}{
		{"memory.copy", []byte{0xfc, 10, 0, 0}, true, true},
		// A memory index is a u32 (multi-memory); wazero, without multi-memory, wants one
		// zero byte and refuses the module itself. Both decoders read the same 2 bytes.
		{"memory.copy, 2-byte memory index", []byte{0xfc, 10, 0x80, 0x00, 0}, true, false},
		{"memory.fill", []byte{0xfc, 11, 0}, true, true},
		{"ref.null func", []byte{0xd0, 0x70}, true, true},
		{"ref.null extern", []byte{0xd0, 0x6f}, true, true},
		{"ref.null, 2-byte heap type", []byte{0xd0, 0x80, 0x00}, false, false},
		{"i32.const, 5 bytes", []byte{0x41, 0xff, 0xff, 0xff, 0xff, 0x07}, true, true},
		{"i32.const, 6 bytes", []byte{0x41, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, false, false},
		{"i64.const, 10 bytes", []byte{0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, true, true},
		{"SIMD i8x16.abs", []byte{0xfd, 0x60}, true, true},
		{"SIMD, unassigned 0x9a", []byte{0xfd, 0x9a, 0x01}, false, false},
		{"SIMD, past the last (0x200)", []byte{0xfd, 0x80, 0x04}, false, false},
		{"relaxed SIMD", []byte{0xfd, 0x80, 0x02}, false, false},
		{"0xfc, past the last", []byte{0xfc, 18}, false, false},
		{"try (exceptions)", []byte{0x06, 0x40}, false, false},
		{"select t", []byte{0x1c, 1, 0x7f}, true, true},
		{"select t, (ref null 0)", []byte{0x1c, 1, 0x63, 0x00}, true, true},
		{"select t, unknown type", []byte{0x1c, 1, 0x62}, false, false},
		{"select t, two types", []byte{0x1c, 2, 0x7f, 0x7f}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// unreachable; instr; unreachable; block; block; end; end; end
			code := tcat([]byte{0x00}, tc.instr, []byte{0x00, 0x02, 0x40, 0x02, 0x40, 0x0b, 0x0b})
			mod := tmod(tsec(1, tvec([]byte{0x60, 0, 0})), tsec(3, tvec(tleb(0))), tsec(4, tvec([]byte{0x70, 0, 1})),
				tsec(5, tvec([]byte{0, 1})), tsec(10, tvec(tbody(code))))
			_, rerr := Calls(mod)
			_, depth := loadcheck.MaxNesting(mod, 100)
			cm, werr := rt.CompileModule(ctx, mod)
			if werr == nil {
				cm.Close(ctx)
			}
			if got := rerr == nil; got != tc.ok {
				t.Errorf("rewrite: %v; want ok=%v", rerr, tc.ok)
			}
			if want := map[bool]int{true: 2, false: 0}[tc.ok]; depth != want {
				t.Errorf("nesting scan: depth %d; want %d", depth, want)
			}
			if got := werr == nil; got != tc.wazeroOK {
				t.Errorf("wazero: %v; want ok=%v", werr, tc.wazeroOK)
			}
			if !tc.ok && !errors.Is(rerr, wasm.ErrUnknownInstr) && !errors.Is(rerr, wasm.ErrMalformed) {
				t.Errorf("rewrite error %v is neither an unknown instruction nor malformed", rerr)
			}
		})
	}
}

// Locals of a two-byte type ((ref null 2), which wazero accepts) are read the same way by both
// paths too: the nesting scan sees the two blocks after them, not a block made of the type's
// second byte.
func TestDecodersAgreeOnLocals(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	void := []byte{0x60, 0, 0}
	body := []byte{1, 1, 0x63, 0x02, 0x02, 0x40, 0x02, 0x40, 0x0b, 0x0b, 0x0b}
	mod := tmod(tsec(1, tvec(void, void, void)), tsec(3, tvec(tleb(0))), tsec(10, tvec(tcat(tleb(uint64(len(body))), body))))
	cm, err := rt.CompileModule(ctx, mod)
	if err != nil {
		t.Fatalf("wazero: %v", err)
	}
	cm.Close(ctx)
	if _, err := Calls(mod); err != nil {
		t.Fatalf("rewrite: %v", err)
	}
	if _, depth := loadcheck.MaxNesting(mod, 100); depth != 2 {
		t.Errorf("nesting scan: depth %d; want 2", depth)
	}
	// An unknown instruction is refused with its name, not skipped.
	mod = tmod(tsec(1, tvec([]byte{0x60, 0, 0})), tsec(3, tvec(tleb(0))), tsec(10, tvec(tbody([]byte{0xfd, 0x9a, 0x01}))))
	if _, err := Calls(mod); !errors.Is(err, wasm.ErrUnknownInstr) || err.Error() != "function 0: unknown instruction 0xfd 154" {
		t.Errorf("unknown instruction: %v", err)
	}
}

// Every opcode, and every sub-opcode of the 0xfc and 0xfd prefixes, is accepted by the decoder
// exactly when wazero accepts it (immediates all zero, in unreachable code); an unknown one is
// refused, not skipped. Excepted: what the decoder knows beyond wazero's default features
// (tail calls, threads).
func TestDecoderKnowsWhatWazeroKnows(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	try := func(instr []byte) (ours, theirs error) {
		// unreachable; instr; 24 zero bytes (the immediates, then unreachables); end
		code := tcat([]byte{0x00}, instr, make([]byte, 24))
		// Type 0: [i32] -> [], so that local 0 exists; function 0 is declared (element
		// segment), so that ref.func 0 is valid.
		mod := tmod(tsec(1, tvec([]byte{0x60, 1, 0x7f, 0})), tsec(3, tvec(tleb(0))), tsec(4, tvec([]byte{0x70, 0, 1})),
			tsec(5, tvec([]byte{0, 1})), tsec(6, tvec(tcat([]byte{0x7f, 0x01}, i32c(0), []byte{0x0b}))),
			tsec(9, tvec([]byte{1, 0, 1, 0})), tsec(12, tleb(1)), tsec(10, tvec(tbody(code))), tsec(11, tvec([]byte{1, 0})))
		_, ours = Calls(mod)
		cm, theirs := rt.CompileModule(ctx, mod)
		if theirs == nil {
			cm.Close(ctx)
		}
		return ours, theirs
	}
	var instrs [][]byte
	for op := range 0x100 {
		switch op {
		case 0x02, 0x03, 0x04, 0x05, 0x0b: // blocks need their end; else needs an if
		case 0x12, 0x13, 0xfe: // tail calls, threads: not enabled in wazero by default
		case 0xfc, 0xfd:
			for sub := range 0x120 {
				instrs = append(instrs, tcat([]byte{byte(op)}, tleb(uint64(sub))))
			}
		default:
			instrs = append(instrs, []byte{byte(op)})
		}
	}
	for _, instr := range instrs {
		ours, theirs := try(instr)
		if (ours == nil) != (theirs == nil) {
			t.Errorf("instruction % x: rewrite %v, wazero %v", instr, ours, theirs)
		}
	}
	if testing.Verbose() {
		fmt.Println(len(instrs), "instructions compared")
	}
}

// BenchmarkBulkCharge measures what the charge before a bulk operation costs: a loop of
// 1,000 small memory.copy (32 bytes) and memory.fill (32 bytes), as built ("raw") and as the
// host rewrites it ("instrumented": a check per iteration, a charge per operation).
func BenchmarkBulkCharge(b *testing.B) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	// run: loop 1000 times { memory.copy 0 64 32; memory.fill 128 7 32 }, with local 0 the counter.
	code := tcat([]byte{1, 1, 0x7f}, // one local i32
		i32c(1000), []byte{0x21, 0}, []byte{0x03, 0x40},
		i32c(0), i32c(64), i32c(32), []byte{0xfc, 10, 0, 0},
		i32c(128), i32c(7), i32c(32), []byte{0xfc, 11, 0},
		[]byte{0x20, 0}, i32c(1), []byte{0x6b, 0x22, 0, 0x0d, 0, 0x0b, 0x0b})
	mod := tmod(tsec(1, tvec([]byte{0x60, 0, 0})), tsec(3, tvec(tleb(0))), tsec(5, tvec([]byte{0, 1})),
		tsec(7, tvec(tcat(tname("run"), []byte{0, 0}))), tsec(10, tvec(tcat(tleb(uint64(len(code))), code))))
	inst, err := Calls(mod)
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []struct {
		name string
		wasm []byte
	}{{"raw", mod}, {"instrumented", inst}} {
		b.Run(m.name, func(b *testing.B) {
			cm, err := rt.CompileModule(ctx, m.wasm)
			if err != nil {
				b.Fatal(err)
			}
			mod, err := rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(""))
			if err != nil {
				b.Fatal(err)
			}
			defer mod.Close(ctx)
			run := mod.ExportedFunction("run")
			for b.Loop() {
				if _, err := run.Call(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A module without linear memory is interruptible too, and cannot stall the garbage collector:
// $slow's trip into Go is memory.grow 0, so the rewrite gives such a module a memory of its
// own (0 pages, at most 0) that the guest cannot name. Before that, a loop in a memory-less
// module never entered Go, and the next collection's stop-the-world waited for it forever —
// the watchdog that would set $flag was stopped too. The child process runs the loop and a
// collection; a freeze can only be seen from outside, so the parent waits for it (the bound
// is for a hang, not a measurement).
func TestMemorylessLoopDoesNotStallGC(t *testing.T) {
	if os.Getenv("MCPWASM_TEST_MEMORYLESS_CHILD") == "1" {
		memorylessLoopChild(t)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestMemorylessLoopDoesNotStallGC$", "-test.v")
	cmd.Env = append(os.Environ(), "MCPWASM_TEST_MEMORYLESS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the process froze: a loop in a module without memory stalled the garbage collector\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "interrupted after a collection") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func memorylessLoopChild(t *testing.T) {
	ctx := context.Background()
	mod := tmod(
		tsec(1, tvec([]byte{0x60, 0, 0})), // type 0: [] -> []
		tsec(2, tvec(tcat(tname("env"), tname("entered"), []byte{0x00, 0}))),
		tsec(3, tvec([]byte{0})),
		tsec(7, tvec(tcat(tname("loop"), []byte{0x00, 1}))),
		tsec(10, tvec(tbody([]byte{0x10, 0}, []byte{0x03, 0x40, 0x0c, 0x00, 0x0b}))), // call entered; loop br 0 end
	)
	out, err := Calls(mod)
	if err != nil {
		t.Fatal(err)
	}
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	entered := make(chan struct{})
	if _, err := r.NewHostModuleBuilder("env").NewFunctionBuilder().
		WithFunc(func(context.Context) { close(entered) }).Export("entered").Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := r.Instantiate(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := m.ExportedFunction("loop").Call(ctx); done <- err }()
	<-entered
	goruntime.GC() // stops the world: waits for the looping goroutine to reach Go
	m.ExportedGlobal(ExportInterrupt).(api.MutableGlobal).Set(1)
	if err := <-done; err == nil {
		t.Fatal("the loop returned without a trap")
	}
	fmt.Println("interrupted after a collection")
}
