package instrument

import (
	"cmp"
	"encoding/binary"
	"slices"

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
	// The segments fall into runs in address order (Go's linker writes two, the second into
	// the first's holes). A filled gap must not cover bytes an earlier segment wrote: within a
	// run none lies past the run's end; against the earlier runs (their joined segments, in
	// address order) it is looked up (one at 512, then one at 300 joined with one at 1024
	// would zero 512's).
	type extent struct{ from, to uint64 }
	var runs [][]extent // the joined segments of each earlier run
	var run extent
	runFirst := 0 // index in merged of the current run's first segment
	free := func(from, to uint64) bool {
		for _, r := range runs {
			k, _ := slices.BinarySearchFunc(r, from, func(e extent, v uint64) int { return cmp.Compare(e.to, v+1) })
			if k < len(r) && r[k].from < to { // the first segment ending after from starts before to
				return false
			}
		}
		return true
	}
	var merged []segment
	var total int
	for i, s := range segs {
		at, end := uint64(s.at), uint64(s.at)+uint64(len(s.data))
		if i == 0 || at < run.to { // a new run
			if i > 0 {
				ext := make([]extent, 0, len(merged)-runFirst)
				for _, m := range merged[runFirst:] {
					ext = append(ext, extent{uint64(m.at), uint64(m.at) + uint64(len(m.data))})
				}
				if runs = append(runs, ext); len(runs) > 16 {
					return nil, false
				}
				runFirst = len(merged)
			}
			run = extent{at, end}
		} else if at-run.to <= dataGapBytes && free(run.to, at) {
			// The last joined segment ends at run.to: the run is in address order.
			last := &merged[len(merged)-1]
			total += int(at-run.to) + len(s.data)
			last.data = append(last.data, make([]byte, at-run.to)...)
			last.data = append(last.data, s.data...)
			run.to = end
			continue
		}
		run.to = max(run.to, end)
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
