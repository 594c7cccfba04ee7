package instrument

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/tetratelabs/wazero"
)

// dataSection encodes active segments into memory 0 at i32.const offsets.
func dataSection(segs ...struct {
	at   int32
	data string
}) []byte {
	b := binary.AppendUvarint(nil, uint64(len(segs)))
	for _, s := range segs {
		b = append(b, 0x00, 0x41)
		b = wasm.AppendS32(b, s.at)
		b = append(b, 0x0b)
		b = binary.AppendUvarint(b, uint64(len(s.data)))
		b = append(b, s.data...)
	}
	return b
}

type seg = struct {
	at   int32
	data string
}

// mergeData joins a segment to the one before it when it starts at most dataGapBytes after
// that one's end, filling the gap with zeros, and only in a section in address order without
// overlaps: a filled gap must not cover another segment's bytes.
func TestMergeData(t *testing.T) {
	in := dataSection(seg{0, "ab"}, seg{4, "cd"}, seg{4 + 2 + dataGapBytes, "ef"}, seg{5000, "x"}, seg{-8, "hi"})
	got, ok := mergeData(in)
	if !ok {
		t.Fatal("not merged")
	}
	want := dataSection(seg{0, "ab\x00\x00cd" + string(make([]byte, dataGapBytes)) + "ef"}, seg{5000, "x"}, seg{-8, "hi"})
	if !bytes.Equal(got, want) {
		t.Errorf("merged:\n%x\nwant\n%x", got, want)
	}
	for _, unjoinable := range [][]byte{
		dataSection(seg{0, "a"}, seg{0, "b"}),                           // the second overwrites the first
		dataSection(seg{512, "json"}, seg{300, "http"}, seg{1024, "m"}), // joining 300 and 1024 would zero 512 (testdata/wat/hardening.wat)
		dataSection(seg{0, "abcd"}, seg{2, "x"}, seg{8, "y"}),           // joining 2 and 8 would zero 0's "d"
	} {
		if got, ok := mergeData(unjoinable); ok {
			t.Errorf("joined %x into %x", unjoinable, got)
		}
	}
	// Two runs in address order (as Go's linker writes): the second run's gaps are joined
	// where no segment of the first lies.
	got, ok = mergeData(dataSection(seg{100, "a"}, seg{104, "b"}, seg{0, "c"}, seg{2, "d"}, seg{102, "e"}))
	if want := dataSection(seg{100, "a\x00\x00\x00b"}, seg{0, "c\x00d"}, seg{102, "e"}); !ok || !bytes.Equal(got, want) {
		t.Errorf("two runs joined into %x, %v; want %x", got, ok, want)
	}
	passive := append(dataSection(seg{0, "a"}), 0x01, 0x01, 'b')
	passive[0] = 2
	if _, ok := mergeData(passive); ok {
		t.Error("merged a section with a passive segment")
	}
}

// Random data sections (offsets in one page, overlapping and out of order): the memory an
// instance starts with is the same whether its segments are joined or not.
func TestMergeDataRandom(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	module := func(data []byte) []byte {
		b := []byte("\x00asm\x01\x00\x00\x00")
		b = append(b, 5, 3, 1, 0, 1) // memory section: one memory, min 1 page
		b = append(b, 11)
		b = binary.AppendUvarint(b, uint64(len(data)))
		return append(b, data...)
	}
	memory := func(wasmBytes []byte) []byte {
		mod, err := rt.Instantiate(ctx, wasmBytes)
		if err != nil {
			t.Fatal(err)
		}
		defer mod.Close(ctx)
		b, _ := mod.Memory().Read(0, mod.Memory().Size())
		return bytes.Clone(b)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	joined := 0
	for i := range 300 {
		var segs []seg
		for range 2 + rng.IntN(12) {
			d := make([]byte, rng.IntN(40))
			for k := range d {
				d[k] = byte(1 + rng.IntN(255))
			}
			at := rng.IntN(3000)
			if rng.IntN(2) == 0 && len(segs) > 0 { // often right after the one before
				last := segs[len(segs)-1]
				at = int(last.at) + len(last.data) + rng.IntN(dataGapBytes+200)
			}
			segs = append(segs, seg{int32(min(at, 65536-len(d))), string(d)})
		}
		sec := dataSection(segs...)
		merged, ok := mergeData(sec)
		if !ok {
			continue
		}
		joined++
		if a, b := memory(module(sec)), memory(module(merged)); !bytes.Equal(a, b) {
			t.Fatalf("case %d: data section %x: joined segments give another memory", i, sec)
		}
	}
	if joined < 100 {
		t.Errorf("only %d of 300 sections joined: the test exercises too little", joined)
	}
}
