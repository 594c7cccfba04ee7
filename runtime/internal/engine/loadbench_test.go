package engine

import (
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/runtime/internal/loadcheck"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// BenchmarkLoadChecks measures what Load does to a module's bytes before wazero compiles it:
// the load caps (section sizes, vector counts, block nesting: loadcheck.Module.Caps), the
// compile-memory estimate, the table caps and the instrumentation (compile's steps), on the
// Go echo guest (about 3.5 MB); parse is the one split into sections all of them read.
func BenchmarkLoadChecks(b *testing.B) {
	w := benchGoGuest(b, "MCPWASM_BENCH_GOECHO", "goecho")
	limits := policy.DefaultLimits()
	p := loadcheck.Parse(w)
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"parse", func() error { _, err := wasm.Parse(w); return err }},
		{"caps", func() error { return p.Caps(limits) }},
		{"compile-estimate", func() error { return p.CompileMemory(limits) }},
		{"tables", func() error { _, err := p.Tables(limits); return err }},
		{"instrument", func() error { _, err := instrument.Module(p.M, nil); return err }},
		{"all", func() error { // as Load and compile run them: one parse
			p := loadcheck.Parse(w)
			if err := p.Caps(limits); err != nil {
				return err
			}
			if err := p.CompileMemory(limits); err != nil {
				return err
			}
			tables, err := p.Tables(limits)
			if err != nil {
				return err
			}
			inst, err := instrument.Module(p.M, tables)
			if err != nil {
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
