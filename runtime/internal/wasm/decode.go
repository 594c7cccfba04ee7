package wasm

import (
	"errors"
	"fmt"
	"strings"
)

// The one decoder of WebAssembly instructions in the host. The rewrite (the instrumentation)
// and the nesting cap both read code through Decode, so they cannot disagree on where an instruction ends: a disagreement would let
// one of them read immediates as instructions (RATIONALE.md, "Why one decoder of instructions?").
//
// It knows every instruction of the features wazero enables by default (WebAssembly 2.0:
// MVP, sign extension, saturating truncation, bulk memory, reference types, multi-value,
// SIMD), plus threads and tail calls, which wazero refuses later on its own; anything else
// (relaxed SIMD, exceptions, GC, typed function references, ...) is an error, never skipped.

// Space is an index space an immediate names.
type Space uint8

// The index spaces: a rewrite that appends to a module extends the type, function, table,
// memory and global spaces.
const (
	SpaceNone Space = iota // labels, locals, lanes, data and element segments: left to wazero
	SpaceType
	SpaceFunc
	SpaceTable
	SpaceMemory
	SpaceGlobal
)

var spaceNames = [...]string{SpaceNone: "index", SpaceType: "type", SpaceFunc: "function",
	SpaceTable: "table", SpaceMemory: "memory", SpaceGlobal: "global"}

// String names the space for an error message: "function", "global".
func (s Space) String() string { return spaceNames[s] }

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

// OpInfo describes one instruction.
type OpInfo struct {
	Name string // set for the instructions that name an index (error messages)
	Imm  imm
	// Bulk is set on the bulk operations whose last operand is a size (memory.fill, copy,
	// init; table.fill, copy, init): how many bits to shift the size right to charge it as
	// fuel (the instrumentation's charge).
	Bulk uint8
}

// The charge of a bulk operation: one unit of fuel per 16 bytes moved (about what one
// instruction costs); a table element is 8 bytes in wazero.
const (
	BulkBytesShift = 4
	BulkElemsShift = 1
)

// Ref is an index an instruction (or a type, an import, an export, …) names.
type Ref struct {
	Space Space
	Idx   uint32
}

// Instr is one decoded instruction.
type Instr struct {
	Op    byte   // the first byte
	Sub   uint32 // the sub-opcode of a prefixed instruction (0xfc, 0xfd, 0xfe)
	Info  *OpInfo
	Refs  [2]Ref // the indexes it names: Refs[:NRefs]
	NRefs int
}

// Name names the instruction for an error message: "call", "instruction 0xfd 154".
func (in *Instr) Name() string {
	switch {
	case in.Info != nil && in.Info.Name != "":
		return in.Info.Name
	case in.Op >= 0xfc:
		return fmt.Sprintf("instruction %#x %d", in.Op, in.Sub)
	}
	return fmt.Sprintf("instruction %#x", in.Op)
}

func (in *Instr) addRef(s Space, idx uint32) {
	in.Refs[in.NRefs] = Ref{s, idx}
	in.NRefs++
}

var (
	ops   = buildOps()   // one-byte opcodes
	fcOps = buildFCOps() // 0xfc prefix
	fdOps = buildFDOps() // 0xfd prefix (SIMD)
	feOps = buildFEOps() // 0xfe prefix (threads)
)

func setRange(t []OpInfo, lo, hi int, imm imm) {
	for op := lo; op <= hi; op++ {
		t[op].Imm = imm
	}
}

func buildOps() *[256]OpInfo {
	var t [256]OpInfo
	for _, op := range []int{0x00, 0x01, 0x05, 0x0b, 0x0f, 0x1a, 0x1b, 0xd1} {
		t[op].Imm = immNone // unreachable, nop, else, end, return, drop, select, ref.is_null
	}
	setRange(t[:], 0x45, 0xc4, immNone) // numeric
	t[0x02] = OpInfo{Name: "block", Imm: immBlock}
	t[0x03] = OpInfo{Name: "loop", Imm: immBlock}
	t[0x04] = OpInfo{Name: "if", Imm: immBlock}
	t[0x0c].Imm, t[0x0d].Imm = immLabel, immLabel // br, br_if
	t[0x0e].Imm = immBrTable
	t[0x10] = OpInfo{Name: "call", Imm: immFunc}
	t[0x11] = OpInfo{Name: "call_indirect", Imm: immCallIndirect}
	t[0x12] = OpInfo{Name: "return_call", Imm: immFunc}
	t[0x13] = OpInfo{Name: "return_call_indirect", Imm: immCallIndirect}
	t[0x1c] = OpInfo{Name: "select", Imm: immSelectT}
	setRange(t[:], 0x20, 0x22, immLabel) // local.get, local.set, local.tee
	t[0x23] = OpInfo{Name: "global.get", Imm: immGlobal}
	t[0x24] = OpInfo{Name: "global.set", Imm: immGlobal}
	t[0x25] = OpInfo{Name: "table.get", Imm: immTable}
	t[0x26] = OpInfo{Name: "table.set", Imm: immTable}
	for op := 0x28; op <= 0x3e; op++ {
		t[op] = OpInfo{Name: "load or store", Imm: immMemarg}
	}
	t[0x3f] = OpInfo{Name: "memory.size", Imm: immMemory}
	t[0x40] = OpInfo{Name: "memory.grow", Imm: immMemory}
	t[0x41].Imm, t[0x42].Imm, t[0x43].Imm, t[0x44].Imm = immI32, immI64, immF32, immF64
	t[0xd0].Imm = immRefType // ref.null
	t[0xd2] = OpInfo{Name: "ref.func", Imm: immFunc}
	return &t
}

func buildFCOps() *[18]OpInfo {
	var t [18]OpInfo
	setRange(t[:], 0, 7, immNone) // saturating truncation
	t[8] = OpInfo{Name: "memory.init", Imm: immMemInit, Bulk: BulkBytesShift}
	t[9] = OpInfo{Name: "data.drop", Imm: immData}
	t[10] = OpInfo{Name: "memory.copy", Imm: immMemCopy, Bulk: BulkBytesShift}
	t[11] = OpInfo{Name: "memory.fill", Imm: immMemory, Bulk: BulkBytesShift}
	t[12] = OpInfo{Name: "table.init", Imm: immTableInit, Bulk: BulkElemsShift}
	t[13] = OpInfo{Name: "elem.drop", Imm: immElem}
	t[14] = OpInfo{Name: "table.copy", Imm: immTableCopy, Bulk: BulkElemsShift}
	t[15] = OpInfo{Name: "table.grow", Imm: immTable}
	t[16] = OpInfo{Name: "table.size", Imm: immTable}
	t[17] = OpInfo{Name: "table.fill", Imm: immTable, Bulk: BulkElemsShift}
	return &t
}

func buildFDOps() *[0x100]OpInfo {
	var t [0x100]OpInfo
	setRange(t[:], 0x00, 0xff, immNone)
	for op := 0x00; op <= 0x0b; op++ { // v128 loads and store
		t[op] = OpInfo{Name: "v128 load or store", Imm: immMemarg}
	}
	t[0x0c].Imm, t[0x0d].Imm = immV128, immV128 // v128.const, i8x16.shuffle
	setRange(t[:], 0x15, 0x22, immLane)         // extract_lane, replace_lane
	for op := 0x54; op <= 0x5b; op++ {          // load_lane, store_lane
		t[op] = OpInfo{Name: "v128 lane load or store", Imm: immMemargLane}
	}
	t[0x5c] = OpInfo{Name: "v128.load32_zero", Imm: immMemarg}
	t[0x5d] = OpInfo{Name: "v128.load64_zero", Imm: immMemarg}
	// Opcodes the SIMD proposal leaves unassigned.
	for _, op := range []int{0x9a, 0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2,
		0xc5, 0xc6, 0xcf, 0xd0, 0xd2, 0xd3, 0xd4, 0xe2, 0xee} {
		t[op].Imm = immUnknown
	}
	return &t
}

func buildFEOps() *[0x4f]OpInfo {
	var t [0x4f]OpInfo
	for _, op := range []int{0x00, 0x01, 0x02} { // memory.atomic.notify, wait32, wait64
		t[op] = OpInfo{Name: "atomic wait or notify", Imm: immMemarg}
	}
	t[0x03].Imm = immZeroByte // atomic.fence
	for op := 0x10; op <= 0x4e; op++ {
		t[op] = OpInfo{Name: "atomic memory access", Imm: immMemarg}
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

// ValType decodes the value type at b[i:] as wazero does: one byte (isValType), or
// (ref null? heaptype) — 0x63 or 0x64, then an abstract heap type or a type index (s33). It
// returns the offset just past it and, for a type index, the index as a Ref (nrefs 1).
func ValType(b []byte, i int) (next int, r Ref, nrefs int, err error) {
	if i >= len(b) {
		return i, r, 0, errors.New("truncated value type")
	}
	switch c := b[i]; {
	case isValType(c):
		return i + 1, r, 0, nil
	case c == 0x63 || c == 0x64:
		return HeapType(b, i+1)
	default:
		return i, r, 0, fmt.Errorf("unknown value type %#x", c)
	}
}

// HeapType decodes a heap type (s33) at b[i:]: abstract, or a type index.
func HeapType(b []byte, i int) (next int, r Ref, nrefs int, err error) {
	v, n, err := S33(b[min(i, len(b)):])
	switch {
	case err != nil:
		return i, r, 0, err
	case v >= 0:
		return i + n, Ref{SpaceType, uint32(v)}, 1, nil
	case v == heapFunc || v == heapExtern || v == heapExn:
		return i + n, r, 0, nil
	}
	return i, r, 0, fmt.Errorf("unknown heap type %d", v)
}

// ErrUnknownInstr is wrapped by Decode's error for an instruction it does not know (its
// message names the opcode: "unknown instruction 0xfd 154").
var ErrUnknownInstr = errors.New("unknown instruction")

// Decode decodes the instruction at expr[i:] into in and returns the offset just past it.
func Decode(expr []byte, i int, in *Instr) (int, error) {
	if i >= len(expr) {
		return i, errors.New("truncated instruction")
	}
	*in = Instr{Op: expr[i]}
	i++
	var err error
	u32 := func() uint32 {
		if err != nil {
			return 0
		}
		v, n, e := U32(expr[min(i, len(expr)):])
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
	switch in.Op {
	case 0xfc, 0xfd, 0xfe:
		in.Sub = u32()
		if err != nil {
			return i, err
		}
		var t []OpInfo
		switch in.Op {
		case 0xfc:
			t = fcOps[:]
		case 0xfd:
			t = fdOps[:]
		default:
			t = feOps[:]
		}
		if in.Sub < uint32(len(t)) {
			in.Info = &t[in.Sub]
		}
	default:
		in.Info = &ops[in.Op]
	}
	if in.Info == nil || in.Info.Imm == immUnknown {
		in.Info = nil
		return i, fmt.Errorf("%w%s", ErrUnknownInstr, strings.TrimPrefix(in.Name(), "instruction"))
	}
	memarg := func() {
		if align := u32(); align&0x40 != 0 { // multi-memory: a memory index follows
			in.addRef(SpaceMemory, u32())
		}
		u32() // offset; a 64-bit offset (memory64) is not a 2.0 feature
	}
	switch in.Info.Imm {
	case immNone:
	case immBlock: // as wazero decodes it: s33 -64 (none), a value type, or a type index
		v, n, e := S33(expr[min(i, len(expr)):])
		i += n
		switch {
		case e != nil:
			err = e
		case v >= 0:
			in.addRef(SpaceType, uint32(v))
		case v == -29 || v == -28: // 0x63, 0x64: (ref null? heaptype)
			var r Ref
			var nr int
			if i, r, nr, err = HeapType(expr, i); nr > 0 {
				in.addRef(r.Space, r.Idx)
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
		in.addRef(SpaceFunc, u32())
	case immCallIndirect:
		in.addRef(SpaceType, u32())
		in.addRef(SpaceTable, u32())
	case immGlobal:
		in.addRef(SpaceGlobal, u32())
	case immTable:
		in.addRef(SpaceTable, u32())
	case immMemarg:
		memarg()
	case immMemargLane:
		memarg()
		skip(1)
	case immMemory:
		in.addRef(SpaceMemory, u32())
	case immI32:
		_, n, e := LEB(expr[min(i, len(expr)):], 5)
		i += n
		err = e
	case immI64:
		_, n, e := LEB(expr[min(i, len(expr)):], 10)
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
			var r Ref
			var nr int
			if i, r, nr, err = ValType(expr, i); nr > 0 {
				in.addRef(r.Space, r.Idx)
			}
		}
	case immRefType: // one byte, as wazero reads it (a type index needs typed function references)
		if i >= len(expr) || expr[i] != 0x70 && expr[i] != 0x6f && expr[i] != 0x69 {
			err = errors.New("unknown reference type")
		}
		i++
	case immMemInit:
		u32()
		in.addRef(SpaceMemory, u32())
	case immMemCopy:
		in.addRef(SpaceMemory, u32())
		in.addRef(SpaceMemory, u32())
	case immTableInit:
		u32()
		in.addRef(SpaceTable, u32())
	case immTableCopy:
		in.addRef(SpaceTable, u32())
		in.addRef(SpaceTable, u32())
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
		return i, fmt.Errorf("%s: %w", in.Name(), err)
	}
	return i, nil
}
