package snapstate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"

	"github.com/mcpwasm/mcpwasm/runtime/internal/memory"
)

// DiskFormat is the version of the file layout below; part of the file name.
const DiskFormat = 1

// Magic starts a file's content (after the seal).
const Magic = "mcpwasm-snapshot\n"

// MaxFile bounds what a read accepts (the memory limit caps what a pool writes).
const MaxFile = 4 << 30

// Encode lays s out as: the magic; the memory's size; the spans (count, then from,
// to and the bytes of each); the globals (count, then name and value of each); the kind's
// state (length, bytes). Numbers are uvarints.
func Encode(s *Snapshot, state []byte) []byte {
	n := len(Magic) + 64 + len(state)
	for _, sp := range s.Spans {
		n += sp.To - sp.From + 20
	}
	b := make([]byte, 0, n)
	b = append(b, Magic...)
	mem := s.Memory()
	defer runtime.KeepAlive(s) // mem may be s's image's mapping
	b = binary.AppendUvarint(b, uint64(len(mem)))
	b = binary.AppendUvarint(b, uint64(len(s.Spans)))
	for _, sp := range s.Spans {
		b = binary.AppendUvarint(b, uint64(sp.From))
		b = binary.AppendUvarint(b, uint64(sp.To))
		b = append(b, mem[sp.From:sp.To]...)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Globals)))
	for _, g := range s.Globals {
		b = binary.AppendUvarint(b, uint64(len(g.Name)))
		b = append(b, g.Name...)
		b = binary.AppendUvarint(b, g.Val)
	}
	b = binary.AppendUvarint(b, uint64(len(state)))
	return append(b, state...)
}

// ErrFile is a file that does not decode.
var ErrFile = errors.New("malformed snapshot file")

// Decode is Encode's inverse; memory over limit bytes, spans out of order or
// outside memory, and trailing bytes are errors.
func Decode(b []byte, limit uint64) (*Snapshot, []byte, error) {
	rest, ok := bytes.CutPrefix(b, []byte(Magic))
	if !ok {
		return nil, nil, fmt.Errorf("%w: no magic", ErrFile)
	}
	var bad error
	num := func(max uint64) uint64 {
		v, n := binary.Uvarint(rest)
		if n <= 0 || v > max {
			if bad == nil {
				bad = fmt.Errorf("%w at byte %d", ErrFile, len(b)-len(rest))
			}
			rest = nil
			return 0
		}
		rest = rest[n:]
		return v
	}
	take := func(n uint64) []byte {
		if uint64(len(rest)) < n {
			if bad == nil {
				bad = fmt.Errorf("%w: truncated", ErrFile)
			}
			rest = nil
			return nil
		}
		out := rest[:n]
		rest = rest[n:]
		return out
	}
	memLen := num(limit)
	if memLen%memory.PageSize != 0 {
		return nil, nil, fmt.Errorf("%w: memory of %d bytes is not whole pages", ErrFile, memLen)
	}
	s := &Snapshot{Heap: make([]byte, memLen)}
	prev := uint64(0)
	for range num(memLen/memory.PageSize + 1) {
		from, to := num(memLen), num(memLen)
		if bad != nil {
			break
		}
		if from < prev || to < from {
			return nil, nil, fmt.Errorf("%w: span %d-%d out of order", ErrFile, from, to)
		}
		copy(s.Heap[from:to], take(to-from))
		s.Spans = append(s.Spans, Span{int(from), int(to)})
		prev = to
	}
	for range num(1 << 16) {
		name := string(take(num(256)))
		s.Globals = append(s.Globals, Global{name, num(^uint64(0))})
	}
	state := take(num(1 << 20))
	if bad != nil {
		return nil, nil, bad
	}
	if len(rest) != 0 {
		return nil, nil, fmt.Errorf("%w: %d bytes after the end", ErrFile, len(rest))
	}
	return s, state, nil
}
