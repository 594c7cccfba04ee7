package runtime

import (
	"errors"
	"fmt"
)

// instrumentLoops appends the instructions of expr (a function body after its locals) to out,
// with check inserted at the start of every loop, just after its block type. It decodes every
// instruction of the features wazero enables by default (WebAssembly 2.0: MVP, sign
// extension, saturating truncation, bulk memory, reference types, multi-value, SIMD), plus
// threads and tail calls; anything else is an error, so a module is never run unchecked.
func instrumentLoops(out, expr, check []byte) ([]byte, error) {
	i := 0
	u32 := func() error {
		_, n, err := readLEB(expr[min(i, len(expr)):], 5)
		i += n
		return err
	}
	leb := func(max int) error {
		_, n, err := readLEB(expr[min(i, len(expr)):], max)
		i += n
		return err
	}
	memarg := func() error {
		align, n, err := readLEB(expr[min(i, len(expr)):], 5)
		if err != nil {
			return err
		}
		i += n
		if align&0x40 != 0 { // multi-memory: a memory index follows
			if err := u32(); err != nil {
				return err
			}
		}
		return leb(10) // offset (u32, or u64 with memory64)
	}
	last := 0 // expr[last:i] is not yet copied to out
	for i < len(expr) {
		op := expr[i]
		i++
		var err error
		switch {
		case op == 0x02 || op == 0x03 || op == 0x04: // block, loop, if: blocktype
			if i >= len(expr) {
				return nil, errors.New("truncated block type")
			}
			if b := expr[i]; b == 0x40 || (b >= 0x6f && b <= 0x7f) {
				i++
			} else {
				err = leb(5) // s33 type index
			}
			if err == nil && op == 0x03 {
				out = append(out, expr[last:i]...)
				out = append(out, check...)
				last = i
			}
		case op <= 0x01, op == 0x05, op == 0x0b, op == 0x0f, op == 0x1a, op == 0x1b,
			op >= 0x45 && op <= 0xc4, op == 0xd1: // no immediates
		case op == 0x0c || op == 0x0d || op == 0x10 || op == 0x12 || (op >= 0x20 && op <= 0x26) ||
			op == 0x3f || op == 0x40 || op == 0xd2: // one u32
			err = u32()
		case op == 0x11 || op == 0x13: // call_indirect, return_call_indirect: type, table
			if err = u32(); err == nil {
				err = u32()
			}
		case op == 0x0e: // br_table: vec(label) label
			var n uint64
			var l int
			n, l, err = readLEB(expr[i:], 5)
			i += l
			for k := uint64(0); err == nil && k <= n; k++ {
				err = u32()
			}
		case op == 0x1c: // select t*: vec(valtype)
			var n uint64
			var l int
			n, l, err = readLEB(expr[i:], 5)
			i += l
			for k := uint64(0); err == nil && k < n; k++ {
				err = leb(5)
			}
		case op >= 0x28 && op <= 0x3e: // loads and stores
			err = memarg()
		case op == 0x41: // i32.const
			err = leb(5)
		case op == 0x42: // i64.const
			err = leb(10)
		case op == 0x43:
			i += 4
		case op == 0x44:
			i += 8
		case op == 0xd0: // ref.null heaptype
			err = leb(5)
		case op == 0xfc:
			var sub uint64
			var l int
			sub, l, err = readLEB(expr[i:], 5)
			i += l
			switch {
			case err != nil:
			case sub <= 7: // saturating truncation
			case sub == 8 || sub == 10 || sub == 12 || sub == 14: // memory.init, memory.copy, table.init, table.copy
				if err = u32(); err == nil {
					err = u32()
				}
			case sub <= 17: // data.drop, memory.fill, elem.drop, table.grow/size/fill
				err = u32()
			default:
				err = fmt.Errorf("unknown instruction 0xfc %d", sub)
			}
		case op == 0xfd:
			var sub uint64
			var l int
			sub, l, err = readLEB(expr[i:], 5)
			i += l
			switch {
			case err != nil:
			case sub <= 11 || sub == 92 || sub == 93: // loads and stores
				err = memarg()
			case sub == 12 || sub == 13: // v128.const, i8x16.shuffle
				i += 16
			case sub >= 21 && sub <= 34: // extract and replace lane
				i++
			case sub >= 84 && sub <= 91: // load and store lane
				if err = memarg(); err == nil {
					i++
				}
			case sub <= 0x113: // no immediates (including relaxed SIMD)
			default:
				err = fmt.Errorf("unknown instruction 0xfd %d", sub)
			}
		case op == 0xfe: // threads
			var sub uint64
			var l int
			sub, l, err = readLEB(expr[i:], 5)
			i += l
			switch {
			case err != nil:
			case sub == 0x03: // atomic.fence
				i++
			case sub <= 0x4e:
				err = memarg()
			default:
				err = fmt.Errorf("unknown instruction 0xfe %d", sub)
			}
		default:
			err = fmt.Errorf("unknown instruction %#x", op)
		}
		if err != nil {
			return nil, err
		}
	}
	if i != len(expr) {
		return nil, errors.New("instruction overruns the body")
	}
	return append(out, expr[last:]...), nil
}
