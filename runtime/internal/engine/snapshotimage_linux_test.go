//go:build linux

package engine

import (
	goruntime "runtime"
	"runtime/metrics"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/snapstate"
)

// A snapshot whose memory goes into an image keeps one copy of it, the image's: attachImage
// drops the copy on the Go heap (the live heap does not keep the snapshot's 32 MiB), and the
// snapshot's memory reads the image. Here the snapshot is read from a cache file, as
// loadDiskSnapshot does; TestResetInPlace and TestSnapshotGoGuest restore and reset from it.
func TestSnapshotImageKeptOnce(t *testing.T) {
	const size = 32 << 20
	live := func() uint64 {
		goruntime.GC()
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	before := live()
	mem := make([]byte, size)
	for i := range mem {
		mem[i] = byte(i*7 + i>>12)
	}
	file := snapstate.Encode(&snapstate.Snapshot{Heap: mem, Spans: []snapstate.Span{{From: 0, To: size}}}, nil)
	mem = nil
	p := &pool{g: &Guest{host: &Host{}}}
	s, _, err := snapstate.Decode(file, size)
	if err != nil {
		t.Fatal(err)
	}
	file = nil
	p.attachImage(s)
	after := live()
	if s.Image == nil {
		t.Fatal("no image for a snapshot of 32 MiB")
	}
	if s.Heap != nil {
		t.Errorf("the snapshot keeps %d bytes on the Go heap beside its image", len(s.Heap))
	}
	grew := int64(after) - int64(before)
	t.Logf("live heap: %d bytes before, %d with the snapshot held: %+d", before, after, grew)
	if grew > size/4 {
		t.Errorf("the live heap grew by %d bytes with the snapshot held (the file read and dropped); want well under its %d", grew, size)
	}
	got := s.Memory()
	if len(got) != size {
		t.Fatalf("the snapshot's memory is %d bytes; want %d", len(got), size)
	}
	for i := 0; i < size; i += 4093 {
		if want := byte(i*7 + i>>12); got[i] != want {
			t.Fatalf("byte %d of the snapshot's memory is %d; want %d", i, got[i], want)
		}
	}
	goruntime.KeepAlive(s)
}
