package policy

import (
	"cmp"
	"fmt"
	"time"
)

// Limits bound what one guest (or one tool of it) may use. A zero field means "inherit":
// from the guest's limits for a tool, from DefaultLimits for a guest.
type Limits struct {
	// MemoryBytes caps the linear memory of one instance, in bytes (rounded down to whole
	// 64 KiB pages). memory.grow past it returns -1 to the guest.
	MemoryBytes uint64
	// Timeout caps the wall-clock time of one call, including instantiation when a fresh
	// instance is needed.
	Timeout time.Duration
	// Instances caps the instances of one guest that exist at once, and so its concurrent
	// calls; further calls wait for a free instance (or their context).
	Instances int
	// OutputBytes caps the size of one call's result JSON, in bytes — and of the guest's
	// manifest, which is a result of mcpwasm_describe.
	OutputBytes int

	// Load caps, checked before and while the module compiles; they apply to the guest as a
	// whole and are ignored per tool.

	// ModuleBytes caps the size of the .wasm module, checked before anything is parsed.
	ModuleBytes int
	// ManifestBytes caps the manifest JSON that mcpwasm_describe returns (at most
	// OutputBytes either way).
	ManifestBytes int
	// Tools caps the tools a manifest declares, and separately its resources, resource
	// templates and prompts.
	Tools int
	// Nesting caps how deeply blocks, loops and ifs nest in one function. wazero's compile
	// time grows with the square of the depth (50,000 nested empty blocks take ~50 s).
	Nesting int
	// CompileMemory caps the memory compiling the module may take, in bytes, as estimated
	// from its largest function, its code size and its function count before compiling:
	// wazero's compiler took 1.7 GiB for a 30 MB module of one function.
	CompileMemory uint64
	// CompileTimeout caps compiling the module. A compile that runs past it (or past the
	// context passed to Load) is abandoned: Load returns, the compile finishes in the
	// background (wazero's compiler cannot be interrupted), and its result is discarded.
	CompileTimeout time.Duration
}

// DefaultLimits returns the limits in force when nothing else is configured: 256 MiB of
// linear memory per instance, 30 s per call, 4 instances per guest, 16 MiB of result; at load
// a 64 MiB module, a 4 MiB manifest, 1,000 tools, blocks nested 10,000 deep, an estimated 1 GiB
// and 5 minutes to compile —
// generous enough for a Go guest (whose runtime alone needs a few MiB), tight enough that a
// looping or ballooning guest never takes the server down. See RATIONALE.md, "Why these
// default limits?". It is a function, not a variable, so no package can change another's
// defaults.
func DefaultLimits() Limits {
	return Limits{
		MemoryBytes: 256 << 20,
		Timeout:     30 * time.Second,
		Instances:   4,
		OutputBytes: 16 << 20,

		ModuleBytes:    64 << 20,
		ManifestBytes:  4 << 20,
		Tools:          1000,
		Nesting:        10000,
		CompileMemory:  1 << 30,
		CompileTimeout: 5 * time.Minute,
	}
}

// pageSize is the WebAssembly page, the unit linear memory grows by.
const pageSize = 65536

// Merge returns l with each zero field taken from base.
func (l Limits) Merge(base Limits) Limits {
	l.MemoryBytes = cmp.Or(l.MemoryBytes, base.MemoryBytes)
	l.Timeout = cmp.Or(l.Timeout, base.Timeout)
	l.Instances = cmp.Or(l.Instances, base.Instances)
	l.OutputBytes = cmp.Or(l.OutputBytes, base.OutputBytes)
	l.ModuleBytes = cmp.Or(l.ModuleBytes, base.ModuleBytes)
	l.ManifestBytes = cmp.Or(l.ManifestBytes, base.ManifestBytes)
	l.Tools = cmp.Or(l.Tools, base.Tools)
	l.Nesting = cmp.Or(l.Nesting, base.Nesting)
	l.CompileMemory = cmp.Or(l.CompileMemory, base.CompileMemory)
	l.CompileTimeout = cmp.Or(l.CompileTimeout, base.CompileTimeout)
	return l
}

// Validate checks l for values no guest can run under and returns an error naming the
// first: memory below one 64 KiB page or above the 4 GiB of 32-bit linear memory, or a
// negative timeout, instance, output or load limit. Zero fields are checked as given: merge
// with DefaultLimits first.
func (l Limits) Validate() error {
	switch {
	case l.MemoryBytes < pageSize:
		return fmt.Errorf("memory limit %d bytes is below one 64 KiB page", l.MemoryBytes)
	case l.MemoryBytes > 1<<32:
		return fmt.Errorf("memory limit %d bytes exceeds the 4 GiB of 32-bit linear memory", l.MemoryBytes)
	case l.Timeout < 0:
		return fmt.Errorf("negative timeout %v", l.Timeout)
	case l.Instances < 0:
		return fmt.Errorf("negative instance limit %d", l.Instances)
	case l.OutputBytes < 0:
		return fmt.Errorf("negative output limit %d", l.OutputBytes)
	case l.ModuleBytes < 0 || l.ManifestBytes < 0 || l.Tools < 0 || l.Nesting < 0 || l.CompileTimeout < 0:
		return fmt.Errorf("negative load limit (module %d, manifest %d, tools %d, nesting %d, compile %v)",
			l.ModuleBytes, l.ManifestBytes, l.Tools, l.Nesting, l.CompileTimeout)
	}
	return nil
}
