package snapstate

import (
	"bytes"
	"errors"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/memory"
)

// A snapshot file decodes to what was encoded; a truncated one, one with trailing bytes, one
// whose memory is over the limit and one whose spans go backwards are refused.
func TestSnapshotFileCodec(t *testing.T) {
	mem := make([]byte, 3*memory.PageSize)
	copy(mem[10:], "start")
	copy(mem[2*memory.PageSize+5:], "grown")
	s := &Snapshot{Heap: mem, Spans: CopySpans(mem, memory.PageSize), Globals: []Global{{"mcpwasm_global_0", 1 << 20}, {"mcpwasm_global_1", 7}}}
	b := Encode(s, []byte("state"))
	got, state, err := Decode(b, 3*memory.PageSize)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Heap, mem) || len(got.Spans) != 2 || got.Spans[1] != (Span{2 * memory.PageSize, 3 * memory.PageSize}) || string(state) != "state" ||
		len(got.Globals) != 2 || got.Globals[0] != s.Globals[0] || got.Globals[1] != s.Globals[1] {
		t.Fatalf("decoded %v spans, globals %v, state %q; want %v, %v, \"state\"", got.Spans, got.Globals, state, s.Spans, s.Globals)
	}
	backwards := Encode(&Snapshot{Heap: mem, Spans: []Span{{2 * memory.PageSize, 3 * memory.PageSize}, {0, memory.PageSize}}}, nil)
	for name, c := range map[string]struct {
		b     []byte
		limit uint64
	}{
		"truncated":  {b[:len(b)-3], 3 * memory.PageSize},
		"trailing":   {append(bytes.Clone(b), 0), 3 * memory.PageSize},
		"over limit": {b, 2 * memory.PageSize},
		"backwards":  {backwards, 3 * memory.PageSize},
		"no magic":   {b[1:], 3 * memory.PageSize},
	} {
		if _, _, err := Decode(c.b, c.limit); !errors.Is(err, ErrFile) {
			t.Errorf("%s: %v; want ErrFile", name, err)
		}
	}
}

// The file layout is pinned byte for byte: a change to it (the magic included) must bump
// DiskFormat, which is part of the file name, or another build would misread the files.
func TestSnapshotFileLayoutPinned(t *testing.T) {
	mem := make([]byte, memory.PageSize)
	mem[1] = 7
	got := Encode(&Snapshot{Heap: mem, Spans: []Span{{From: 0, To: 2}}, Globals: []Global{{Name: "g", Val: 5}}}, []byte("st"))
	want := "mcpwasm-snapshot\n" + // magic
		"\x80\x80\x04" + // memory: 65536 bytes
		"\x01" + "\x00\x02" + "\x00\x07" + // one span, 0 to 2, its bytes
		"\x01" + "\x01g" + "\x05" + // one global, "g" = 5
		"\x02st" // the kind's state
	if DiskFormat != 1 || string(got) != want {
		t.Errorf("format %d: Encode = %q\nwant format 1: %q", DiskFormat, got, want)
	}
}
