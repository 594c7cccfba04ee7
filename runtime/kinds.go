package runtime

import (
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind/mcpwasm"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind/quickjs"
	"github.com/tetratelabs/wazero"
)

// kinds are the guest kinds a Host detects at Load, in registration order (kind.Detect). A
// new kind is one package under runtime/internal/kind/ and one line here.
var kinds = []kind.Kind{
	mcpwasm.Kind{},
	quickjs.Kind{},
}

// kindByName returns the registered kind called name, or nil.
func (h *Host) kindByName(name string) kind.Kind {
	for _, k := range h.kinds {
		if k.Name() == name {
			return k
		}
	}
	return nil
}

// moduleOf is what kind.Detect looks at in cm: its function imports and exports. (It will
// read the one wasm parser's module instead, with custom sections, when that lands.)
func moduleOf(cm wazero.CompiledModule) *kind.Module {
	m := &kind.Module{}
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		m.Imports = append(m.Imports, kind.Import{Module: mod, Name: name})
	}
	for name := range cm.ExportedFunctions() {
		if name != exportInterrupt && name != exportStart { // the instrumentation's
			m.Exports = append(m.Exports, name)
		}
	}
	return m
}
