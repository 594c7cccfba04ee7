package instrument

import (
	"errors"
	"fmt"

	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// body appends to out the function body fn (function index fidx) with a check at its start
// and at the start of every loop, just after the block type, each charging the instructions
// of its region (the body or loop, nested loops excluded), and a charge before every bulk
// operation. It refuses an instruction it does not know and an index the module does not
// define.
func (rw *rewriter) body(out, fn []byte, fidx uint32) ([]byte, error) {
	localsEnd, err := wasm.Locals(fn, func(r wasm.Ref) error {
		return rw.mi.Check(r, func() string { return fmt.Sprintf("function %d: a local's type", fidx) })
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
	var in wasm.Instr
	last := 0 // expr[last:i] is not yet copied to out
	for i := 0; i < len(expr); {
		start := i
		if i, err = wasm.Decode(expr, i, &in); err != nil {
			if errors.Is(err, errUnknownInstr) {
				return nil, fmt.Errorf("function %d: %w", fidx, err)
			}
			return nil, fmt.Errorf("%w: function %d: %v", errMalformed, fidx, err)
		}
		for _, r := range in.Refs[:in.NRefs] {
			if err := rw.mi.Check(r, func() string { return fmt.Sprintf("function %d: %s", fidx, in.Name()) }); err != nil {
				return nil, err
			}
		}
		rw.regions[len(rw.regions)-1].n++
		if rw.stateOp == "" && changesState(&in) {
			rw.stateOp = in.Name()
		}
		switch {
		case in.Op == 0x02 || in.Op == 0x04: // block, if
			rw.loops = append(rw.loops, false)
		case in.Op == 0x03: // loop
			rw.loops = append(rw.loops, true)
			out = append(out, expr[last:i]...)
			out, at = rw.appendCheck(out)
			rw.regions = append(rw.regions, region{at: at})
			last = i
		case in.Op == 0x0b: // end
			if k := len(rw.loops) - 1; k >= 0 {
				if rw.loops[k] {
					rg := rw.regions[len(rw.regions)-1]
					patchCharge(out, rg.at, rg.n)
					rw.regions = rw.regions[:len(rw.regions)-1]
				}
				rw.loops = rw.loops[:k]
			}
		case in.Info.Bulk != 0:
			out = append(out, expr[last:start]...)
			out = rw.appendCharge(out, in.Info.Bulk)
			last = start
		}
	}
	for _, rg := range rw.regions { // the body's, and any loop left open (wazero refuses that)
		patchCharge(out, rg.at, rg.n)
	}
	return append(out, expr[last:]...), nil
}
