//go:build linux

package memory

import (
	"bytes"
	"testing"
)

// A mapping of a snapshot's image reads the image; what an instance writes stays its own
// (the image and other mappings do not see it); ResetMapped brings the image back, copying
// it into the written pages when they are few and dropping them when they are many.
func TestMemImageReset(t *testing.T) {
	const size = 4 * PageSize
	snap := make([]byte, size)
	for i := range snap {
		snap[i] = byte(i*7 + i>>12)
	}
	img, err := NewImage(snap)
	if err != nil {
		t.Fatal(err)
	}
	a, err := img.mapMemory(8 * PageSize)
	if err != nil {
		t.Fatal(err)
	}
	defer unmapMemory(a)
	b, err := img.mapMemory(size)
	if err != nil {
		t.Fatal(err)
	}
	defer unmapMemory(b)
	if !bytes.Equal(a[:size], snap) || !bytes.Equal(a[size:], make([]byte, 4*PageSize)) {
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
		dropped, err := ResetMapped(a[:size], snap, &scratch)
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
