// Package instrument owns the rewrite every guest module goes through before it compiles
// (Calls, Module): the fuel checks at function entries and loop headers that let the host
// interrupt a call (the $fuel, $flag and $size globals and $slow), the charges before bulk
// operations, the start section turned into an export, the snapshot exports
// (ExportSnapshot, ExportGlobalPrefix) and the merge of a module's data segments. It reads
// and writes bytes only: it may import runtime/internal/wasm and the standard library,
// nothing else of ours (no wazero). The runtime root reads the names it exports.
package instrument

import (
	"errors"
	"fmt"

	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// Why rewrite modules at all: see RATIONALE.md, "Why rewrite function bodies: fuel checks,
// not WithCloseOnContextDone?" and "Hardening 3: the rewriter".
//
// Calls gives the module three mutable i32 globals of its own, $fuel, $flag and
// $size, and a function $slow, and puts a check at every function entry and every loop
// header:
//
//	global.get $fuel  i32.const N  i32.sub  global.set $fuel
//	global.get $fuel  i32.const 0  i32.lt_s  if  call $slow  end
//
// N is the number of instructions of the function body or loop body the check heads, not
// counting nested loops (which have their own check): an upper bound of what runs before the
// next check. Before every bulk operation (memory.fill, copy, init; table.fill, copy, init),
// whose last operand is its size, it puts a charge of that size shifted right by s:
//
//	global.set $size
//	global.get $fuel  global.get $size  i32.const s  i32.shr_u  i32.sub  global.set $fuel
//	global.get $fuel  i32.const 0  i32.lt_s  if  call $slow  end
//	global.get $size
//
// So $fuel counts work, about one unit per instruction or per 16 bytes moved, whatever the
// loop looks like.
//
// When $fuel runs out, $slow refills it with FuelInterval, makes one trip into Go (memory.grow
// 0, which wazero serves in Go: a point where the goroutine can be preempted, so a runaway
// guest cannot stall the Go scheduler or the garbage collector's stop-the-world), and traps
// (unreachable) if the host has set $flag. The host sets $flag, exported as
// abi.ExportInterrupt, on the deadline, cancellation, Host.Stop or Guest.Close (runtime/internal/watchdog).
// A start section is dropped and its function exported as abi.ExportStart, so the host runs
// it itself, under the same interruption, after instantiation.
//
// The host's globals, function and type are appended to the module's index spaces, so the
// module must not name any index past its own: before the rewrite, such a reference is
// invalid and wazero would refuse it; after it, it would reach the host's counter (a guest
// writing $fuel never stops). The rewrite refuses every such reference, in code and in every
// section (errUndefinedIndex).

// FuelInterval is how much work (in units of fuel: about one instruction, or 16 bytes of a
// bulk operation) runs between two trips into Go and two looks at $flag: 2^18 units, well
// under a millisecond of guest time.
const FuelInterval = 1 << 18

// Version names this rewrite for the host's cache of rewritten modules (runtime's
// rewritecache.go): a change to what Module writes for the same input must increment it, so
// that no process reads back a module rewritten the old way.
const Version = 1

// ScriptSectionPrefix names the custom sections a kind reads from its guest's module in Start
// (kind.Instance.Custom): a JavaScript guest's script ("mcpwasm.js") and its bytecode
// ("mcpwasm.jsbc"). Calls drops them and the guest keeps them (runtime's Guest.customs), so
// JavaScript guests, which differ only there, share one compiled engine in memory and in the
// compilation cache.
const ScriptSectionPrefix = "mcpwasm.js"

// Reserved export names; a guest must not define them (ABI.md §2).
const (
	ExportInterrupt = "mcpwasm_interrupt"
	ExportStart     = "mcpwasm_start"
)

// errMalformed is wrapped by errors about bytes that are not a module (the wasm package's
// ErrMalformed: "malformed module").
var errMalformed = wasm.ErrMalformed

// errUndefinedIndex: the module names an index it does not define (wasm.ErrUndefinedIndex).
var errUndefinedIndex = wasm.ErrUndefinedIndex

// errUnknownInstr: an instruction the decoder does not know (wasm.ErrUnknownInstr).
var errUnknownInstr = wasm.ErrUnknownInstr

// ErrReserved: the guest defines an export name the host reserves.
var ErrReserved = errors.New("reserved export name")

// reservedExport refuses the export names the host reserves.
func reservedExport(name string) error {
	if name == ExportInterrupt || name == ExportStart || IsSnapshotExport(name) {
		return fmt.Errorf("%w: the module exports %s, which the host reserves (ABI.md §2)", ErrReserved, name)
	}
	return nil
}

// Calls returns a copy of the binary module b with the interruption checks
// described above. Custom sections named .debug_* are dropped, since their code offsets would
// no longer match, and so are a guest's script sections (ScriptSectionPrefix). A module that names an index past its own is refused (errUndefinedIndex),
// as is one with an instruction the decoder does not know.
func Calls(b []byte) ([]byte, error) {
	m, err := wasm.Parse(b)
	if err != nil {
		return nil, err
	}
	return Module(m, nil)
}

// Module is Calls of a parsed module, with the table section replaced by tables unless nil
// (the bound of loadcheck.Module.Tables), in the same rewrite.
func Module(m *wasm.Module, tables []byte) ([]byte, error) {
	mi, err := m.Index(reservedExport)
	if err != nil {
		return nil, err
	}
	g0 := mi.ImportGlobals + mi.Globals
	rw := rewriter{mi: mi, fuel: g0, flag: g0 + 1, size: g0 + 2, slow: mi.ImportFuncs + mi.Funcs}
	r := wasm.NewRewriter(m)
	if tables != nil { // same count of tables, lower maximums: the index above stands
		r.Replace(wasm.SectionTable, tables)
	}
	r.DropCustom(".debug_")
	r.DropCustom(ScriptSectionPrefix)                       // the guest keeps them (runtime/internal/engine/kinds.go)
	r.Append(wasm.SectionType, 1, []byte{0x60, 0x00, 0x00}) // $slow's: type mi.Types
	r.Append(wasm.SectionFunction, 1, wasm.AppendU32(nil, mi.Types))
	g := []byte{0x7f, 0x01, 0x41} // $fuel, $flag, $size
	g = wasm.AppendS32(g, FuelInterval)
	g = append(g, 0x0b, 0x7f, 0x01, 0x41, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0x00, 0x0b)
	r.Append(wasm.SectionGlobal, 3, g)
	if err := r.RewriteBodies(func(i uint32, body, out []byte) ([]byte, error) {
		return rw.body(out, body, mi.ImportFuncs+i)
	}); err != nil {
		return nil, err
	}
	exp := appendExport(nil, ExportInterrupt, wasm.KindGlobal, rw.flag)
	nexp := 1
	if mi.HasStart { // exported as ExportStart instead
		exp = appendExport(exp, ExportStart, wasm.KindFunc, mi.Start)
		nexp++
		r.Drop(wasm.SectionStart)
	}
	exp, nexp = rw.snapshotExports(exp, nexp) // after the bodies: they say whether (snapshot.go)
	r.Append(wasm.SectionExport, nexp, exp)
	if _, counted := m.Section(wasm.SectionDataCount); !counted {
		if sec, ok := m.Section(wasm.SectionData); ok {
			if d, ok := mergeData(sec); ok { // datamerge.go
				r.Replace(wasm.SectionData, d)
			}
		}
	}
	r.Append(wasm.SectionCode, 1, rw.slowBody())
	// $slow's trip into Go is memory.grow 0: a module without a memory gets one of its own,
	// 0 pages at most, which it cannot name (a reference past its own indexes is refused).
	// Without it, a loop in such a module never entered Go and stalled the garbage collector.
	if mi.Memories == 0 {
		r.Append(wasm.SectionMemory, 1, []byte{0x01, 0x00, 0x00}) // limits min 0, max 0
	}
	return r.Bytes()
}

// rewriter rewrites the code section for Calls.
type rewriter struct {
	mi                     *wasm.Index
	fuel, flag, size, slow uint32 // the host's globals and function

	// Scratch, reused across function bodies.
	regions []region // the open check regions: the function body, then each open loop
	loops   []bool   // the open blocks: whether each is a loop

	// stateOp names the first instruction seen that changes a table or drops a segment
	// (snapshot.go: such a module is not snapshotted); "" if none.
	stateOp string
}

// region is the code one check pays for: where its charge is in the output, and how many
// instructions it has counted so far.
type region struct {
	at, n int
}

// appendCheck appends the check run at function entries and loop headers, with a charge of
// 0 to be patched (patchCharge) once the region's length is known, and returns the charge's
// offset.
func (rw *rewriter) appendCheck(b []byte) ([]byte, int) {
	b = append(b, 0x23) // global.get $fuel
	b = wasm.AppendU32(b, rw.fuel)
	b = append(b, 0x41) // i32.const N (5 bytes, patched)
	at := len(b)
	b = append(b, 0x80, 0x80, 0x80, 0x80, 0x00, 0x6b, 0x24) // i32.sub, global.set $fuel
	b = wasm.AppendU32(b, rw.fuel)
	b = append(b, 0x23) // global.get $fuel
	b = wasm.AppendU32(b, rw.fuel)
	b = append(b, 0x41, 0x00, 0x48, 0x04, 0x40, 0x10) // i32.const 0, i32.lt_s, if, call $slow
	b = wasm.AppendU32(b, rw.slow)
	return append(b, 0x0b), at // end
}

// patchCharge writes n, clamped to [1, FuelInterval], as the 5-byte LEB128 at b[at:].
func patchCharge(b []byte, at, n int) {
	n = min(max(n, 1), FuelInterval)
	for k := range 4 {
		b[at+k] = byte(n>>(7*k))&0x7f | 0x80
	}
	b[at+4] = byte(n >> 28)
}

// appendCharge appends the charge of a bulk operation, its size (on the stack) >> shift. The
// shift is at least 1, so the charge is below 2^31 and $fuel (at most FuelInterval) cannot
// wrap around.
func (rw *rewriter) appendCharge(b []byte, shift uint8) []byte {
	b = append(b, 0x24) // global.set $size
	b = wasm.AppendU32(b, rw.size)
	b = append(b, 0x23) // global.get $fuel
	b = wasm.AppendU32(b, rw.fuel)
	b = append(b, 0x23) // global.get $size
	b = wasm.AppendU32(b, rw.size)
	b = append(b, 0x41, shift, 0x76, 0x6b, 0x24) // i32.const shift, i32.shr_u, i32.sub, global.set $fuel
	b = wasm.AppendU32(b, rw.fuel)
	b = append(b, 0x23) // global.get $fuel
	b = wasm.AppendU32(b, rw.fuel)
	b = append(b, 0x41, 0x00, 0x48, 0x04, 0x40, 0x10) // i32.const 0, i32.lt_s, if, call $slow
	b = wasm.AppendU32(b, rw.slow)
	b = append(b, 0x0b, 0x23) // end, global.get $size
	return wasm.AppendU32(b, rw.size)
}

// slowBody is $slow: refill $fuel, visit Go, trap if $flag is set.
func (rw *rewriter) slowBody() []byte {
	b := []byte{0x00, 0x41} // no locals; i32.const FuelInterval
	b = wasm.AppendS32(b, FuelInterval)
	b = append(b, 0x24) // global.set $fuel
	b = wasm.AppendU32(b, rw.fuel)
	b = append(b, 0x41, 0x00, 0x40, 0x00, 0x1a) // i32.const 0, memory.grow 0, drop
	b = append(b, 0x23)                         // global.get $flag
	b = wasm.AppendU32(b, rw.flag)
	b = append(b, 0x04, 0x40, 0x00, 0x0b, 0x0b)              // if, unreachable, end; end
	return append(wasm.AppendU32(nil, uint32(len(b))), b...) // size-prefixed
}

// appendExport appends an export entry: name, kind, index.
func appendExport(b []byte, name string, kind byte, idx uint32) []byte {
	b = wasm.AppendName(b, name)
	b = append(b, kind)
	return wasm.AppendU32(b, idx)
}
