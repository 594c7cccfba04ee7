// Package snapstate owns what a snapshot is: the state of a started instance (linear memory
// as spans, the mutable globals, the kind's part) that a new instance is given instead of
// running its start (Snapshot, CopySpans), and its file layout in the cache (Encode, Decode).
// When a pool takes, attaches, writes or restores one is the engine's (runtime/internal/engine:
// snapshot.go, snapshotdisk.go). It may import runtime/internal/memory; nothing else of ours.
package snapstate

import (
	"bytes"

	"github.com/mcpwasm/mcpwasm/runtime/internal/memory"
)

// Snapshot is the state of a started instance: what a new instance of the same module and
// profile is given instead of running its start.
type Snapshot struct {
	// Heap is the linear memory (whole pages) on the Go heap, until the pool's attachImage
	// moves it into Image; then it is nil and Memory reads the image. One copy is kept.
	Heap    []byte
	Spans   []Span // the parts of memory a restore copies: the fresh memory, then non-zero pages
	Globals []Global
	Kind    any // the kind's part (kind.Traits.Snapshot)
	// Image is the memory in a memfd that restored instances map copy-on-write
	// (memory.Image); nil where that is not possible: they copy Heap.
	Image *memory.Image
}

// Memory returns the Snapshot's linear memory, whole pages: read-only. Under an image it is
// the image's read-only mapping, valid while s is reachable: a caller that keeps only the
// slice keeps s alive too (runtime.KeepAlive).
func (s *Snapshot) Memory() []byte {
	if s.Image != nil {
		return s.Image.View
	}
	return s.Heap
}

// Span is [from, to) of linear memory.
type Span struct{ From, To int }

// Global is one mutable global of the module, by its export (instrument.ExportGlobalPrefix).
type Global struct {
	Name string // the export
	Val  uint64 // api.Global's encoding
}

// CopySpans returns what a restore of mem copies into a fresh memory of initial bytes: all of
// those (its data segments may since have changed), then the pages past them that are not
// all zero (a grown page starts zeroed), adjacent ones joined.
func CopySpans(mem []byte, initial int) []Span {
	initial = min(initial, len(mem))
	spans := []Span{{0, initial}}
	for off := initial; off < len(mem); off += memory.PageSize {
		end := min(off+memory.PageSize, len(mem))
		if bytes.Equal(mem[off:end], zeroPage[:end-off]) {
			continue
		}
		if last := &spans[len(spans)-1]; last.To == off {
			last.To = end
		} else {
			spans = append(spans, Span{off, end})
		}
	}
	return spans
}

var zeroPage [memory.PageSize]byte
