package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Why rewrite modules at all: see RATIONALE.md, "Why rewrite function bodies: fuel checks,
// not WithCloseOnContextDone?" and "Hardening 3: the rewriter".
//
// instrumentCalls gives the module three mutable i32 globals of its own, $fuel, $flag and
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
// When $fuel runs out, $slow refills it with fuelInterval, makes one trip into Go (memory.grow
// 0, which wazero serves in Go: a point where the goroutine can be preempted, so a runaway
// guest cannot stall the Go scheduler or the garbage collector's stop-the-world), and traps
// (unreachable) if the host has set $flag. The host sets $flag, exported as
// abi.ExportInterrupt, on the deadline, cancellation, Host.Stop or Guest.Close (epoch.go).
// A start section is dropped and its function exported as abi.ExportStart, so the host runs
// it itself, under the same interruption, after instantiation.
//
// The host's globals, function and type are appended to the module's index spaces, so the
// module must not name any index past its own: before the rewrite, such a reference is
// invalid and wazero would refuse it; after it, it would reach the host's counter (a guest
// writing $fuel never stops). The rewrite refuses every such reference, in code and in every
// section (errUndefinedIndex).

// fuelInterval is how much work (in units of fuel: about one instruction, or 16 bytes of a
// bulk operation) runs between two trips into Go and two looks at $flag: 2^18 units, well
// under a millisecond of guest time.
const fuelInterval = 1 << 18

// Reserved export names; a guest must not define them (ABI.md §2).
const (
	exportInterrupt = "mcpwasm_interrupt"
	exportStart     = "mcpwasm_start"
)

const (
	sectionCustom   = 0
	sectionType     = 1
	sectionImport   = 2
	sectionFunction = 3
	sectionTable    = 4
	sectionMemory   = 5
	sectionGlobal   = 6
	sectionExport   = 7
	sectionStart    = 8
	sectionElement  = 9
	sectionCode     = 10
	sectionData     = 11
	sectionTag      = 13
	sectionDataCnt  = 12
)

var errMalformed = errors.New("malformed module")

// errReserved: the guest defines an export name the host reserves.
var errReserved = errors.New("reserved export name")

// sectionRank orders the known sections as the binary format requires.
func sectionRank(id byte) int {
	switch id {
	case sectionTag:
		return 6
	case 6, 7, 8, 9:
		return int(id) + 1
	case sectionDataCnt:
		return 11
	case 10, 11:
		return int(id) + 2
	}
	return int(id)
}

// instrumentCalls returns a copy of the binary module wasm with the interruption checks
// described above. Custom sections named .debug_* are dropped, since their code offsets would
// no longer match. A module that names an index past its own is refused (errUndefinedIndex),
// as is one with an instruction the decoder does not know.
func instrumentCalls(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, fmt.Errorf("%w: no wasm header", errMalformed)
	}
	type section struct {
		id   byte
		body []byte
	}
	var secs []section
	mi := moduleInfo{sections: map[byte][]byte{}}
	for r := wasm[8:]; len(r) > 0; {
		id := r[0]
		size, n, err := readU32(r[1:])
		if err != nil {
			return nil, fmt.Errorf("%w: section %d size: %v", errMalformed, id, err)
		}
		start := 1 + n
		if uint64(start)+uint64(size) > uint64(len(r)) {
			return nil, fmt.Errorf("%w: section %d overruns the module", errMalformed, id)
		}
		body := r[start : start+int(size)]
		r = r[start+int(size):]
		if id == sectionCustom {
			// A name that is not UTF-8 makes the module invalid; keep the section so that
			// dropping it does not make the module valid.
			if name, _, err := readName(body); err == nil && strings.HasPrefix(name, ".debug_") && utf8.ValidString(name) {
				continue
			}
		} else {
			if _, dup := mi.sections[id]; dup {
				return nil, fmt.Errorf("%w: section %d repeated", errMalformed, id)
			}
			mi.sections[id] = body
		}
		secs = append(secs, section{id, body})
	}
	if err := mi.scan(); err != nil {
		return nil, err
	}
	g0 := mi.importGlobals + mi.globals
	rw := rewriter{mi: &mi, fuel: g0, flag: g0 + 1, size: g0 + 2, slow: mi.importFuncs + mi.funcs}

	// The sections to add or replace, by id.
	repl := map[byte][]byte{}
	repl[sectionType] = appendVec(mi.sections[sectionType], []byte{0x60, 0x00, 0x00}) // $slow's, mi.types
	repl[sectionFunction] = appendVec(mi.sections[sectionFunction], binary.AppendUvarint(nil, uint64(mi.types)))
	g := []byte{0x7f, 0x01, 0x41} // $fuel, $flag, $size
	g = appendS32(g, fuelInterval)
	g = append(g, 0x0b, 0x7f, 0x01, 0x41, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0x00, 0x0b)
	repl[sectionGlobal] = appendVecN(mi.sections[sectionGlobal], g, 3)
	code, err := rw.code(mi.sections[sectionCode])
	if err != nil {
		return nil, err
	}
	exp := appendExport(nil, exportInterrupt, 0x03, rw.flag)
	nexp := 1
	if mi.hasStart {
		exp = appendExport(exp, exportStart, 0x00, mi.start)
		nexp++
	}
	exp, nexp = rw.snapshotExports(exp, nexp) // snapshot.go
	repl[sectionExport] = appendVecN(mi.sections[sectionExport], exp, nexp)
	if _, counted := mi.sections[sectionDataCnt]; !counted {
		if d, ok := mergeData(mi.sections[sectionData]); ok { // datamerge.go
			repl[sectionData] = d
		}
	}
	repl[sectionCode] = appendVec(code, rw.slowBody())
	// $slow's trip into Go is memory.grow 0: a module without a memory gets one of its own,
	// 0 pages at most, which it cannot name (a reference past its own indexes is refused).
	// Without it, a loop in such a module never entered Go and stalled the garbage collector.
	added := []byte{sectionType, sectionFunction, sectionGlobal, sectionExport, sectionCode}
	if mi.memory == 0 {
		repl[sectionMemory] = appendVec(mi.sections[sectionMemory], []byte{0x01, 0x00, 0x00}) // limits min 0, max 0
		added = []byte{sectionType, sectionFunction, sectionMemory, sectionGlobal, sectionExport, sectionCode}
	}

	out := make([]byte, 0, len(wasm)+len(wasm)/8+256)
	out = append(out, wasm[:8]...)
	emit := func(id byte, body []byte) []byte {
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		return append(out, body...)
	}
	// Sections that did not exist are added before the first section that must follow them.
	flush := func(before int) {
		for len(added) > 0 && sectionRank(added[0]) < before {
			if _, ok := mi.sections[added[0]]; !ok {
				out = emit(added[0], repl[added[0]])
			}
			added = added[1:]
		}
	}
	for _, s := range secs {
		if s.id == sectionCustom {
			out = emit(s.id, s.body)
			continue
		}
		flush(sectionRank(s.id))
		switch {
		case s.id == sectionStart:
			continue // exported as exportStart instead
		case repl[s.id] != nil:
			out = emit(s.id, repl[s.id])
		default:
			out = emit(s.id, s.body)
		}
	}
	flush(1 << 30)
	return out, nil
}

// rewriter rewrites the code section for instrumentCalls.
type rewriter struct {
	mi                     *moduleInfo
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
	b = binary.AppendUvarint(b, uint64(rw.fuel))
	b = append(b, 0x41) // i32.const N (5 bytes, patched)
	at := len(b)
	b = append(b, 0x80, 0x80, 0x80, 0x80, 0x00, 0x6b, 0x24) // i32.sub, global.set $fuel
	b = binary.AppendUvarint(b, uint64(rw.fuel))
	b = append(b, 0x23) // global.get $fuel
	b = binary.AppendUvarint(b, uint64(rw.fuel))
	b = append(b, 0x41, 0x00, 0x48, 0x04, 0x40, 0x10) // i32.const 0, i32.lt_s, if, call $slow
	b = binary.AppendUvarint(b, uint64(rw.slow))
	return append(b, 0x0b), at // end
}

// patchCharge writes n, clamped to [1, fuelInterval], as the 5-byte LEB128 at b[at:].
func patchCharge(b []byte, at, n int) {
	n = min(max(n, 1), fuelInterval)
	for k := range 4 {
		b[at+k] = byte(n>>(7*k))&0x7f | 0x80
	}
	b[at+4] = byte(n >> 28)
}

// appendCharge appends the charge of a bulk operation, its size (on the stack) >> shift. The
// shift is at least 1, so the charge is below 2^31 and $fuel (at most fuelInterval) cannot
// wrap around.
func (rw *rewriter) appendCharge(b []byte, shift uint8) []byte {
	b = append(b, 0x24) // global.set $size
	b = binary.AppendUvarint(b, uint64(rw.size))
	b = append(b, 0x23) // global.get $fuel
	b = binary.AppendUvarint(b, uint64(rw.fuel))
	b = append(b, 0x23) // global.get $size
	b = binary.AppendUvarint(b, uint64(rw.size))
	b = append(b, 0x41, shift, 0x76, 0x6b, 0x24) // i32.const shift, i32.shr_u, i32.sub, global.set $fuel
	b = binary.AppendUvarint(b, uint64(rw.fuel))
	b = append(b, 0x23) // global.get $fuel
	b = binary.AppendUvarint(b, uint64(rw.fuel))
	b = append(b, 0x41, 0x00, 0x48, 0x04, 0x40, 0x10) // i32.const 0, i32.lt_s, if, call $slow
	b = binary.AppendUvarint(b, uint64(rw.slow))
	b = append(b, 0x0b, 0x23) // end, global.get $size
	return binary.AppendUvarint(b, uint64(rw.size))
}

// slowBody is $slow: refill $fuel, visit Go, trap if $flag is set.
func (rw *rewriter) slowBody() []byte {
	b := []byte{0x00, 0x41} // no locals; i32.const fuelInterval
	b = appendS32(b, fuelInterval)
	b = append(b, 0x24) // global.set $fuel
	b = binary.AppendUvarint(b, uint64(rw.fuel))
	b = append(b, 0x41, 0x00, 0x40, 0x00, 0x1a) // i32.const 0, memory.grow 0, drop
	b = append(b, 0x23)                         // global.get $flag
	b = binary.AppendUvarint(b, uint64(rw.flag))
	b = append(b, 0x04, 0x40, 0x00, 0x0b, 0x0b)                    // if, unreachable, end; end
	return append(binary.AppendUvarint(nil, uint64(len(b))), b...) // size-prefixed
}

// appendS32 appends v as a signed LEB128 (the encoding of i32.const).
func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendExport(b []byte, name string, kind byte, idx uint32) []byte {
	b = binary.AppendUvarint(b, uint64(len(name)))
	b = append(b, name...)
	b = append(b, kind)
	return binary.AppendUvarint(b, uint64(idx))
}

// appendVec returns the vector section sec (count, items) with one more item appended.
func appendVec(sec, item []byte) []byte { return appendVecN(sec, item, 1) }

// appendVecN returns the vector section sec with n more items, encoded in items, appended.
// A nil sec is an empty vector.
func appendVecN(sec, items []byte, n int) []byte {
	var count uint32
	var rest []byte
	if len(sec) > 0 {
		c, l, err := readU32(sec)
		if err == nil {
			count, rest = c, sec[l:]
		}
	}
	out := binary.AppendUvarint(make([]byte, 0, len(sec)+len(items)+5), uint64(count)+uint64(n))
	out = append(out, rest...)
	return append(out, items...)
}

// skipLocals returns the offset just past a function body's local declarations:
// vec(n:u32 type:valtype).
func skipLocals(body []byte) (int, error) { return readLocals(body, nil) }

// readLocals is skipLocals, calling check (if not nil) on every type index a local's type
// names.
func readLocals(body []byte, check func(ref) error) (int, error) {
	groups, off, err := readU32(body)
	if err != nil {
		return 0, err
	}
	for range groups {
		_, n, err := readU32(body[min(off, len(body)):])
		if err != nil {
			return 0, err
		}
		next, r, nrefs, err := readValType(body, off+n)
		if err != nil {
			return 0, fmt.Errorf("local: %w", err)
		}
		if nrefs > 0 && check != nil {
			if err := check(r); err != nil {
				return 0, err
			}
		}
		off = next
	}
	return off, nil
}

func readName(b []byte) (string, int, error) {
	l, n, err := readU32(b)
	if err != nil || uint64(n)+uint64(l) > uint64(len(b)) {
		return "", 0, errMalformed
	}
	return string(b[n : n+int(l)]), n + int(l), nil
}

// readU32 decodes an unsigned LEB128 of at most 5 bytes (the wasm u32 encoding).
func readU32(b []byte) (uint32, int, error) {
	var v uint64
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			return 0, 0, errors.New("truncated LEB128")
		}
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if v > 1<<32-1 {
				return 0, 0, errors.New("LEB128 overflows u32")
			}
			return uint32(v), i + 1, nil
		}
	}
	return 0, 0, errors.New("LEB128 longer than 5 bytes")
}

// readLEB skips a LEB128 (signed or unsigned) of at most max bytes and returns its low bits.
func readLEB(b []byte, max int) (uint64, int, error) {
	var v uint64
	for i := 0; i < max; i++ {
		if i >= len(b) {
			return 0, 0, errors.New("truncated LEB128")
		}
		if i < 10 {
			v |= uint64(b[i]&0x7f) << (7 * i)
		}
		if b[i]&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errors.New("LEB128 too long")
}
