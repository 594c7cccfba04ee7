package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// code returns the code section sec with every function body instrumented (body).
func (rw *rewriter) code(sec []byte) ([]byte, error) {
	if sec == nil {
		return nil, nil
	}
	count, n, err := readU32(sec)
	if err != nil {
		return nil, fmt.Errorf("%w: code section count: %v", errMalformed, err)
	}
	out := make([]byte, 0, len(sec)+len(sec)/4+int(min(count, uint32(len(sec))))*48)
	out = binary.AppendUvarint(out, uint64(count))
	r := sec[n:]
	var body []byte
	for i := range count {
		size, n, err := readU32(r)
		if err != nil || uint64(n)+uint64(size) > uint64(len(r)) {
			return nil, fmt.Errorf("%w: function body %d: bad size", errMalformed, i)
		}
		fn := r[n : n+int(size)]
		r = r[n+int(size):]
		if body, err = rw.body(body[:0], fn, rw.mi.importFuncs+i); err != nil {
			return nil, err
		}
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	if len(r) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes in code section", errMalformed, len(r))
	}
	return out, nil
}

// body appends to out the function body fn (function index fidx) with a check at its start
// and at the start of every loop, just after the block type, each charging the instructions
// of its region (the body or loop, nested loops excluded), and a charge before every bulk
// operation. It refuses an instruction it does not know and an index the module does not
// define.
func (rw *rewriter) body(out, fn []byte, fidx uint32) ([]byte, error) {
	localsEnd, err := readLocals(fn, func(r ref) error {
		return rw.mi.check(r, func() string { return fmt.Sprintf("function %d: a local's type", fidx) })
	})
	switch {
	case errors.Is(err, errUndefinedIndex):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("%w: function %d: %v", errMalformed, fidx, err)
	}
	out = append(out, fn[:localsEnd]...)
	out, at := rw.appendCheck(out)
	rw.regions = append(rw.regions[:0], region{at: at})
	rw.loops = rw.loops[:0]
	expr := fn[localsEnd:]
	var in instr
	last := 0 // expr[last:i] is not yet copied to out
	for i := 0; i < len(expr); {
		start := i
		if i, err = decodeInstr(expr, i, &in); err != nil {
			if errors.Is(err, errUnknownInstr) {
				return nil, fmt.Errorf("function %d: %w", fidx, err)
			}
			return nil, fmt.Errorf("%w: function %d: %v", errMalformed, fidx, err)
		}
		for _, r := range in.refs[:in.nrefs] {
			if err := rw.mi.check(r, func() string { return fmt.Sprintf("function %d: %s", fidx, in.name()) }); err != nil {
				return nil, err
			}
		}
		rw.regions[len(rw.regions)-1].n++
		if rw.stateOp == "" && changesState(&in) {
			rw.stateOp = in.name()
		}
		switch {
		case in.op == 0x02 || in.op == 0x04: // block, if
			rw.loops = append(rw.loops, false)
		case in.op == 0x03: // loop
			rw.loops = append(rw.loops, true)
			out = append(out, expr[last:i]...)
			out, at = rw.appendCheck(out)
			rw.regions = append(rw.regions, region{at: at})
			last = i
		case in.op == 0x0b: // end
			if k := len(rw.loops) - 1; k >= 0 {
				if rw.loops[k] {
					rg := rw.regions[len(rw.regions)-1]
					patchCharge(out, rg.at, rg.n)
					rw.regions = rw.regions[:len(rw.regions)-1]
				}
				rw.loops = rw.loops[:k]
			}
		case in.info.bulk != 0:
			out = append(out, expr[last:start]...)
			out = rw.appendCharge(out, in.info.bulk)
			last = start
		}
	}
	for _, rg := range rw.regions { // the body's, and any loop left open (wazero refuses that)
		patchCharge(out, rg.at, rg.n)
	}
	return append(out, expr[last:]...), nil
}
