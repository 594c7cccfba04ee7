package runtime

import (
	"bytes"
	"maps"
	"slices"
	"strings"

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

// kindByName returns the registered kind called name, or nil.
func (h *Host) kindByName(name string) kind.Kind {
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
		if name != exportInterrupt && name != exportStart { // the instrumentation's
			m.Exports = append(m.Exports, name)
		}
	}
	return m
}

// scriptSectionPrefix names the custom sections a kind reads from its guest's module in Start
// (kind.Instance.Custom): a JavaScript guest's script ("mcpwasm.js") and its bytecode
// ("mcpwasm.jsbc"). The compile drops them (instrumentCalls) and the guest keeps them
// (Guest.customs), so JavaScript guests, which differ only there, share one compiled engine
// in memory and in the compilation cache.
const scriptSectionPrefix = "mcpwasm.js"

// scriptSections returns copies of b's custom sections named scriptSectionPrefix…, or nil.
func scriptSections(b []byte) map[string][]byte {
	m, err := wasm.Parse(b)
	if err != nil {
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
