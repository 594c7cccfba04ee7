package wasm

import (
	"errors"
	"fmt"
)

// What a module names. A rewrite that appends to the module's index spaces (the host's
// instrumentation appends a type, a function and globals) turns an index just past the
// module's own, invalid as shipped (wazero would refuse the module), into a valid reference
// to what was appended: a guest writing the host's fuel counter never stops. Index therefore
// checks every index the module names outside its code — in types, imports, functions,
// tables, globals, exports, start, elements and data — against what the module itself
// defines, and Index.Check serves the same check for code. Indexes of spaces a rewrite does
// not extend (labels, locals, data and element segments) are left to wazero.

// ErrUndefinedIndex is wrapped by Index's and Check's error for an index the module names
// but does not define; the message names what names it.
var ErrUndefinedIndex = errors.New("reference to an index the module does not define")

// Index is a module's index spaces, read by Module.Index: how many of each it imports and
// defines, its start function, and every import and export.
type Index struct {
	sections                                 map[byte][]byte // non-custom section bodies
	ImportFuncs, ImportGlobals, ImportTables uint32
	Funcs, Globals, Tables, Types, Memories  uint32 // Memories: imported ones included
	HasStart                                 bool
	Start                                    uint32   // the start function, if HasStart
	FuncTypes                                []uint32 // by function index: its type index
	Imports                                  []Import
	Exports                                  []Export
	ElementItems                             uint64 // elements of all element segments
	types                                    []FuncType
	reserved                                 func(export string) error
	lax                                      bool // readers: check no index
}

// Index reads every section but code: it counts what the module defines, decodes its types,
// imports, exports and start function, and checks every index named outside the code
// section (ErrUndefinedIndex). reserved, if not nil, is called with every export's name; its
// error is returned as it is (a host refusing names it reserves). Any other error wraps
// ErrMalformed (or ErrUnknownInstr in a constant expression) and names the section.
func (m *Module) Index(reserved func(export string) error) (*Index, error) {
	mi := &Index{sections: map[byte][]byte{}, reserved: reserved}
	for _, s := range m.secs {
		if s.id != SectionCustom {
			mi.sections[s.id] = m.b[s.body:s.end]
		}
	}
	if err := mi.scan(); err != nil {
		return nil, err
	}
	return mi, nil
}

// Check refuses r if the module does not define it (ErrUndefinedIndex); where says what names
// it, for the error: "function 3: call".
func (mi *Index) Check(r Ref, where func() string) error { return mi.check(r, where) }

// defined returns how many indexes of Space s the module defines.
func (mi *Index) defined(s Space) uint32 {
	switch s {
	case SpaceType:
		return mi.Types
	case SpaceFunc:
		return mi.ImportFuncs + mi.Funcs
	case SpaceTable:
		return mi.ImportTables + mi.Tables
	case SpaceMemory:
		return mi.Memories
	case SpaceGlobal:
		return mi.ImportGlobals + mi.Globals
	}
	return 1<<32 - 1
}

// check refuses r if the module does not define it; where says what names it, for the error.
func (mi *Index) check(r Ref, where func() string) error {
	if mi.lax {
		return nil
	}
	n := mi.defined(r.Space)
	if r.Idx < n {
		return nil
	}
	var has string
	switch n {
	case 0:
		has = "no " + r.Space.String() + "s"
	case 1:
		has = "1 " + r.Space.String() + " (index 0)"
	default:
		has = fmt.Sprintf("%d %ss (indexes 0 to %d)", n, r.Space, n-1)
	}
	return fmt.Errorf("%w: %s names %s %d, but the module defines %s", ErrUndefinedIndex, where(), r.Space, r.Idx, has)
}

// scan counts imports, functions, globals, tables, types and memories, reads the start
// function, checks every index named outside the code section, and refuses an export name
// the caller reserves.
func (mi *Index) scan() error {
	var err error
	count := func(id byte) uint32 {
		b, ok := mi.sections[id]
		if !ok || err != nil {
			return 0
		}
		n, _, e := U32(b)
		if e != nil {
			err = fmt.Errorf("%w: section %d count: %v", ErrMalformed, id, e)
		}
		return n
	}
	mi.Types, mi.Funcs, mi.Globals, mi.Tables, mi.Memories = count(SectionType), count(SectionFunction), count(SectionGlobal), count(SectionTable), count(SectionMemory)
	if err != nil {
		return err
	}
	if err := mi.scanTypes(); err != nil {
		return wrapSection(err, "type section")
	}
	if b, ok := mi.sections[SectionImport]; ok {
		if err := mi.scanImports(b); err != nil {
			return wrapSection(err, "import section")
		}
	}
	for _, s := range []struct {
		id   byte
		name string
		scan func(b []byte) error
	}{
		{SectionFunction, "function section", mi.scanFunctions},
		{SectionTable, "table section", mi.scanTables},
		{SectionMemory, "memory section", scanMemories},
		{SectionGlobal, "global section", mi.scanGlobals},
		{SectionExport, "export section", mi.scanExports},
		{SectionStart, "start section", mi.scanStart},
		{SectionElement, "element section", mi.scanElements},
		{SectionData, "data section", mi.scanData},
	} {
		if b, ok := mi.sections[s.id]; ok {
			if err := s.scan(b); err != nil {
				return wrapSection(err, s.name)
			}
		}
	}
	return nil
}

// kept is an error of the caller's (reserved) that wrapSection returns as it is.
type kept struct{ err error }

func (k kept) Error() string { return k.err.Error() }

// wrapSection wraps an error of a section's scan: undefined references and the caller's
// errors as they are, anything else as malformed.
func wrapSection(err error, section string) error {
	var k kept
	if errors.As(err, &k) {
		return k.err
	}
	if errors.Is(err, ErrUndefinedIndex) {
		return err
	}
	if errors.Is(err, ErrUnknownInstr) {
		return fmt.Errorf("%s: %w", section, err)
	}
	return fmt.Errorf("%w: %s: %v", ErrMalformed, section, err)
}

// consumed refuses a section whose entries end before its bytes do: the rewrite appends
// entries after them, and bytes left over would be read as part of the next entry.
func consumed(b []byte, off int) error {
	if off != len(b) {
		return fmt.Errorf("%d bytes after the last entry", len(b)-off)
	}
	return nil
}

// scanTypes counts and decodes the types (a rec group, which wazero accepts, holds several):
// a start function's type must be [] -> [].
func (mi *Index) scanTypes() error {
	b, ok := mi.sections[SectionType]
	if !ok {
		return nil
	}
	n, off, err := U32(b)
	if err != nil {
		return err
	}
	type typeRef struct {
		typ uint32
		r   Ref
	}
	var refs []typeRef // checked once the types are counted
	for range n {
		group := uint32(1)
		if off < len(b) && b[off] == 0x4e { // rec group
			var l int
			if group, l, err = U32(b[off+1:]); err != nil {
				return err
			}
			off += 1 + l
		}
		for range group {
			t := uint32(len(mi.types))
			if off >= len(b) || b[off] != 0x60 {
				return fmt.Errorf("type %d is not a function type", t)
			}
			off++
			var ft FuncType
			for p := range 2 { // parameters, results
				k, l, err := U32(b[min(off, len(b)):])
				if err != nil {
					return err
				}
				off += l
				for range k {
					next, r, nrefs, err := ValType(b, off)
					if err != nil {
						return fmt.Errorf("type %d: %w", t, err)
					}
					if nrefs > 0 {
						refs = append(refs, typeRef{t, r})
					}
					if p == 0 {
						ft.Params = append(ft.Params, ValueType(b[off:next]))
					} else {
						ft.Results = append(ft.Results, ValueType(b[off:next]))
					}
					off = next
				}
			}
			mi.types = append(mi.types, ft)
		}
	}
	mi.Types = uint32(len(mi.types))
	for _, r := range refs {
		if err := mi.check(r.r, func() string { return fmt.Sprintf("type %d", r.typ) }); err != nil {
			return err
		}
	}
	return consumed(b, off)
}

// scanImports records the imports, counting each kind, and checks the types they name.
func (mi *Index) scanImports(b []byte) error {
	n, off, err := U32(b)
	if err != nil {
		return err
	}
	skip := func() (uint32, error) {
		v, l, err := U32(b[min(off, len(b)):])
		off += l
		return v, err
	}
	for i := range n {
		var names [2]string
		for k := range names { // module, name
			s, l, err := Name(b[min(off, len(b)):])
			if err != nil {
				return err
			}
			names[k] = s
			off += l
		}
		if off >= len(b) {
			return errors.New("truncated")
		}
		kind := b[off]
		off++
		im := Import{Module: names[0], Name: names[1], Kind: kind}
		descAt := off
		switch kind {
		case 0x00: // func: typeidx
			var t uint32
			if t, err = skip(); err == nil {
				im.Type = t
				err = mi.check(Ref{SpaceType, t}, func() string { return fmt.Sprintf("import %d (%q %q)", i, names[0], names[1]) })
				mi.FuncTypes = append(mi.FuncTypes, t)
			}
			mi.ImportFuncs++
		case 0x01: // table
			mi.ImportTables++
			err = mi.tableType(b, &off, func() string { return fmt.Sprintf("import %d (%q %q)", i, names[0], names[1]) })
		case 0x02: // memory: limits
			mi.Memories++
			_, off, err = readLimits(b, off)
		case 0x03: // global: valtype, mut
			mi.ImportGlobals++
			if off, err = mi.valType(b, off, func() string { return fmt.Sprintf("import %d (%q %q)", i, names[0], names[1]) }); err == nil {
				off++
			}
		case 0x04: // tag: attribute, typeidx
			off++
			im.Type, err = skip()
		default:
			return fmt.Errorf("unknown import kind %#x", kind)
		}
		if err != nil {
			return err
		}
		if off > len(b) {
			return errors.New("truncated")
		}
		im.Desc = b[descAt:off]
		mi.Imports = append(mi.Imports, im)
	}
	return consumed(b, off)
}

// valType decodes the value type at b[off:] (ValType), checking a type index it names.
func (mi *Index) valType(b []byte, off int, where func() string) (int, error) {
	next, r, nrefs, err := ValType(b, off)
	if err != nil {
		return next, fmt.Errorf("%s: %w", where(), err)
	}
	if nrefs > 0 {
		if err := mi.check(r, func() string { return where() + "'s value type" }); err != nil {
			return next, err
		}
	}
	return next, nil
}

// tableType decodes a table type at b[*off:] as wazero does: optionally 0x40 0x00 (then an
// initializer follows the limits), a reference type, limits.
func (mi *Index) tableType(b []byte, off *int, where func() string) error {
	init := *off+1 < len(b) && b[*off] == 0x40 && b[*off+1] == 0x00
	if init {
		*off += 2
	}
	var err error
	if *off, err = mi.valType(b, *off, where); err != nil {
		return err
	}
	if err := skipLimitsAt(b, off); err != nil {
		return err
	}
	if init {
		return mi.constExpr(b, off, func() string { return where() + "'s initializer" })
	}
	return nil
}

// scanTables checks the tables' types and initializers.
func (mi *Index) scanTables(b []byte) error {
	n, off, err := U32(b)
	if err != nil {
		return err
	}
	for t := range n {
		if err := mi.tableType(b, &off, func() string { return fmt.Sprintf("table %d", mi.ImportTables+t) }); err != nil {
			return err
		}
	}
	return consumed(b, off)
}

// scanMemories checks the memories' limits: the rewrite appends one to a module without a
// memory, so the section must end with its last entry.
func scanMemories(b []byte) error {
	n, off, err := U32(b)
	if err != nil {
		return err
	}
	for range n {
		if err := skipLimitsAt(b, &off); err != nil {
			return err
		}
	}
	return consumed(b, off)
}

// scanFunctions checks and records each function's type.
func (mi *Index) scanFunctions(b []byte) error {
	n, off, err := U32(b)
	if err != nil {
		return err
	}
	for f := range n {
		t, l, err := U32(b[off:])
		if err != nil {
			return err
		}
		off += l
		if err := mi.check(Ref{SpaceType, t}, func() string { return fmt.Sprintf("function %d's declaration", mi.ImportFuncs+f) }); err != nil {
			return err
		}
		mi.FuncTypes = append(mi.FuncTypes, t)
	}
	return consumed(b, off)
}

// scanGlobals checks the initializers of the globals.
func (mi *Index) scanGlobals(b []byte) error {
	n, off, err := U32(b)
	if err != nil {
		return err
	}
	for g := range n {
		where := func() string { return fmt.Sprintf("global %d", mi.ImportGlobals+g) }
		if off, err = mi.valType(b, off, where); err != nil {
			return err
		}
		if off++; off > len(b) { // mut
			return errors.New("truncated")
		}
		if err := mi.constExpr(b, &off, func() string { return where() + "'s initializer" }); err != nil {
			return err
		}
	}
	return consumed(b, off)
}

// scanExports records the exports and checks the indexes they name.
func (mi *Index) scanExports(b []byte) error {
	n, off, err := U32(b)
	if err != nil {
		return err
	}
	for range n {
		name, l, err := Name(b[min(off, len(b)):])
		if err != nil || off+l+1 > len(b) {
			return errors.New("bad entry")
		}
		kind := b[off+l]
		off += l + 1 // name, kind
		idx, l, err := U32(b[off:])
		if err != nil {
			return err
		}
		off += l
		if mi.reserved != nil {
			if err := mi.reserved(name); err != nil {
				return kept{err}
			}
		}
		if kind > 0x03 {
			return fmt.Errorf("export %q has unknown kind %#x", name, kind)
		}
		s := [...]Space{SpaceFunc, SpaceTable, SpaceMemory, SpaceGlobal}[kind]
		if err := mi.check(Ref{s, idx}, func() string { return fmt.Sprintf("export %q", name) }); err != nil {
			return err
		}
		ex := Export{Name: name, Kind: kind, Index: idx}
		if kind == KindFunc && int(idx) < len(mi.FuncTypes) {
			ex.Type = mi.FuncTypes[idx]
		}
		mi.Exports = append(mi.Exports, ex)
	}
	return consumed(b, off)
}

// scanStart reads the start function: one the module defines, of type [] -> [] (a host
// that drops the start section calls it itself, with no arguments).
func (mi *Index) scanStart(b []byte) error {
	start, _, err := U32(b)
	if err != nil {
		return err
	}
	if err := mi.check(Ref{SpaceFunc, start}, func() string { return "the start section" }); err != nil {
		return err
	}
	if int(start) >= len(mi.FuncTypes) || int(mi.FuncTypes[start]) >= len(mi.types) || !mi.types[mi.FuncTypes[start]].void() {
		return fmt.Errorf("start function %d does not have type [] -> []", start)
	}
	mi.Start, mi.HasStart = start, true
	return nil
}

// scanElements checks the tables, offsets and functions of the element segments.
func (mi *Index) scanElements(b []byte) error {
	n, off, err := U32(b)
	if err != nil {
		return err
	}
	for e := range n {
		where := func() string { return fmt.Sprintf("element segment %d", e) }
		flags, l, err := U32(b[min(off, len(b)):])
		if err != nil {
			return err
		}
		off += l
		if flags > 7 {
			return fmt.Errorf("element segment %d: unknown flags %d", e, flags)
		}
		if flags&3 == 2 { // active, with a table index
			t, l, err := U32(b[min(off, len(b)):])
			if err != nil {
				return err
			}
			off += l
			if err := mi.check(Ref{SpaceTable, t}, where); err != nil {
				return err
			}
		} else if flags&1 == 0 { // active, table 0
			if err := mi.check(Ref{SpaceTable, 0}, where); err != nil {
				return err
			}
		}
		if flags&1 == 0 { // active: offset
			if err := mi.constExpr(b, &off, where); err != nil {
				return err
			}
		}
		switch {
		case flags&3 == 0: // neither elemkind nor reftype
		case flags&4 == 0: // elemkind
			off++
		default: // reftype
			if off, err = mi.valType(b, off, where); err != nil {
				return err
			}
		}
		k, l, err := U32(b[min(off, len(b)):])
		if err != nil {
			return err
		}
		if uint64(k) > uint64(len(b)-off-l) { // every element takes a byte at least
			return fmt.Errorf("element segment %d: %d elements in %d bytes", e, k, len(b)-off-l)
		}
		off += l
		mi.ElementItems += uint64(k)
		for range k {
			if flags&4 != 0 { // expressions
				if err := mi.constExpr(b, &off, where); err != nil {
					return err
				}
				continue
			}
			f, l, err := U32(b[min(off, len(b)):])
			if err != nil {
				return err
			}
			off += l
			if err := mi.check(Ref{SpaceFunc, f}, where); err != nil {
				return err
			}
		}
	}
	return consumed(b, off)
}

// scanData checks the memories and offsets of the data segments.
func (mi *Index) scanData(b []byte) error {
	n, off, err := U32(b)
	if err != nil {
		return err
	}
	for d := range n {
		where := func() string { return fmt.Sprintf("data segment %d", d) }
		flags, l, err := U32(b[min(off, len(b)):])
		if err != nil {
			return err
		}
		off += l
		switch flags {
		case 0:
			err = mi.check(Ref{SpaceMemory, 0}, where)
		case 1:
		case 2:
			var m uint32
			m, l, err = U32(b[min(off, len(b)):])
			off += l
			if err == nil {
				err = mi.check(Ref{SpaceMemory, m}, where)
			}
		default:
			return fmt.Errorf("data segment %d: unknown flags %d", d, flags)
		}
		if err != nil {
			return err
		}
		if flags != 1 {
			if err := mi.constExpr(b, &off, where); err != nil {
				return err
			}
		}
		size, l, err := U32(b[min(off, len(b)):])
		if err != nil {
			return err
		}
		if off += l + int(size); off > len(b) {
			return errors.New("truncated")
		}
	}
	return consumed(b, off)
}

// constExpr decodes the constant expression at b[*off:], up to its end, checking the indexes
// it names.
func (mi *Index) constExpr(b []byte, off *int, where func() string) error {
	next, err := ConstExpr(b, *off, func(in Instr) error {
		for _, r := range in.Refs[:in.NRefs] {
			if err := mi.check(r, func() string { return where() + ": " + in.Name() }); err != nil {
				return err
			}
		}
		return nil
	})
	*off = next
	if err != nil && !errors.Is(err, ErrUndefinedIndex) {
		return fmt.Errorf("%s: %w", where(), err)
	}
	return err
}

// skipLimitsAt skips limits at b[*off:] (readLimits).
func skipLimitsAt(b []byte, off *int) error {
	_, next, err := readLimits(b, *off)
	*off = next
	return err
}
