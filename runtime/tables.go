package runtime

import (
	"errors"
	"fmt"

	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// Tables are host memory the guest controls: wazero keeps every table element (funcref or
// externref) as one 8-byte word in a Go slice, outside linear memory and so outside the
// memory allocator that enforces Limits.MemoryBytes; table.grow accepted up to 2^32-1
// elements (32 GiB). See RATIONALE.md, "Why are tables bounded by the memory limit?".
//
// capTables bounds them at load: the tables of one instance hold at most tableElements(limits)
// elements together, and so do its element segments (which wazero keeps per instance too). A module whose tables' minimums add up to more is refused; otherwise
// every table that may grow gets a declared maximum of its minimum plus an equal share of what
// is left, so wazero itself refuses (table.grow returns -1) a growth past the bound. wazero
// offers no hook on table.grow; a lowered maximum is visible to the guest only as that
// refusal. Tables cannot be imported: the host provides none.

// tableElementBytes is what one table element costs the host.
const tableElementBytes = 8

// tableElements is how many table elements the tables of one instance may hold: as many
// bytes as its linear memory may.
func tableElements(limits Limits) uint64 { return limits.MemoryBytes / tableElementBytes }

// errTableFormat: a table or import this walk cannot read; compile leaves it to wazero.
var errTableFormat = errors.New("table encoding not understood")

// capTables returns wasm with its tables bounded as described above (wasm itself when no
// maximum needs lowering), an ErrLoadLimit error for minimums over the bound, an ErrABI error
// for an imported table, or an error wrapping errTableFormat for an encoding it cannot read.
func capTables(b []byte, limits Limits) ([]byte, error) {
	m, err := wasm.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errTableFormat, err)
	}
	return capModuleTables(m, limits)
}

// capModuleTables is capTables of a parsed module.
func capModuleTables(m *wasm.Module, limits Limits) ([]byte, error) {
	// An import section it cannot read is left to the rewrite, which refuses it (and an
	// import nobody provides fails to instantiate anyway).
	if imports, err := m.Imports(); err == nil {
		for _, im := range imports {
			if im.Kind == wasm.KindTable {
				return nil, fmt.Errorf("%w: module imports table %s.%s; the host provides no tables, a guest defines its own", ErrABI, im.Module, im.Name)
			}
		}
	}
	budget := tableElements(limits)
	items, err := m.Elements()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errTableFormat, err)
	}
	if items > budget {
		return nil, fmt.Errorf("%w: the module's element segments hold %d elements, over the table limit of %d elements (the memory limit of %s, at %d bytes an element)",
			ErrLoadLimit, items, budget, size.Format(limits.MemoryBytes), tableElementBytes)
	}
	tables, err := m.Tables()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errTableFormat, err)
	}
	if len(tables) == 0 {
		return m.Bytes(), nil
	}
	var mins uint64
	growable := uint64(0)
	for _, t := range tables {
		mins += t.Min
		if !t.HasMax || t.Max > t.Min {
			growable++
		}
	}
	if mins > budget {
		return nil, fmt.Errorf("%w: the module's tables declare %d elements at minimum, over the table limit of %d elements (the memory limit of %s, at %d bytes an element)",
			ErrLoadLimit, mins, budget, size.Format(limits.MemoryBytes), tableElementBytes)
	}
	changed := false
	for i := range tables {
		t := &tables[i]
		if t.HasMax && t.Max <= t.Min {
			continue
		}
		bound := t.Min + (budget-mins)/growable
		if !t.HasMax || t.Max > bound {
			t.Max, t.HasMax, changed = bound, true, true
		}
	}
	if !changed {
		return m.Bytes(), nil
	}
	r := wasm.NewRewriter(m)
	r.Replace(wasm.SectionTable, wasm.AppendTables(nil, tables))
	return r.Bytes()
}
