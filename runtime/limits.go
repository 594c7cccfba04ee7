package runtime

import (
	"cmp"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero/experimental"
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

	// Load caps (loadcaps.go); they apply to the guest as a whole and are ignored per tool.

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
	// from its largest function, its code size and its function count before compiling
	// (compilecaps.go): wazero's compiler took 1.7 GiB for a 30 MB module of one function.
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

// stdioCaptureBytes caps what one call's guest stdout or stderr keeps for the log.
const stdioCaptureBytes = 64 << 10

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

func (l Limits) validate() error {
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

// limitedMemory backs one instance's linear memory and refuses to grow past limit bytes.
// wazero's own page limit is per runtime and refuses modules that *declare* a larger maximum;
// an allocator per instance clamps growth instead, so such modules still load (ABI.md §8).
type limitedMemory struct {
	buf   []byte
	limit uint64
	hit   bool // a grow was refused: a following trap is reported as the memory limit
}

func newMemoryAllocator(limit uint64, track func(*limitedMemory)) experimental.MemoryAllocator {
	limit -= limit % pageSize
	return experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		m := &limitedMemory{limit: min(limit, max), buf: make([]byte, 0, min(capacity, limit))}
		track(m)
		return m
	})
}

func (m *limitedMemory) Reallocate(size uint64) []byte {
	if size > m.limit {
		m.hit = true
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	// Grow geometrically (bounded by the limit) so page-by-page growth stays linear overall.
	newCap := min(max(size, uint64(cap(m.buf))*2), m.limit)
	nb := make([]byte, size, newCap)
	copy(nb, m.buf)
	m.buf = nb
	return nb
}

func (m *limitedMemory) Free() { m.buf = nil }
