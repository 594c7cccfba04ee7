package runtime

import (
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	"github.com/tetratelabs/wazero/experimental"
)

// Limits bound what one guest (or one tool of it) may use; see policy.Limits. It is an
// alias, so runtime.Limits and policy.Limits are one type.
type Limits = policy.Limits

// stdioCaptureBytes caps what one call's guest stdout or stderr keeps for the log.
const stdioCaptureBytes = 64 << 10

const pageSize = 65536

// limitedMemory backs one instance's linear memory and refuses to grow past limit bytes.
// wazero's own page limit is per runtime and refuses modules that *declare* a larger maximum;
// an allocator per instance clamps growth instead, so such modules still load (ABI.md §8).
type limitedMemory struct {
	buf   []byte
	limit uint64
	hit   bool // a grow was refused: a following trap is reported as the memory limit
	// mapped: buf is a reservation of limit bytes with a snapshot's image mapped over its
	// start (memimage_linux.go), released by Free; image is that image's size.
	mapped bool
	image  int
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

func (m *limitedMemory) Free() {
	if m.mapped && m.buf != nil {
		unmapMemory(m.buf)
	}
	m.buf = nil
}

// mappedAllocator is newMemoryAllocator for an instance restored from a snapshot with an
// image: its memory is a reservation of the limit (address space only) with the image mapped
// copy-on-write over its start, so growing never copies and a reset drops the pages written
// (snapshot.go). If the mapping fails it allocates as newMemoryAllocator does.
func mappedAllocator(limit uint64, img *memImage, track func(*limitedMemory)) experimental.MemoryAllocator {
	limit -= limit % pageSize
	heap := newMemoryAllocator(limit, track)
	return experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		lim := min(limit, max)
		region, err := img.mapMemory(int(lim))
		if err != nil {
			return heap.Allocate(capacity, max)
		}
		m := &limitedMemory{limit: lim, buf: region[:0], mapped: true, image: img.size}
		track(m)
		return m
	})
}
