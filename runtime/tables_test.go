package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// tableModule is a module of only a table section (tables as its entries): enough for a load
// to reach the table bound, which is checked before the ABI.
func tableModule(tables ...[]byte) []byte {
	return append([]byte("\x00asm\x01\x00\x00\x00"), wsec(4, wvec(tables...))...)
}

// table encodes a table of reftype ref (0x70 funcref, 0x6f externref) with minimum lo and,
// if hi >= 0, maximum hi.
func table(ref byte, lo uint64, hi int64) []byte {
	if hi < 0 {
		return append([]byte{ref, 0}, uleb(lo)...)
	}
	return append(append([]byte{ref, 1}, uleb(lo)...), uleb(uint64(hi))...)
}

// table.grow by hundreds of millions of elements returns -1 instead of allocating GBs outside
// the memory limit (reproducer table-oom: 1.5 GiB of host memory at --memory-mb 1, or the
// host's death); growth within the bound still works, for funcref and externref tables.
func TestTableGrowBounded(t *testing.T) {
	h, _ := newHost(t)
	for _, mem := range []uint64{1 << 20, 0} { // 1 MiB, and the default 256 MiB
		g := load(t, h, h3Fixture(t, "tables"), &runtime.GuestConfig{Limits: runtime.Limits{MemoryBytes: mem}})
		if got := text(t, call(t, g, "big", `{}`)); got != "f=n e=n" {
			t.Errorf("memory %d: big: %q, want both grows refused", mem, got)
		}
		if got := text(t, call(t, g, "some", `{}`)); got != "f=y e=y" {
			t.Errorf("memory %d: some: %q, want both grows done", mem, got)
		}
		// 61,000 funcref elements, within the funcref table's half of the 131,072 of 1 MiB.
		if got := text(t, call(t, g, "fill", `{}`)); got != "f=y e=y" {
			t.Errorf("memory %d: fill: %q, want the grow done", mem, got)
		}
		g.Close(context.Background())
	}
}

// A module whose tables' minimums add up to more than the bound is refused at load, naming
// the limit: one table (funcref or externref), or many tables each under it; likewise element
// segments (a 20 MB passive segment took 2.4 GiB to load at a 1 MiB memory limit).
func TestTableMinimumOverLimit(t *testing.T) {
	h, _ := newHost(t)
	cfg := &runtime.GuestConfig{Source: "tables", Limits: runtime.Limits{MemoryBytes: 1 << 20}}
	for name, tc := range map[string]struct {
		wasm []byte
		want string
	}{
		"funcref":   {tableModule(table(0x70, 50000000, -1)), "tables declare 50000000 elements at minimum, over the table limit of 131072 elements (the memory limit of 1 MiB, at 8 bytes an element)"},
		"externref": {tableModule(table(0x6f, 131073, 131073)), "tables declare 131073 elements at minimum"},
		"many":      {tableModule(table(0x70, 50000, -1), table(0x6f, 50000, 60000), table(0x70, 50000, -1)), "tables declare 150000 elements at minimum"},
		// Element segments are kept per instance too: a passive one of 200,000 elements.
		"elements": {append([]byte("\x00asm\x01\x00\x00\x00"), wsec(9, wvec(append(append([]byte{1, 0}, uleb(200000)...), make([]byte, 200000)...)))...),
			"element segments hold 200000 elements, over the table limit of 131072 elements (the memory limit of 1 MiB, at 8 bytes an element)"},
	} {
		_, err := h.Load(context.Background(), tc.wasm, cfg)
		if !errors.Is(err, runtime.ErrLoadLimit) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "tables: load limit exceeded: the module's ") {
			t.Errorf("%s: %v, want ErrLoadLimit %q", name, err, tc.want)
		}
	}
	// Two of those tables fit: the load goes on (and fails for want of the ABI's exports).
	_, err := h.Load(context.Background(), tableModule(table(0x70, 50000, -1), table(0x6f, 50000, 60000)), cfg)
	if errors.Is(err, runtime.ErrLoadLimit) || !errors.Is(err, runtime.ErrABI) {
		t.Errorf("two tables of 50000: %v, want only the ABI's complaint", err)
	}
	answersNormally(t, h)
}

// An imported table is refused by name: the host provides none.
func TestTableImportRefused(t *testing.T) {
	h, _ := newHost(t)
	imp := append(append(wname("env"), wname("t")...), append([]byte{0x01}, table(0x70, 1, -1)...)...)
	wasm := append([]byte("\x00asm\x01\x00\x00\x00"), wsec(2, wvec(imp))...)
	_, err := h.Load(context.Background(), wasm, nil)
	if !errors.Is(err, runtime.ErrABI) || !strings.Contains(err.Error(), "imports table env.t") {
		t.Errorf("Load: %v, want the imported table refused", err)
	}
}
