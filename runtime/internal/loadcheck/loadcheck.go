// Package loadcheck owns what loading a guest module may cost the host before it has run a
// single call: the module parsed once (Module, which every check reads) and the checks on it:
// the size cap, the vector counts and block nesting (caps.go), the compile-memory estimate
// (compilemem.go) and the table bound (tables.go). Each refusal wraps fault.ErrLoadLimit (or
// fault.ErrABI) and names the limit. It may import runtime/internal/wasm,
// runtime/internal/fault, runtime/policy and internal/size, and nothing else of ours; the
// runtime root calls it from Host.load and the lazy compile.
package loadcheck

import (
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// Limits are the guest's limits (policy.Limits).
type Limits = policy.Limits

// Module is a guest module's bytes split into sections once (wasm.Parse) for every check
// of the load. M is nil if the header is wrong; with Err set, M holds the sections before
// the bad one (what wazero decodes before it fails too).
type Module struct {
	Bytes []byte
	M     *wasm.Module
	Err   error
}

// Parse parses b once for every check of the load.
func Parse(b []byte) *Module {
	m, err := wasm.Parse(b)
	return &Module{Bytes: b, M: m, Err: err}
}

// Whole returns the parsed module if b parsed without error, else nil.
func (p *Module) Whole() *wasm.Module {
	if p.Err != nil {
		return nil
	}
	return p.M
}
