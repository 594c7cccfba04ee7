package engine

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind/extism"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind/mcpwasm"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind/quickjs"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/tetratelabs/wazero"
)

// kinds are the guest kinds a Host detects at Load, in registration order (kind.Detect). A
// new kind is one package under runtime/internal/kind/ and one line here.
var kinds = []kind.Kind{
	mcpwasm.Kind{},
	extism.Kind{},  // Extism plugins written for hyper-mcp (abi/EXTISM.md)
	quickjs.Kind{}, // JavaScript: quickjs-wasi with the script in custom sections (docs/typescript.md)
}

// kindEntry is one kind a Host detects, with its traits read once at NewHost: what a Guest
// keeps as its kind. The runtime asks a kind what else it does only here (entry.t), never by
// a type assertion.
type kindEntry struct {
	kind.Kind
	t kind.Traits
}

// newKinds reads the traits of ks (kind.Traits) and checks them (kind.Traits.Check).
func newKinds(ks []kind.Kind) ([]*kindEntry, error) {
	out := make([]*kindEntry, 0, len(ks))
	for _, k := range ks {
		t := k.Traits()
		if err := t.Check(); err != nil {
			return nil, fmt.Errorf("kind %s: %w", k.Name(), err)
		}
		out = append(out, &kindEntry{Kind: k, t: t})
	}
	return out, nil
}

// detect is kind.Detect over entries: the entry of the kind m is.
func detect(m *kind.Module, entries []*kindEntry) (*kindEntry, error) {
	ks := make([]kind.Kind, len(entries))
	for i, e := range entries {
		ks[i] = e // the entry itself: comparing it below compares pointers
	}
	k, err := kind.Detect(m, ks)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if kind.Kind(e) == k {
			return e, nil
		}
	}
	return nil, fmt.Errorf("%w: kind %s detected but not registered", ErrABI, k.Name())
}

// kinds returns the Kinds of entries, for kind.CheckHostModules.
func kindsOf(entries []*kindEntry) []kind.Kind {
	ks := make([]kind.Kind, len(entries))
	for i, e := range entries {
		ks[i] = e.Kind
	}
	return ks
}

// kindByName returns the registered kind called name, or nil.
func (h *Host) kindByName(name string) *kindEntry {
	for _, k := range h.kinds {
		if k.Name() == name {
			return k
		}
	}
	return nil
}

// moduleOf is what kind.Detect looks at in cm: its function imports and exports, and the
// names of customs, the script sections the guest kept (scriptSections: the compile drops
// them from cm).
func moduleOf(cm wazero.CompiledModule, customs map[string][]byte) *kind.Module {
	m := &kind.Module{Customs: slices.Sorted(maps.Keys(customs))}
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		m.Imports = append(m.Imports, kind.Import{Module: mod, Name: name, Sig: kind.SignatureOf(f.ParamTypes(), f.ResultTypes())})
	}
	for name := range cm.ExportedFunctions() {
		if name != instrument.ExportInterrupt && name != instrument.ExportStart { // the instrumentation's
			m.Exports = append(m.Exports, name)
		}
	}
	return m
}

// scriptSectionPrefix: instrument.ScriptSectionPrefix (the compile drops these sections, the
// guest keeps them).
const scriptSectionPrefix = instrument.ScriptSectionPrefix

// scriptSections returns copies of b's custom sections named scriptSectionPrefix…, or nil.
func scriptSections(b []byte) map[string][]byte {
	m, err := wasm.Parse(b)
	if err != nil {
		return nil
	}
	return scriptSectionsOf(m)
}

// scriptSectionsOf is scriptSections of a parsed module (nil: one that did not parse).
func scriptSectionsOf(m *wasm.Module) map[string][]byte {
	if m == nil {
		return nil
	}
	var out map[string][]byte
	for _, c := range m.Customs() {
		if strings.HasPrefix(c.Name, scriptSectionPrefix) {
			if out == nil {
				out = map[string][]byte{}
			}
			out[c.Name] = bytes.Clone(c.Data)
		}
	}
	return out
}
