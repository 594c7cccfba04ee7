package loadcheck

import (
	"encoding/binary"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// Many tables that may grow share what their minimums leave: together they never reach past
// the bound, however many there are; a table whose maximum is already lower keeps it, and
// a table that cannot grow is left as declared.
func TestCapTablesShares(t *testing.T) {
	limits := Limits{MemoryBytes: 1 << 20} // 131,072 elements
	var sec []byte
	n := 1000
	sec = binary.AppendUvarint(sec, uint64(n+2))
	for i := range n {
		sec = append(sec, 0x70, 0x00) // funcref, no maximum
		sec = binary.AppendUvarint(sec, uint64(i%3))
	}
	sec = append(sec, 0x6f, 0x01, 10, 20)                             // externref 10..20: already low
	sec = append(sec, 0x40, 0x00, 0x70, 0x01, 5, 5, 0xd0, 0x70, 0x0b) // fixed size, with an initializer
	mod := append([]byte("\x00asm\x01\x00\x00\x00\x04"), binary.AppendUvarint(nil, uint64(len(sec)))...)
	mod = append(mod, sec...)
	out, err := capTables(mod, limits)
	if err != nil {
		t.Fatal(err)
	}
	m, err := wasm.Parse(out)
	if err != nil {
		t.Fatalf("rewritten module: %v", err)
	}
	tables, err := m.Tables()
	if err != nil {
		t.Fatalf("reading the rewritten section: %v", err)
	}
	if len(tables) != n+2 {
		t.Fatalf("%d tables, want %d", len(tables), n+2)
	}
	var sum uint64
	for i, tb := range tables {
		if !tb.HasMax || tb.Max < tb.Min {
			t.Fatalf("table %d: min %d max %d (has %v)", i, tb.Min, tb.Max, tb.HasMax)
		}
		sum += tb.Max
	}
	if sum > tableElements(limits) {
		t.Errorf("the maximums add up to %d, over the bound %d", sum, tableElements(limits))
	}
	if last := tables[n]; last.Max != 20 {
		t.Errorf("externref 10..20 now has maximum %d", last.Max)
	}
	if fixed := tables[n+1]; fixed.Max != 5 || string(fixed.Tail) != "\xd0\x70\x0b" {
		t.Errorf("fixed table: max %d, initializer %x", fixed.Max, fixed.Tail)
	}
	if tables[0].Max <= 100 {
		t.Errorf("a growable table got only %d elements", tables[0].Max)
	}
}
