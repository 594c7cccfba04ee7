package extism

import (
	"context"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

// BenchmarkKernelInstantiate: what linking a plugin instance's kernel module costs (the pool
// does it for every instance, before the plugin).
func BenchmarkKernelInstantiate(b *testing.B) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	if err := Instantiate(ctx, rt); err != nil {
		b.Fatal(err)
	}
	cm, err := rt.CompileModule(ctx, KernelWasm())
	if err != nil {
		b.Fatal(err)
	}
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions().WithRandSource(strings.NewReader("")) // as the runtime links it
	b.ReportAllocs()
	for b.Loop() {
		mod, err := rt.InstantiateModule(ctx, cm, cfg)
		if err != nil {
			b.Fatal(err)
		}
		mod.Close(ctx)
	}
}
