//go:build linux

package runtime

import (
	"bytes"
	goruntime "runtime"
	"runtime/metrics"
	"testing"
)

// A mapping of a snapshot's image reads the image; what an instance writes stays its own
// (the image and other mappings do not see it); resetMapped brings the image back, copying
// it into the written pages when they are few and dropping them when they are many.
func TestMemImageReset(t *testing.T) {
	const size = 4 * pageSize
	snap := make([]byte, size)
	for i := range snap {
		snap[i] = byte(i*7 + i>>12)
	}
	img, err := newMemImage(snap)
	if err != nil {
		t.Fatal(err)
	}
	a, err := img.mapMemory(8 * pageSize)
	if err != nil {
		t.Fatal(err)
	}
	defer unmapMemory(a)
	b, err := img.mapMemory(size)
	if err != nil {
		t.Fatal(err)
	}
	defer unmapMemory(b)
	if !bytes.Equal(a[:size], snap) || !bytes.Equal(a[size:], make([]byte, 4*pageSize)) {
		t.Fatal("a fresh mapping does not read the image, then zeros")
	}
	var scratch []byte
	for _, tc := range []struct {
		name        string
		pages       int // OS pages written, from the start
		wantDropped bool
	}{
		{"few pages written", 3, false},
		{"many pages written", size / osPage / 2, true},
		{"none written", 0, false},
	} {
		for p := range tc.pages {
			a[p*osPage+5] ^= 0xff
		}
		if tc.pages > 0 && bytes.Equal(a[:size], snap) {
			t.Fatalf("%s: the write did not land", tc.name)
		}
		if !bytes.Equal(b[:size], snap) {
			t.Fatalf("%s: another mapping of the image sees the writes", tc.name)
		}
		dropped, err := resetMapped(a[:size], snap, &scratch)
		if err != nil {
			t.Fatal(err)
		}
		if dropped != tc.wantDropped {
			t.Errorf("%s: dropped %v; want %v", tc.name, dropped, tc.wantDropped)
		}
		if !bytes.Equal(a[:size], snap) {
			t.Errorf("%s: after the reset the memory differs from the snapshot", tc.name)
		}
	}
}

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
	file := encodeSnapshot(&snapshot{heap: mem, spans: []span{{0, size}}}, nil)
	mem = nil
	p := &pool{g: &Guest{host: &Host{}}}
	s, _, err := decodeSnapshot(file, size)
	if err != nil {
		t.Fatal(err)
	}
	file = nil
	p.attachImage(s)
	after := live()
	if s.image == nil {
		t.Fatal("no image for a snapshot of 32 MiB")
	}
	if s.heap != nil {
		t.Errorf("the snapshot keeps %d bytes on the Go heap beside its image", len(s.heap))
	}
	grew := int64(after) - int64(before)
	t.Logf("live heap: %d bytes before, %d with the snapshot held: %+d", before, after, grew)
	if grew > size/4 {
		t.Errorf("the live heap grew by %d bytes with the snapshot held (the file read and dropped); want well under its %d", grew, size)
	}
	got := s.memory()
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
