package runtime

import (
	"encoding/binary"

	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// dataGapBytes is the widest run of zeros mergeData fills to join two data segments.
const dataGapBytes = 1024

// mergeData returns the data section sec with adjacent active segments joined, or ok false to
// keep it as it is. Only a section whose segments are in address order without overlaps is
// joined (Go's and LLVM's linkers write them so). wazero evaluates and copies every segment on every instantiation with an
// allocation each, and Go's linker splits its data at every run of zeros: the Go echo guest
// has 38968 segments, whose application was 70% of its instantiation (RATIONALE "Pristine
// instances from snapshots"). A segment joins the one before it when it starts at most
// dataGapBytes after that one's end; the gap is filled with zeros, which a fresh memory holds
// there anyway (no segment covers it), and no byte any segment wrote lands elsewhere, so the memory an
// instance starts with is the same, and so is an out-of-bounds segment's failure (the
// joined segment ends where its last part did). Only a section of active segments into
// memory 0 at i32.const offsets is joined, and only in a module without a data count section:
// one with it may name segments by index (memory.init, data.drop).
func mergeData(sec []byte) (out []byte, ok bool) {
	type segment struct {
		at   uint32
		data []byte
	}
	n, off, err := wasm.U32(sec)
	if err != nil || n < 2 || uint64(n) > uint64(len(sec)) {
		return nil, false
	}
	segs := make([]segment, 0, n)
	for range n {
		if off+2 > len(sec) || sec[off] != 0x00 || sec[off+1] != 0x41 { // active, memory 0; i32.const
			return nil, false
		}
		off += 2
		v, l, err := wasm.S33(sec[off:])
		if err != nil || v < -1<<31 || v > 1<<31-1 || off+l >= len(sec) || sec[off+l] != 0x0b {
			return nil, false
		}
		off += l + 1
		size, l, err := wasm.U32(sec[off:])
		if err != nil || uint64(off)+uint64(l)+uint64(size) > uint64(len(sec)) {
			return nil, false
		}
		off += l
		segs = append(segs, segment{uint32(int32(v)), sec[off : off+int(size)]})
		off += int(size)
	}
	if off != len(sec) {
		return nil, false
	}
	// Only a section in address order, no segment overlapping the one before: otherwise a
	// filled gap could cover an earlier segment's bytes (one at 512, then one at 300 joined
	// with one at 1024 would zero 512's).
	for i := 1; i < len(segs); i++ {
		if uint64(segs[i].at) < uint64(segs[i-1].at)+uint64(len(segs[i-1].data)) {
			return nil, false
		}
	}
	var merged []segment
	var total int
	for _, s := range segs {
		if k := len(merged) - 1; k >= 0 {
			last := &merged[k]
			end := uint64(last.at) + uint64(len(last.data))
			if uint64(s.at) >= end && uint64(s.at)-end <= dataGapBytes {
				total += int(uint64(s.at)-end) + len(s.data)
				last.data = append(last.data, make([]byte, uint64(s.at)-end)...)
				last.data = append(last.data, s.data...)
				continue
			}
		}
		// A copy: appending to a slice of sec would overwrite the segments after it.
		merged = append(merged, segment{s.at, append([]byte(nil), s.data...)})
		total += len(s.data)
	}
	if len(merged) == len(segs) {
		return nil, false
	}
	out = make([]byte, 0, total+len(merged)*12+5)
	out = binary.AppendUvarint(out, uint64(len(merged)))
	for _, s := range merged {
		out = append(out, 0x00, 0x41)
		out = wasm.AppendS32(out, int32(s.at))
		out = append(out, 0x0b)
		out = binary.AppendUvarint(out, uint64(len(s.data)))
		out = append(out, s.data...)
	}
	return out, true
}
