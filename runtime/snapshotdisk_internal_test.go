package runtime

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// A snapshot file decodes to what was encoded; a truncated one, one with trailing bytes, one
// whose memory is over the limit and one whose spans go backwards are refused.
func TestSnapshotFileCodec(t *testing.T) {
	mem := make([]byte, 3*pageSize)
	copy(mem[10:], "start")
	copy(mem[2*pageSize+5:], "grown")
	s := &snapshot{heap: mem, spans: copySpans(mem, pageSize), globals: []savedGlobal{{"mcpwasm_global_0", 1 << 20}, {"mcpwasm_global_1", 7}}}
	b := encodeSnapshot(s, []byte("state"))
	got, state, err := decodeSnapshot(b, 3*pageSize)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.heap, mem) || len(got.spans) != 2 || got.spans[1] != (span{2 * pageSize, 3 * pageSize}) || string(state) != "state" ||
		len(got.globals) != 2 || got.globals[0] != s.globals[0] || got.globals[1] != s.globals[1] {
		t.Fatalf("decoded %v spans, globals %v, state %q; want %v, %v, \"state\"", got.spans, got.globals, state, s.spans, s.globals)
	}
	backwards := encodeSnapshot(&snapshot{heap: mem, spans: []span{{2 * pageSize, 3 * pageSize}, {0, pageSize}}}, nil)
	for name, c := range map[string]struct {
		b     []byte
		limit uint64
	}{
		"truncated":  {b[:len(b)-3], 3 * pageSize},
		"trailing":   {append(bytes.Clone(b), 0), 3 * pageSize},
		"over limit": {b, 2 * pageSize},
		"backwards":  {backwards, 3 * pageSize},
		"no magic":   {b[1:], 3 * pageSize},
	} {
		if _, _, err := decodeSnapshot(c.b, c.limit); !errors.Is(err, errSnapshotFile) {
			t.Errorf("%s: %v; want errSnapshotFile", name, err)
		}
	}
}

// TestLoadDiskSnapshotWaitingCaller: a caller that waited while another looked for the file
// (a lazily loaded guest's prefetch, reading while the first call's instance is made) gets the
// snapshot that look loaded, not nil — nil made that instance run the start again, and a
// script's start-time value differed from the one in the cache (TestJavaScriptSnapshotInCache,
// once in a loaded run).
func TestLoadDiskSnapshotWaitingCaller(t *testing.T) {
	p := &pool{}
	s := &snapshot{}
	p.disk.once.Do(func() { // the other caller's look: it found the file
		p.snaps.tried, p.snaps.snap, p.disk.loaded = true, s, true
	})
	if got := p.loadDiskSnapshot(context.Background()); got != s {
		t.Fatalf("loadDiskSnapshot after another caller loaded the file = %p, want %p", got, s)
	}
}
