package wasm

import (
	"encoding/binary"
	"fmt"
)

// Table is one table of the table section: the bytes before its limits (an optional 0x40
// 0x00 prefix and the reference type), its limits, and the bytes after them (the
// initializer, if the prefix is there).
type Table struct {
	Head, Tail []byte
	Min, Max   uint64
	HasMax     bool
}

// Tables decodes the table section: vec(table), table = [0x40 0x00] reftype limits [expr]. It
// refuses limits flags other than 0 and 1 (shared or 64-bit tables) and limits over 2^32-1.
func (m *Module) Tables() ([]Table, error) {
	sec, ok := m.Section(SectionTable)
	if !ok {
		return nil, nil
	}
	return readTables(sec)
}

func readTables(sec []byte) ([]Table, error) {
	n, off, err := U32(sec)
	if err != nil || uint64(n) > uint64(len(sec)) {
		return nil, fmt.Errorf("%w: table section count", ErrMalformed)
	}
	tables := make([]Table, 0, n)
	for k := uint32(0); k < n; k++ {
		start := off
		init := off+1 < len(sec) && sec[off] == 0x40 && sec[off+1] == 0x00
		if init {
			off += 2
		}
		next, _, _, err := ValType(sec, off)
		if err != nil {
			return nil, fmt.Errorf("%w: table %d: %v", ErrMalformed, k, err)
		}
		off = next
		t := Table{Head: sec[start:off]}
		l, next, err := readLimits(sec, off)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%w: table %d: limits: %v", ErrMalformed, k, err)
		case l.Flags > 1:
			return nil, fmt.Errorf("%w: table %d: limits flags %#x", ErrMalformed, k, l.Flags)
		case l.Min > 1<<32-1 || l.Max > 1<<32-1:
			return nil, fmt.Errorf("%w: table %d: limits over 2^32-1", ErrMalformed, k)
		}
		t.Min, t.Max, t.HasMax, off = l.Min, l.Max, l.HasMax, next
		tailStart := off
		if init {
			if off, err = ConstExpr(sec, off, nil); err != nil {
				return nil, fmt.Errorf("%w: table %d: initializer: %v", ErrMalformed, k, err)
			}
		}
		t.Tail = sec[tailStart:off]
		tables = append(tables, t)
	}
	if off != len(sec) {
		return nil, fmt.Errorf("%w: %d trailing bytes in the table section", ErrMalformed, len(sec)-off)
	}
	return tables, nil
}

// AppendTables appends the table section body that encodes tables.
func AppendTables(b []byte, tables []Table) []byte {
	b = binary.AppendUvarint(b, uint64(len(tables)))
	for _, t := range tables {
		b = append(b, t.Head...)
		if t.HasMax {
			b = append(b, 0x01)
			b = binary.AppendUvarint(b, t.Min)
			b = binary.AppendUvarint(b, t.Max)
		} else {
			b = append(b, 0x00)
			b = binary.AppendUvarint(b, t.Min)
		}
		b = append(b, t.Tail...)
	}
	return b
}
