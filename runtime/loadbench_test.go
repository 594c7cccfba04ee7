package runtime

import (
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// BenchmarkLoadChecks measures what Load does to a module's bytes before wazero compiles it:
// the load caps (section sizes, vector counts, block nesting: checkModuleCaps), the
// compile-memory estimate, the table caps and the instrumentation (compile's steps), on the
// Go echo guest (about 3.5 MB); parse is the one split into sections each of them starts with.
func BenchmarkLoadChecks(b *testing.B) {
	w := benchGoGuest(b, "MCPWASM_BENCH_GOECHO", "goecho")
	limits := policy.DefaultLimits()
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"parse", func() error { _, err := wasm.Parse(w); return err }},
		{"caps", func() error { return checkModuleCaps(w, limits) }},
		{"compile-estimate", func() error { return checkCompileMemory(w, limits) }},
		{"tables", func() error { _, err := capTables(w, limits); return err }},
		{"instrument", func() error { _, err := instrumentCalls(w); return err }},
		{"all", func() error { // as Load and compile run them
			if err := checkModuleCaps(w, limits); err != nil {
				return err
			}
			if err := checkCompileMemory(w, limits); err != nil {
				return err
			}
			inst, err := capTables(w, limits)
			if err != nil {
				return err
			}
			if inst, err = instrumentCalls(inst); err != nil {
				return err
			}
			return checkCompileMemory(inst, limits)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				if err := c.f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
