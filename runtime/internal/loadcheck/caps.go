package loadcheck

import (
	"errors"
	"fmt"

	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// Load caps: what loading a guest may cost the host before it has run a single call. See
// Limits.ModuleBytes, ManifestBytes, Tools, Nesting, CompileTimeout and RATIONALE.md, "Why is
// loading bounded by size, nesting and time?".

// Caps refuses a module over the size cap, one whose counts or section sizes cannot be
// (VectorCounts), or one with a function whose blocks nest deeper than the nesting cap,
// before wazero parses it.
func (p *Module) Caps(limits Limits) error {
	if err := Size(p.Bytes, limits); err != nil {
		return err
	}
	m := p.M // on error, the sections before the bad one: wazero decodes them
	if err := moduleCounts(m, p.Err); err != nil {
		return err
	}
	if m == nil {
		return nil
	}
	if fn, depth := moduleNesting(m, limits.Nesting); depth > limits.Nesting {
		return fmt.Errorf("%w: function %d nests blocks more than %d deep (compile time grows with the square of the depth)", fault.ErrLoadLimit, fn, limits.Nesting)
	}
	return nil
}

// Caps is Module.Caps of b (parsed here).
func Caps(b []byte, limits Limits) error { return Parse(b).Caps(limits) }

// Size refuses a module over the size cap (Limits.ModuleBytes).
func Size(wasm []byte, limits Limits) error {
	if len(wasm) > limits.ModuleBytes {
		return fmt.Errorf("%w: module is %s, over the module size limit of %s", fault.ErrLoadLimit,
			size.Format(uint64(len(wasm))), size.Format(uint64(limits.ModuleBytes)))
	}
	return nil
}

// Manifest refuses a manifest with more tools (or resources, templates, prompts)
// than the cap.
func Manifest(tools, resources, templates, prompts int, limits Limits) error {
	for _, c := range [...]struct {
		what string
		n    int
	}{{"tools", tools}, {"resources", resources}, {"resource templates", templates}, {"prompts", prompts}} {
		if c.n > limits.Tools {
			return fmt.Errorf("%w: manifest declares %d %s, over the limit of %d", fault.ErrLoadLimit, c.n, c.what, limits.Tools)
		}
	}
	return nil
}

// MaxNesting returns the deepest block nesting of any function of b (and that function's
// index in the code section), scanning no further once a function exceeds limit. It decodes
// instructions as the rewrite does (wasm.Decode); for a module it cannot decode it returns
// depth 0 and leaves the refusal to the rewrite, which fails on the same instruction.
func MaxNesting(b []byte, limit int) (fn, depth int) {
	m, _ := wasm.Parse(b) // the sections before a malformed one (wazero stops there too)
	if m == nil {
		return 0, 0
	}
	return moduleNesting(m, limit)
}

// errNestingStop ends moduleNesting's walk: a function is over the limit, or unreadable.
var errNestingStop = errors.New("stop")

// moduleNesting is MaxNesting of a parsed module.
func moduleNesting(m *wasm.Module, limit int) (fn, depth int) {
	readable, visited := true, uint32(0)
	err := m.Bodies(func(i uint32, body []byte) error {
		visited++
		d, ok := bodyNesting(body, limit)
		if !ok {
			readable = false
			return errNestingStop
		}
		if d > depth {
			fn, depth = int(i), d
		}
		if depth > limit {
			return errNestingStop
		}
		return nil
	})
	if count, _ := m.Count(wasm.SectionCode); !readable || err != nil && err != errNestingStop && visited < count {
		return 0, 0 // bytes after the last body do not hide a nesting (wazero refuses them later)
	}
	return fn, depth
}

// bodyNesting scans one function body with the rewrite's decoder (wasm.Decode); ok is false
// if it cannot be decoded, and then the rewrite refuses the module too.
func bodyNesting(body []byte, limit int) (maxDepth int, ok bool) {
	locals, err := wasm.Locals(body, nil) // as the rewrite reads them
	if err != nil {
		return 0, false
	}
	depth := 0
	var in wasm.Instr
	for i := locals; i < len(body); {
		var err error
		if i, err = wasm.Decode(body, i, &in); err != nil {
			return 0, false
		}
		switch in.Op {
		case 0x02, 0x03, 0x04: // block, loop, if
			depth++
			if depth > maxDepth {
				maxDepth = depth
				if maxDepth > limit {
					return maxDepth, true
				}
			}
		case 0x0b: // end
			depth--
		}
	}
	return maxDepth, true
}

// VectorCounts refuses a module whose section declares more entries than its bytes can
// hold (every entry takes at least one byte), and likewise a function type's parameter and
// result counts, before wazero sees it: wazero sizes its slices from these counts, so a
// 22-byte module declaring 3 billion types made it allocate tens of GB and the host died of
// an out-of-memory fatal error (found by FuzzInstrumentCalls). It also refuses a section
// whose size overruns the module (wazero reads the section's count before noticing).
// Anything else it cannot read is left to wazero's own (precise) error.
func VectorCounts(b []byte) error {
	return moduleCounts(wasm.Parse(b))
}

// moduleCounts is VectorCounts of Parse's results: m (the sections before the bad one,
// if err) and err.
func moduleCounts(m *wasm.Module, err error) error {
	if m != nil {
		if cerr := m.CheckCounts(); cerr != nil {
			return cerr
		}
	}
	if pe := (*wasm.ParseError)(nil); errors.As(err, &pe) && pe.Overrun {
		return err
	}
	return nil
}
