package runtime

import (
	"errors"
	"fmt"
	"strings"
)

// The one decoder of WebAssembly instructions in the host. The rewrite (instrumentLoops,
// interrupt.go) and the nesting cap (bodyNesting, loadcaps.go) both read code through
// decodeInstr, so they cannot disagree on where an instruction ends: a disagreement would let
// one of them read immediates as instructions (RATIONALE.md, "Hardening 3: the rewriter").
//
// It knows every instruction of the features wazero enables by default (WebAssembly 2.0:
// MVP, sign extension, saturating truncation, bulk memory, reference types, multi-value,
// SIMD), plus threads and tail calls, which wazero refuses later on its own; anything else
// (relaxed SIMD, exceptions, GC, typed function references, ...) is an error, never skipped.

// space is an index space an immediate names.
type space uint8

const (
	spaceNone space = iota // labels, locals, lanes, data and element segments: left to wazero
	spaceType
	spaceFunc
	spaceTable
	spaceMemory
	spaceGlobal
)

var spaceNames = [...]string{spaceNone: "index", spaceType: "type", spaceFunc: "function",
	spaceTable: "table", spaceMemory: "memory", spaceGlobal: "global"}

func (s space) String() string { return spaceNames[s] }

// imm is the shape of an instruction's immediates.
type imm uint8

const (
	immUnknown      imm = iota // not an instruction we know: refused
	immNone                    // no immediates
	immBlock                   // block type: 0x40, a value type, or a type index (s33)
	immLabel                   // u32 (br, br_if; local.get, local.set, local.tee)
	immBrTable                 // vec(label) label
	immFunc                    // funcidx
	immCallIndirect            // typeidx tableidx
	immGlobal                  // globalidx
	immTable                   // tableidx
	immMemarg                  // align (bit 6: a memidx follows), offset
	immMemory                  // memidx
	immI32                     // s32
	immI64                     // s64
	immF32                     // 4 bytes
	immF64                     // 8 bytes
	immSelectT                 // vec(valtype)
	immRefType                 // ref.null: funcref or externref
	immData                    // dataidx
	immMemInit                 // dataidx memidx
	immMemCopy                 // memidx memidx
	immElem                    // elemidx
	immTableInit               // elemidx tableidx
	immTableCopy               // tableidx tableidx
	immV128                    // 16 bytes (v128.const, i8x16.shuffle)
	immLane                    // one lane byte
	immMemargLane              // memarg, then a lane byte
	immZeroByte                // atomic.fence: one 0x00 byte
)

// opInfo describes one instruction.
type opInfo struct {
	name string // set for the instructions that name an index (error messages)
	imm  imm
	// bulk is set on the bulk operations whose last operand is a size (memory.fill, copy,
	// init; table.fill, copy, init): how many bits to shift the size right to charge it as
	// fuel (interrupt.go).
	bulk uint8
}

// The charge of a bulk operation: one unit of fuel per 16 bytes moved (about what one
// instruction costs); a table element is 8 bytes in wazero.
const (
	bulkBytesShift = 4
	bulkElemsShift = 1
)

// ref is an index an instruction names.
type ref struct {
	space space
	idx   uint32
}

// instr is one decoded instruction.
type instr struct {
	op    byte   // the first byte
	sub   uint32 // the sub-opcode of a prefixed instruction (0xfc, 0xfd, 0xfe)
	info  *opInfo
	refs  [2]ref
	nrefs int
}

// name names the instruction for an error message.
func (in *instr) name() string {
	switch {
	case in.info != nil && in.info.name != "":
		return in.info.name
	case in.op >= 0xfc:
		return fmt.Sprintf("instruction %#x %d", in.op, in.sub)
	}
	return fmt.Sprintf("instruction %#x", in.op)
}

func (in *instr) addRef(s space, idx uint32) {
	in.refs[in.nrefs] = ref{s, idx}
	in.nrefs++
}

var (
	ops   = buildOps()   // one-byte opcodes
	fcOps = buildFCOps() // 0xfc prefix
	fdOps = buildFDOps() // 0xfd prefix (SIMD)
	feOps = buildFEOps() // 0xfe prefix (threads)
)

func setRange(t []opInfo, lo, hi int, imm imm) {
	for op := lo; op <= hi; op++ {
		t[op].imm = imm
	}
}

func buildOps() *[256]opInfo {
	var t [256]opInfo
	for _, op := range []int{0x00, 0x01, 0x05, 0x0b, 0x0f, 0x1a, 0x1b, 0xd1} {
		t[op].imm = immNone // unreachable, nop, else, end, return, drop, select, ref.is_null
	}
	setRange(t[:], 0x45, 0xc4, immNone) // numeric
	t[0x02] = opInfo{name: "block", imm: immBlock}
	t[0x03] = opInfo{name: "loop", imm: immBlock}
	t[0x04] = opInfo{name: "if", imm: immBlock}
	t[0x0c].imm, t[0x0d].imm = immLabel, immLabel // br, br_if
	t[0x0e].imm = immBrTable
	t[0x10] = opInfo{name: "call", imm: immFunc}
	t[0x11] = opInfo{name: "call_indirect", imm: immCallIndirect}
	t[0x12] = opInfo{name: "return_call", imm: immFunc}
	t[0x13] = opInfo{name: "return_call_indirect", imm: immCallIndirect}
	t[0x1c] = opInfo{name: "select", imm: immSelectT}
	setRange(t[:], 0x20, 0x22, immLabel) // local.get, local.set, local.tee
	t[0x23] = opInfo{name: "global.get", imm: immGlobal}
	t[0x24] = opInfo{name: "global.set", imm: immGlobal}
	t[0x25] = opInfo{name: "table.get", imm: immTable}
	t[0x26] = opInfo{name: "table.set", imm: immTable}
	for op := 0x28; op <= 0x3e; op++ {
		t[op] = opInfo{name: "load or store", imm: immMemarg}
	}
	t[0x3f] = opInfo{name: "memory.size", imm: immMemory}
	t[0x40] = opInfo{name: "memory.grow", imm: immMemory}
	t[0x41].imm, t[0x42].imm, t[0x43].imm, t[0x44].imm = immI32, immI64, immF32, immF64
	t[0xd0].imm = immRefType // ref.null
	t[0xd2] = opInfo{name: "ref.func", imm: immFunc}
	return &t
}

func buildFCOps() *[18]opInfo {
	var t [18]opInfo
	setRange(t[:], 0, 7, immNone) // saturating truncation
	t[8] = opInfo{name: "memory.init", imm: immMemInit, bulk: bulkBytesShift}
	t[9] = opInfo{name: "data.drop", imm: immData}
	t[10] = opInfo{name: "memory.copy", imm: immMemCopy, bulk: bulkBytesShift}
	t[11] = opInfo{name: "memory.fill", imm: immMemory, bulk: bulkBytesShift}
	t[12] = opInfo{name: "table.init", imm: immTableInit, bulk: bulkElemsShift}
	t[13] = opInfo{name: "elem.drop", imm: immElem}
	t[14] = opInfo{name: "table.copy", imm: immTableCopy, bulk: bulkElemsShift}
	t[15] = opInfo{name: "table.grow", imm: immTable}
	t[16] = opInfo{name: "table.size", imm: immTable}
	t[17] = opInfo{name: "table.fill", imm: immTable, bulk: bulkElemsShift}
	return &t
}

func buildFDOps() *[0x100]opInfo {
	var t [0x100]opInfo
	setRange(t[:], 0x00, 0xff, immNone)
	for op := 0x00; op <= 0x0b; op++ { // v128 loads and store
		t[op] = opInfo{name: "v128 load or store", imm: immMemarg}
	}
	t[0x0c].imm, t[0x0d].imm = immV128, immV128 // v128.const, i8x16.shuffle
	setRange(t[:], 0x15, 0x22, immLane)         // extract_lane, replace_lane
	for op := 0x54; op <= 0x5b; op++ {          // load_lane, store_lane
		t[op] = opInfo{name: "v128 lane load or store", imm: immMemargLane}
	}
	t[0x5c] = opInfo{name: "v128.load32_zero", imm: immMemarg}
	t[0x5d] = opInfo{name: "v128.load64_zero", imm: immMemarg}
	// Opcodes the SIMD proposal leaves unassigned.
	for _, op := range []int{0x9a, 0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2,
		0xc5, 0xc6, 0xcf, 0xd0, 0xd2, 0xd3, 0xd4, 0xe2, 0xee} {
		t[op].imm = immUnknown
	}
	return &t
}

func buildFEOps() *[0x4f]opInfo {
	var t [0x4f]opInfo
	for _, op := range []int{0x00, 0x01, 0x02} { // memory.atomic.notify, wait32, wait64
		t[op] = opInfo{name: "atomic wait or notify", imm: immMemarg}
	}
	t[0x03].imm = immZeroByte // atomic.fence
	for op := 0x10; op <= 0x4e; op++ {
		t[op] = opInfo{name: "atomic memory access", imm: immMemarg}
	}
	return &t
}

// isValType reports whether b is a one-byte value type: i32, i64, f32, f64, v128, funcref,
// externref, or exnref (which wazero decodes, and refuses later without exceptions).
func isValType(b byte) bool { return b >= 0x7b && b <= 0x7f || b == 0x70 || b == 0x6f || b == 0x69 }

// Abstract heap types, as s33: func (0x70), extern (0x6f), exn (0x69).
const (
	heapFunc   = -16
	heapExtern = -17
	heapExn    = -23
)

// readValType decodes the value type at b[i:] as wazero does: one byte (isValType), or
// (ref null? heaptype) — 0x63 or 0x64, then an abstract heap type or a type index (s33). It
// returns the offset just past it and, for a type index, the index as a ref (nrefs 1).
func readValType(b []byte, i int) (next int, r ref, nrefs int, err error) {
	if i >= len(b) {
		return i, r, 0, errors.New("truncated value type")
	}
	switch c := b[i]; {
	case isValType(c):
		return i + 1, r, 0, nil
	case c == 0x63 || c == 0x64:
		return readHeapType(b, i+1)
	default:
		return i, r, 0, fmt.Errorf("unknown value type %#x", c)
	}
}

// readHeapType decodes a heap type (s33) at b[i:]: abstract, or a type index.
func readHeapType(b []byte, i int) (next int, r ref, nrefs int, err error) {
	v, n, err := readS33(b[min(i, len(b)):])
	switch {
	case err != nil:
		return i, r, 0, err
	case v >= 0:
		return i + n, ref{spaceType, uint32(v)}, 1, nil
	case v == heapFunc || v == heapExtern || v == heapExn:
		return i + n, r, 0, nil
	}
	return i, r, 0, fmt.Errorf("unknown heap type %d", v)
}

var errUnknownInstr = errors.New("unknown instruction")

// decodeInstr decodes the instruction at expr[i:] into in and returns the offset just past it.
func decodeInstr(expr []byte, i int, in *instr) (int, error) {
	if i >= len(expr) {
		return i, errors.New("truncated instruction")
	}
	*in = instr{op: expr[i]}
	i++
	var err error
	u32 := func() uint32 {
		if err != nil {
			return 0
		}
		v, n, e := readU32(expr[min(i, len(expr)):])
		i += n
		err = e
		return v
	}
	skip := func(n int) {
		if err == nil && i+n > len(expr) {
			err = errors.New("truncated immediate")
		}
		i += n
	}
	switch in.op {
	case 0xfc, 0xfd, 0xfe:
		in.sub = u32()
		if err != nil {
			return i, err
		}
		var t []opInfo
		switch in.op {
		case 0xfc:
			t = fcOps[:]
		case 0xfd:
			t = fdOps[:]
		default:
			t = feOps[:]
		}
		if in.sub < uint32(len(t)) {
			in.info = &t[in.sub]
		}
	default:
		in.info = &ops[in.op]
	}
	if in.info == nil || in.info.imm == immUnknown {
		in.info = nil
		return i, fmt.Errorf("%w%s", errUnknownInstr, strings.TrimPrefix(in.name(), "instruction"))
	}
	memarg := func() {
		if align := u32(); align&0x40 != 0 { // multi-memory: a memory index follows
			in.addRef(spaceMemory, u32())
		}
		u32() // offset; a 64-bit offset (memory64) is not a 2.0 feature
	}
	switch in.info.imm {
	case immNone:
	case immBlock: // as wazero decodes it: s33 -64 (none), a value type, or a type index
		v, n, e := readS33(expr[min(i, len(expr)):])
		i += n
		switch {
		case e != nil:
			err = e
		case v >= 0:
			in.addRef(spaceType, uint32(v))
		case v == -29 || v == -28: // 0x63, 0x64: (ref null? heaptype)
			var r ref
			var nr int
			if i, r, nr, err = readHeapType(expr, i); nr > 0 {
				in.addRef(r.space, r.idx)
			}
		case v == -64 || v >= -128 && isValType(byte(v&0x7f)):
		default:
			err = fmt.Errorf("unknown block type %d", v)
		}
	case immLabel, immData, immElem:
		u32()
	case immBrTable:
		n := u32()
		for k := uint64(0); err == nil && k <= uint64(n); k++ {
			u32()
		}
	case immFunc:
		in.addRef(spaceFunc, u32())
	case immCallIndirect:
		in.addRef(spaceType, u32())
		in.addRef(spaceTable, u32())
	case immGlobal:
		in.addRef(spaceGlobal, u32())
	case immTable:
		in.addRef(spaceTable, u32())
	case immMemarg:
		memarg()
	case immMemargLane:
		memarg()
		skip(1)
	case immMemory:
		in.addRef(spaceMemory, u32())
	case immI32:
		_, n, e := readLEB(expr[min(i, len(expr)):], 5)
		i += n
		err = e
	case immI64:
		_, n, e := readLEB(expr[min(i, len(expr)):], 10)
		i += n
		err = e
	case immF32:
		skip(4)
	case immF64:
		skip(8)
	case immSelectT: // vec(valtype), of one value type in every version of the format
		switch n := u32(); {
		case err != nil:
		case n != 1:
			err = fmt.Errorf("%d value types", n)
		default:
			var r ref
			var nr int
			if i, r, nr, err = readValType(expr, i); nr > 0 {
				in.addRef(r.space, r.idx)
			}
		}
	case immRefType: // one byte, as wazero reads it (a type index needs typed function references)
		if i >= len(expr) || expr[i] != 0x70 && expr[i] != 0x6f && expr[i] != 0x69 {
			err = errors.New("unknown reference type")
		}
		i++
	case immMemInit:
		u32()
		in.addRef(spaceMemory, u32())
	case immMemCopy:
		in.addRef(spaceMemory, u32())
		in.addRef(spaceMemory, u32())
	case immTableInit:
		u32()
		in.addRef(spaceTable, u32())
	case immTableCopy:
		in.addRef(spaceTable, u32())
		in.addRef(spaceTable, u32())
	case immV128:
		skip(16)
	case immLane:
		skip(1)
	case immZeroByte:
		if i >= len(expr) || expr[i] != 0 {
			err = errors.New("atomic.fence: reserved byte not zero")
		}
		i++
	}
	if err == nil && i > len(expr) {
		err = errors.New("truncated immediate")
	}
	if err != nil {
		return i, fmt.Errorf("%s: %w", in.name(), err)
	}
	return i, nil
}

// readS33 decodes a signed LEB128 of at most 5 bytes (a block type's type index, or a
// negative one-byte type code).
func readS33(b []byte) (int64, int, error) {
	var v int64
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			return 0, 0, errors.New("truncated LEB128")
		}
		v |= int64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if shift := 7 * (i + 1); b[i]&0x40 != 0 {
				v |= -1 << shift // sign-extend
			}
			if v < -(1<<32) || v >= 1<<32 {
				return 0, 0, errors.New("LEB128 overflows s33")
			}
			return v, i + 1, nil
		}
	}
	return 0, 0, errors.New("LEB128 longer than 5 bytes")
}
