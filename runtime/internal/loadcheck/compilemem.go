package loadcheck

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// Compile memory: wazero's optimizing compiler holds one function's intermediate form at a
// time (its size grows with the function's) and keeps every compiled function's machine code
// and metadata until the end, and decoding the module costs a few hundred bytes for every
// entry of its sections (a type, an import, a function, a global, an export, an element), so
// a module's peak compile memory is about
//
//	compileBase + compilePerLargestByte·(largest function body)
//	            + compilePerCodeByte·(code section) + compilePerEntry·(entries)
//
// The constants are the worst of the shapes measured (RATIONALE.md, "Why is compile memory
// estimated, and from these numbers?"); CompileMemory refuses a module whose estimate is
// over Limits.CompileMemory before wazero sees it.
const (
	compileBase           = 64 << 20 // the host and wazero before the module
	compilePerLargestByte = 1700     // a chain of i32.load: 1.6 KB per body byte
	compilePerCodeByte    = 40       // machine code and metadata kept: ~35 B per byte of loads
	compilePerEntry       = 512      // 4M types: ~440 B each; a million empty functions: ~400 B each
)

// moduleCost is what compileEstimate reads from a module.
type moduleCost struct {
	largest, largestFn int // the largest function body's size and code-section index
	funcs, code        int // functions defined, code section bytes
	entries            uint64
}

func (c moduleCost) estimate() uint64 {
	return compileBase + compilePerLargestByte*uint64(c.largest) + compilePerCodeByte*uint64(c.code) + compilePerEntry*c.entries
}

// compileEstimate reads the cost of b; ok is false if a section cannot be read (wazero then
// reports the module's error).
func compileEstimate(b []byte) (c moduleCost, ok bool) {
	m, err := wasm.Parse(b)
	if err != nil {
		return c, false
	}
	return moduleEstimate(m)
}

// moduleEstimate is compileEstimate of a parsed module.
func moduleEstimate(m *wasm.Module) (c moduleCost, ok bool) {
	for _, id := range [...]wasm.SectionID{wasm.SectionType, wasm.SectionImport, wasm.SectionFunction,
		wasm.SectionTable, wasm.SectionMemory, wasm.SectionGlobal, wasm.SectionExport, wasm.SectionData, wasm.SectionTag} {
		n, err := m.Count(id) // vectors of entries
		if err != nil {
			return c, false
		}
		c.entries += uint64(n)
	}
	if sec, ok := m.Section(wasm.SectionElement); ok { // element segments: their elements
		items, err := m.Elements()
		if err != nil {
			items = uint64(len(sec)) // every element takes a byte at least
		}
		c.entries += items
	}
	if sec, ok := m.Section(wasm.SectionCode); ok {
		err := m.Bodies(func(i uint32, body []byte) error {
			if len(body) > c.largest {
				c.largest, c.largestFn = len(body), int(i)
			}
			c.funcs++
			return nil
		})
		if count, _ := m.Count(wasm.SectionCode); err != nil && uint32(c.funcs) < count {
			return c, false // a body it cannot size; bytes after the last one still count
		}
		c.code = len(sec)
	}
	return c, true
}

// CompileMemory refuses a module whose estimated compile memory (above) is over
// limits.CompileMemory, naming what drives the estimate. A module that does not parse is
// left to wazero, which reports its error.
func (p *Module) CompileMemory(limits Limits) error {
	m := p.Whole()
	if m == nil {
		return nil
	}
	c, ok := moduleEstimate(m)
	if est := c.estimate(); !ok || est <= limits.CompileMemory {
		return nil
	}
	return fmt.Errorf("%w: compiling would take an estimated %s (function %d is %s; %d functions, %s of code; %d entries: types, imports, functions, globals, exports, elements…), over the compile memory limit of %s",
		fault.ErrLoadLimit, approxBytes(c.estimate()), c.largestFn, approxBytes(uint64(c.largest)), c.funcs, approxBytes(uint64(c.code)), c.entries, approxBytes(limits.CompileMemory))
}

// CompileMemory is Module.CompileMemory of b (parsed here): for a module the host wrote
// (the instrumented one) or a whole server's.
func CompileMemory(b []byte, limits Limits) error { return Parse(b).CompileMemory(limits) }

// approxBytes formats n in the largest binary unit it reaches, to one decimal: "1 GiB",
// "28.6 MiB", "12 bytes".
func approxBytes(n uint64) string {
	for _, u := range [...]struct {
		size uint64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			return strings.TrimSuffix(strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64), ".0") + " " + u.name
		}
	}
	return strconv.FormatUint(n, 10) + " bytes"
}
