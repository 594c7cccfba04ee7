package loadcheck

import (
	"errors"
	"fmt"

	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
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

// ErrTableFormat: a table or import this walk cannot read; compile leaves it to wazero.
var ErrTableFormat = errors.New("table encoding not understood")

// Tables returns the module's table section with its tables bounded as described above
// (nil when no maximum needs lowering: the module stands as it is), an ErrLoadLimit error for
// minimums over the bound, an ErrABI error for an imported table, or an error wrapping
// ErrTableFormat for an encoding it cannot read.
func (p *Module) Tables(limits Limits) ([]byte, error) {
	if p.Err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTableFormat, p.Err)
	}
	return moduleTables(p.M, limits)
}

// capTables returns b with its tables bounded (Tables), b itself when none changes.
func capTables(b []byte, limits Limits) ([]byte, error) {
	p := Parse(b)
	sec, err := p.Tables(limits)
	if err != nil || sec == nil {
		return b, err
	}
	r := wasm.NewRewriter(p.M)
	r.Replace(wasm.SectionTable, sec)
	return r.Bytes()
}

// moduleTables is Tables of a parsed module.
func moduleTables(m *wasm.Module, limits Limits) ([]byte, error) {
	// An import section it cannot read is left to the rewrite, which refuses it (and an
	// import nobody provides fails to instantiate anyway).
	if imports, err := m.Imports(); err == nil {
		for _, im := range imports {
			if im.Kind == wasm.KindTable {
				return nil, fmt.Errorf("%w: module imports table %s.%s; the host provides no tables, a guest defines its own", fault.ErrABI, im.Module, im.Name)
			}
		}
	}
	budget := tableElements(limits)
	items, err := m.Elements()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTableFormat, err)
	}
	if items > budget {
		return nil, fmt.Errorf("%w: the module's element segments hold %d elements, over the table limit of %d elements (the memory limit of %s, at %d bytes an element)",
			fault.ErrLoadLimit, items, budget, size.Format(limits.MemoryBytes), tableElementBytes)
	}
	tables, err := m.Tables()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTableFormat, err)
	}
	if len(tables) == 0 {
		return nil, nil
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
			fault.ErrLoadLimit, mins, budget, size.Format(limits.MemoryBytes), tableElementBytes)
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
		return nil, nil
	}
	return wasm.AppendTables(nil, tables), nil
}
