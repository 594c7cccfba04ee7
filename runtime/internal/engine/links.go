package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/tetratelabs/wazero"
)

// instantiateHostModules defines the host modules of every kind (for mcpwasm, mcpwasm_v1:
// ABI.md §6), each once.
func (h *Host) instantiateHostModules(ctx context.Context) error {
	if err := kind.CheckHostModules(kindsOf(h.kinds)); err != nil {
		return err
	}
	for _, k := range h.kinds {
		for _, hm := range k.HostModules() {
			b := h.rt.NewHostModuleBuilder(hm.Name)
			for _, f := range hm.Funcs {
				fb := b.NewFunctionBuilder().WithGoModuleFunction(f.Fn, f.Params, f.Results)
				if len(f.ParamNames) > 0 {
					fb = fb.WithParameterNames(f.ParamNames...)
				}
				fb.Export(f.Name)
			}
			if _, err := b.Instantiate(ctx); err != nil {
				return fmt.Errorf("instantiating %s imports: %w", hm.Name, err)
			}
		}
	}
	return nil
}

// linkCompileTimeout bounds compiling a kind's linked modules (Extism's: 1.4 KB of wasm).
const linkCompileTimeout = time.Minute

// linksOf returns the compiled modules kind k links to each instance of its guests
// (kind.Traits.Linked), compiling them on the first use, through the authenticated
// compilation cache as a guest's code is (compileModule).
func (h *Host) linksOf(ctx context.Context, k *kindEntry) ([]linkedModule, error) {
	if k.t.Linked == nil {
		return nil, nil
	}
	h.linkMu.Lock()
	defer h.linkMu.Unlock()
	if ls, ok := h.links[k.Name()]; ok {
		return ls, nil
	}
	var ls []linkedModule
	for _, m := range k.t.Linked() {
		// Not cut short by the first call's deadline: the compile is the host's, done once.
		cm, err := h.compileModule(context.WithoutCancel(ctx), m.Wasm, linkCompileTimeout)
		if err != nil {
			return nil, fmt.Errorf("compiling the module %s that %s guests link: %w", m.Name, k.Name(), err)
		}
		ls = append(ls, linkedModule{name: m.Name, cm: cm})
	}
	if h.links == nil {
		h.links = map[string][]linkedModule{}
	}
	h.links[k.Name()] = ls
	return ls, nil
}

// linkedModule is one compiled module a kind links to each instance of its guests
// (kind.Traits.Linked).
type linkedModule struct {
	name string
	cm   wazero.CompiledModule
}
