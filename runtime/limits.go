package runtime

import (
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
}

// DefaultLimits returns the limits in force when nothing else is configured: 256 MiB of
// linear memory per instance, 30 s per call, 4 instances per guest, 16 MiB of result —
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
	}
}

// stdioCaptureBytes caps what one call's guest stdout or stderr keeps for the log.
const stdioCaptureBytes = 64 << 10

const pageSize = 65536

// Merge returns l with each zero field taken from base.
func (l Limits) Merge(base Limits) Limits {
	if l.MemoryBytes == 0 {
		l.MemoryBytes = base.MemoryBytes
	}
	if l.Timeout == 0 {
		l.Timeout = base.Timeout
	}
	if l.Instances == 0 {
		l.Instances = base.Instances
	}
	if l.OutputBytes == 0 {
		l.OutputBytes = base.OutputBytes
	}
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
