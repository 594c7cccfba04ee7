// Package memory owns a guest instance's host memory: the allocator that holds linear memory
// to the memory limit (Limited, NewAllocator), a snapshot's image mapped copy-on-write under
// restored instances and the page drops that reset them (Image, MappedAllocator,
// ResetMapped: Linux, image_linux.go; elsewhere copies), and the native call stacks wazero
// keeps per function (NativeStack, ReturnStackMemory). It may import wazero's api and
// experimental packages and golang.org/x/sys/unix; nothing of ours.
package memory

import (
	"github.com/tetratelabs/wazero/experimental"
)

// PageSize is a WebAssembly page: 64 KiB.
const PageSize = 65536

// Limited backs one instance's linear memory and refuses to grow past limit bytes.
// wazero's own page limit is per runtime and refuses modules that *declare* a larger maximum;
// an allocator per instance clamps growth instead, so such modules still load (ABI.md §8).
type Limited struct {
	buf   []byte
	Limit uint64
	Hit   bool // a grow was refused: a following trap is reported as the memory limit
	// Mapped: buf is a reservation of Limit bytes with a snapshot's image mapped over its
	// start (image_linux.go), released by Free; Image is that image's size.
	Mapped bool
	Image  int
}

// NewAllocator returns wazero an allocator of Limited memories of at most limit bytes (whole
// pages), each handed to track when it is made.
func NewAllocator(limit uint64, track func(*Limited)) experimental.MemoryAllocator {
	limit -= limit % PageSize
	return experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		m := &Limited{Limit: min(limit, max), buf: make([]byte, 0, min(capacity, limit))}
		track(m)
		return m
	})
}

// Reallocate grows the memory to size bytes, or returns nil (and sets Hit) past the limit.
func (m *Limited) Reallocate(size uint64) []byte {
	if size > m.Limit {
		m.Hit = true
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	// Grow geometrically (bounded by the limit) so page-by-page growth stays linear overall.
	newCap := min(max(size, uint64(cap(m.buf))*2), m.Limit)
	nb := make([]byte, size, newCap)
	copy(nb, m.buf)
	m.buf = nb
	return nb
}

// Free releases the memory (unmaps a mapped one).
func (m *Limited) Free() {
	if m.Mapped && m.buf != nil {
		unmapMemory(m.buf)
	}
	m.buf = nil
}

// MappedAllocator is NewAllocator for an instance restored from a snapshot with an
// image: its memory is a reservation of the limit (address space only) with the image mapped
// copy-on-write over its start, so growing never copies and a reset drops the pages written
// (snapshot.go). If the mapping fails it allocates as NewAllocator does.
func MappedAllocator(limit uint64, img *Image, track func(*Limited)) experimental.MemoryAllocator {
	limit -= limit % PageSize
	heap := NewAllocator(limit, track)
	return experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		lim := min(limit, max)
		region, err := img.mapMemory(int(lim))
		if err != nil {
			return heap.Allocate(capacity, max)
		}
		m := &Limited{Limit: lim, buf: region[:0], Mapped: true, Image: img.size}
		track(m)
		return m
	})
}
