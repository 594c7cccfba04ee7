package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/tetratelabs/wazero"
)

// kindModule reads from a module's bytes what moduleOf reads from its compiled form, before
// and after the instrumentation, so detection can move before the compile without changing.
func TestKindModuleMatchesCompiled(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	for name, b := range map[string][]byte{"echo": wat.Echo, "fixture": wat.Fixture, "probe": wat.Probe, "hygiene": wat.Hygiene} {
		inst, err := instrument.Calls(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for form, mod := range map[string][]byte{"as shipped": b, "instrumented": inst} {
			cm, err := rt.CompileModule(ctx, mod)
			if err != nil {
				t.Fatalf("%s %s: %v", name, form, err)
			}
			want := moduleOf(cm, scriptSections(mod))
			cm.Close(ctx)
			m, err := wasm.Parse(mod)
			if err != nil {
				t.Fatal(err)
			}
			got, err := kindModule(m)
			if err != nil {
				t.Fatalf("%s %s: %v", name, form, err)
			}
			slices.Sort(want.Exports)
			slices.Sort(got.Exports)
			if !slices.Equal(got.Imports, want.Imports) || !slices.Equal(got.Exports, want.Exports) {
				t.Errorf("%s %s: kindModule = %+v\nmoduleOf = %+v", name, form, got, want)
			}
			k1, err1 := kind.Detect(got, kinds)
			k2, err2 := kind.Detect(want, kinds)
			if k1 != k2 || (err1 == nil) != (err2 == nil) {
				t.Errorf("%s %s: Detect = %v, %v from the bytes; %v, %v from the compiled module", name, form, k1, err1, k2, err2)
			}
			if len(got.Exports) == 0 {
				t.Errorf("%s %s: no exports read", name, form)
			}
		}
	}
	if _, err := kindModule(&wasm.Module{}); err != nil {
		t.Errorf("an empty module: %v", err)
	}
}
