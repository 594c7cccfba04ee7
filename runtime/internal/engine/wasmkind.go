package engine

import (
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// kindModule is what kind.Detect looks at, read from the module's bytes by the one wasm
// reader instead of from a compiled module: its function imports and exported function names,
// as moduleOf reports them from wazero's CompiledModule (the instrumentation's exports left
// out), and its script sections' names (scriptSectionPrefix…). Load can detect the kind with it before compiling, from the Module it parsed for the
// load caps; a kind that looks at custom sections reads them from the same Module.
func kindModule(m *wasm.Module) (*kind.Module, error) {
	imports, err := m.Imports()
	if err != nil {
		return nil, err
	}
	exports, err := m.Exports()
	if err != nil {
		return nil, err
	}
	types, err := m.Types()
	if err != nil {
		return nil, err
	}
	km := &kind.Module{}
	for _, im := range imports {
		if im.Kind == wasm.KindFunc {
			ki := kind.Import{Module: im.Module, Name: im.Name}
			if int(im.Type) < len(types) {
				ki.Sig = kind.Signature(typeNames(types[im.Type].Params), typeNames(types[im.Type].Results))
			}
			km.Imports = append(km.Imports, ki)
		}
	}
	for _, e := range exports {
		if e.Kind == wasm.KindFunc && e.Name != instrument.ExportInterrupt && e.Name != instrument.ExportStart {
			km.Exports = append(km.Exports, e.Name)
		}
	}
	for _, c := range m.Customs() {
		if strings.HasPrefix(c.Name, scriptSectionPrefix) && !slices.Contains(km.Customs, c.Name) {
			km.Customs = append(km.Customs, c.Name)
		}
	}
	slices.Sort(km.Customs)
	return km, nil
}

func typeNames(ts []wasm.ValueType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}
