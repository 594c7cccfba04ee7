package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mcpwasm/mcpwasm/internal/size"
)

// Tables are host memory the guest controls: wazero keeps every table element (funcref or
// externref) as one 8-byte word in a Go slice, outside linear memory and so outside the
// memory allocator that enforces Limits.MemoryBytes; table.grow accepted up to 2^32-1
// elements (32 GiB). See RATIONALE.md, "Why are tables bounded by the memory limit?".
//
// capTables bounds them at load: the tables of one instance hold at most tableElements(limits)
// elements together, and so do its element segments (which wazero keeps per instance too). A module whose tables' minimums add up to more is refused; otherwise
// every table that may grow gets a declared maximum of its minimum plus an equal share of what
// is left, so wazero itself refuses (table.grow returns -1) a growth past the bound. wazero
// offers no hook on table.grow; a lowered maximum is visible to the guest only as that
// refusal. Tables cannot be imported: the host provides none.

// tableElementBytes is what one table element costs the host.
const tableElementBytes = 8

// tableElements is how many table elements the tables of one instance may hold: as many
// bytes as its linear memory may.
func tableElements(limits Limits) uint64 { return limits.MemoryBytes / tableElementBytes }

// errTableFormat: a table or import this walk cannot read; compile leaves it to wazero.
var errTableFormat = errors.New("table encoding not understood")

// tableDef is one table of the table section: its bytes before the limits (an optional
// 0x40 0x00 prefix and the reference type), limits, and bytes after (an initializer).
type tableDef struct {
	head, tail []byte
	min        uint64
	max        uint64
	hasMax     bool
}

// capTables returns wasm with its tables bounded as described above (wasm itself when no
// maximum needs lowering), an ErrLoadLimit error for minimums over the bound, an ErrABI error
// for an imported table, or an error wrapping errTableFormat for an encoding it cannot read.
func capTables(wasm []byte, limits Limits) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, fmt.Errorf("%w: no wasm header", errTableFormat)
	}
	var tableSec []byte
	tableAt, tableEnd := -1, -1
	for i := 8; i < len(wasm); {
		start := i
		id := wasm[i]
		secSize, n, err := readU32(wasm[i+1:])
		if err != nil || uint64(i+1+n)+uint64(secSize) > uint64(len(wasm)) {
			return nil, fmt.Errorf("%w: section %d overruns the module", errTableFormat, id)
		}
		body := wasm[i+1+n : i+1+n+int(secSize)]
		i += 1 + n + int(secSize)
		switch id {
		case sectionImport:
			if err := refuseTableImports(body); err != nil {
				return nil, err
			}
		case 4: // table
			tableSec, tableAt, tableEnd = body, start, i
		case 9: // element
			items, err := elementItems(body)
			if err != nil {
				return nil, err
			}
			if budget := tableElements(limits); items > budget {
				return nil, fmt.Errorf("%w: the module's element segments hold %d elements, over the table limit of %d elements (the memory limit of %s, at %d bytes an element)",
					ErrLoadLimit, items, budget, size.Format(limits.MemoryBytes), tableElementBytes)
			}
		}
	}
	if tableSec == nil {
		return wasm, nil
	}
	tables, err := readTables(tableSec)
	if err != nil {
		return nil, err
	}
	budget := tableElements(limits)
	var mins uint64
	growable := uint64(0)
	for _, t := range tables {
		mins += t.min
		if !t.hasMax || t.max > t.min {
			growable++
		}
	}
	if mins > budget {
		return nil, fmt.Errorf("%w: the module's tables declare %d elements at minimum, over the table limit of %d elements (the memory limit of %s, at %d bytes an element)",
			ErrLoadLimit, mins, budget, size.Format(limits.MemoryBytes), tableElementBytes)
	}
	changed := false
	for i := range tables {
		t := &tables[i]
		if t.hasMax && t.max <= t.min {
			continue
		}
		bound := t.min + (budget-mins)/growable
		if !t.hasMax || t.max > bound {
			t.max, t.hasMax, changed = bound, true, true
		}
	}
	if !changed {
		return wasm, nil
	}
	sec := binary.AppendUvarint(nil, uint64(len(tables)))
	for _, t := range tables {
		sec = append(sec, t.head...)
		sec = append(sec, 0x01)
		sec = binary.AppendUvarint(sec, t.min)
		sec = binary.AppendUvarint(sec, t.max)
		sec = append(sec, t.tail...)
	}
	out := make([]byte, 0, len(wasm)+len(tables)*5+8)
	out = append(out, wasm[:tableAt]...)
	out = append(out, 4)
	out = binary.AppendUvarint(out, uint64(len(sec)))
	out = append(out, sec...)
	return append(out, wasm[tableEnd:]...), nil
}

// readTables decodes the table section: vec(table), table = [0x40 0x00] reftype limits [expr].
func readTables(sec []byte) ([]tableDef, error) {
	n, off, err := readU32(sec)
	if err != nil || uint64(n) > uint64(len(sec)) {
		return nil, fmt.Errorf("%w: table section count", errTableFormat)
	}
	tables := make([]tableDef, 0, n)
	for k := uint32(0); k < n; k++ {
		start := off
		init := off+1 < len(sec) && sec[off] == 0x40 && sec[off+1] == 0x00
		if init {
			off += 2
		}
		if off, err = skipRefType(sec, off); err != nil {
			return nil, fmt.Errorf("%w: table %d: %v", errTableFormat, k, err)
		}
		t := tableDef{head: sec[start:off]}
		if off >= len(sec) {
			return nil, fmt.Errorf("%w: table %d: truncated", errTableFormat, k)
		}
		flags := sec[off]
		off++
		if flags > 1 { // shared (refused by wazero) or 64-bit tables (not supported)
			return nil, fmt.Errorf("%w: table %d: limits flags %#x", errTableFormat, k, flags)
		}
		v, l, err := readU32(sec[off:])
		if err != nil {
			return nil, fmt.Errorf("%w: table %d: minimum: %v", errTableFormat, k, err)
		}
		t.min, off = uint64(v), off+l
		if flags == 1 {
			if v, l, err = readU32(sec[off:]); err != nil {
				return nil, fmt.Errorf("%w: table %d: maximum: %v", errTableFormat, k, err)
			}
			t.max, t.hasMax, off = uint64(v), true, off+l
		}
		tailStart := off
		if init {
			if off, err = skipConstExpr(sec, off); err != nil {
				return nil, fmt.Errorf("%w: table %d: initializer: %v", errTableFormat, k, err)
			}
		}
		t.tail = sec[tailStart:off]
		tables = append(tables, t)
	}
	if off != len(sec) {
		return nil, fmt.Errorf("%w: %d trailing bytes in the table section", errTableFormat, len(sec)-off)
	}
	return tables, nil
}

// refuseTableImports refuses an imported table; an entry it cannot read ends the walk (the
// module is left to wazero, and an import nobody provides fails to instantiate anyway).
func refuseTableImports(sec []byte) error {
	n, off, err := readU32(sec)
	if err != nil {
		return nil
	}
	for range n {
		var names [2]string
		for j := range names {
			s, l, err := readName(sec[min(off, len(sec)):])
			if err != nil {
				return nil
			}
			names[j], off = s, off+l
		}
		if off >= len(sec) {
			return nil
		}
		kind := sec[off]
		off++
		switch kind {
		case 0x00: // func: typeidx
			_, l, err := readU32(sec[min(off, len(sec)):])
			if err != nil {
				return nil
			}
			off += l
		case 0x01:
			return fmt.Errorf("%w: module imports table %s.%s; the host provides no tables, a guest defines its own", ErrABI, names[0], names[1])
		case 0x02: // memory: limits (checkModule refuses imported memories)
			if skipLimits(sec, &off) != nil {
				return nil
			}
		case 0x03: // global: valtype, mutability
			if off, err = skipRefType(sec, off); err != nil {
				return nil
			}
			off++
		default: // tags and anything newer: the tables were the point
			return nil
		}
	}
	return nil
}

// skipRefType skips a value or reference type: one byte, or 0x63/0x64 (ref null ht, ref ht)
// and a heap type (s33).
func skipRefType(b []byte, off int) (int, error) {
	if off >= len(b) {
		return off, errors.New("truncated type")
	}
	c := b[off]
	off++
	if c == 0x63 || c == 0x64 {
		_, l, err := readLEB(b[min(off, len(b)):], 5)
		return off + l, err
	}
	return off, nil
}

// skipConstExpr skips a constant expression (WebAssembly 2.0 §3.3.10, with extended constant
// expressions) through its end opcode.
func skipConstExpr(b []byte, off int) (int, error) {
	for off < len(b) {
		op := b[off]
		off++
		var err error
		var l int
		switch {
		case op == 0x0b:
			return off, nil
		case op == 0x41 || op == 0x23 || op == 0xd2: // i32.const, global.get, ref.func
			_, l, err = readLEB(b[off:], 5)
		case op == 0x42: // i64.const
			_, l, err = readLEB(b[off:], 10)
		case op == 0x43:
			l = 4
		case op == 0x44:
			l = 8
		case op == 0xd0: // ref.null heaptype
			_, l, err = readLEB(b[off:], 5)
		case op == 0xfd: // v128.const
			var sub uint64
			if sub, l, err = readLEB(b[off:], 5); err == nil && sub != 12 {
				err = fmt.Errorf("instruction 0xfd %d in a constant expression", sub)
			}
			l += 16
		case op == 0x6a || op == 0x6b || op == 0x6c || op == 0x7c || op == 0x7d || op == 0x7e: // extended const
		default:
			err = fmt.Errorf("instruction %#x in a constant expression", op)
		}
		if err != nil {
			return off, err
		}
		off += l
	}
	return off, errors.New("constant expression without end")
}

// elementItems counts the elements of every segment of the element section (WebAssembly 2.0
// §5.5.12): wazero keeps each as a word per instance (and ~100 bytes while it decodes the
// module), so they are bounded like tables.
func elementItems(sec []byte) (uint64, error) {
	n, off, err := readU32(sec)
	if err != nil {
		return 0, fmt.Errorf("%w: element section count", errTableFormat)
	}
	u32 := func() error {
		_, l, err := readU32(sec[min(off, len(sec)):])
		off += l
		return err
	}
	expr := func() (err error) {
		off, err = skipConstExpr(sec, off)
		return err
	}
	var total uint64
	for k := uint32(0); k < n; k++ {
		flags, l, err := readU32(sec[min(off, len(sec)):])
		if err != nil || flags > 7 {
			return 0, fmt.Errorf("%w: element segment %d: flags", errTableFormat, k)
		}
		off += l
		if flags&2 != 0 && flags&1 == 0 { // 2, 6: explicit table index
			err = u32()
		}
		if err == nil && flags&1 == 0 { // 0, 2, 4, 6: active, an offset expression
			err = expr()
		}
		if err == nil && flags != 0 && flags != 4 { // an element kind or reference type
			off, err = skipRefType(sec, off)
		}
		if err != nil {
			return 0, fmt.Errorf("%w: element segment %d: %v", errTableFormat, k, err)
		}
		items, l, err := readU32(sec[min(off, len(sec)):])
		if err != nil || uint64(items) > uint64(len(sec)-off) {
			return 0, fmt.Errorf("%w: element segment %d: count", errTableFormat, k)
		}
		off += l
		for range items {
			if flags&4 != 0 {
				err = expr()
			} else {
				err = u32()
			}
			if err != nil {
				return 0, fmt.Errorf("%w: element segment %d: %v", errTableFormat, k, err)
			}
		}
		total += uint64(items)
	}
	return total, nil
}
