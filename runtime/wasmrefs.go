package runtime

import (
	"errors"
	"fmt"
)

// What a guest may name. instrumentCalls appends the host's type, functions and globals to
// the module's index spaces, so an index just past the module's own is invalid as shipped
// (wazero would refuse the module) but valid after the rewrite, where it is the host's: a
// guest writing the host's $fuel never reaches a look at $flag. moduleInfo.scan and the
// rewrite of the code section therefore check every index the module names — in code,
// imports, functions, globals, exports, start, elements and data — against what the module
// itself defines, before anything is appended. Indexes of spaces the host does not extend
// (labels, locals, data and element segments) are left to wazero.

// errUndefinedIndex: the module names an index it does not define.
var errUndefinedIndex = errors.New("reference to an index the module does not define")

// moduleInfo is what the rewrite needs to know about a module.
type moduleInfo struct {
	sections                                 map[byte][]byte // non-custom section bodies
	importFuncs, importGlobals, importTables uint32
	funcs, globals, tables, types, memory    uint32 // memory: imported ones included
	hasStart                                 bool
	start                                    uint32
	voidTypes                                []bool   // by type index: [] -> []
	funcTypes                                []uint32 // by function index: its type
}

// defined returns how many indexes of space s the module defines.
func (mi *moduleInfo) defined(s space) uint32 {
	switch s {
	case spaceType:
		return mi.types
	case spaceFunc:
		return mi.importFuncs + mi.funcs
	case spaceTable:
		return mi.importTables + mi.tables
	case spaceMemory:
		return mi.memory
	case spaceGlobal:
		return mi.importGlobals + mi.globals
	}
	return 1<<32 - 1
}

// check refuses r if the module does not define it; where says what names it, for the error.
func (mi *moduleInfo) check(r ref, where func() string) error {
	n := mi.defined(r.space)
	if r.idx < n {
		return nil
	}
	var has string
	switch n {
	case 0:
		has = "no " + r.space.String() + "s"
	case 1:
		has = "1 " + r.space.String() + " (index 0)"
	default:
		has = fmt.Sprintf("%d %ss (indexes 0 to %d)", n, r.space, n-1)
	}
	return fmt.Errorf("%w: %s names %s %d, but the module defines %s", errUndefinedIndex, where(), r.space, r.idx, has)
}

// scan counts imports, functions, globals, tables, types and memories, reads the start
// function, checks every index named outside the code section, and refuses a module that
// already exports a reserved name.
func (mi *moduleInfo) scan() error {
	var err error
	count := func(id byte) uint32 {
		b, ok := mi.sections[id]
		if !ok || err != nil {
			return 0
		}
		n, _, e := readU32(b)
		if e != nil {
			err = fmt.Errorf("%w: section %d count: %v", errMalformed, id, e)
		}
		return n
	}
	mi.types, mi.funcs, mi.globals, mi.tables, mi.memory = count(sectionType), count(sectionFunction), count(sectionGlobal), count(sectionTable), count(sectionMemory)
	if err != nil {
		return err
	}
	if err := mi.scanTypes(); err != nil {
		return wrapSection(err, "type section")
	}
	if b, ok := mi.sections[sectionImport]; ok {
		if err := mi.scanImports(b); err != nil {
			return wrapSection(err, "import section")
		}
	}
	for _, s := range []struct {
		id   byte
		name string
		scan func(b []byte) error
	}{
		{sectionFunction, "function section", mi.scanFunctions},
		{sectionTable, "table section", mi.scanTables},
		{sectionMemory, "memory section", scanMemories},
		{sectionGlobal, "global section", mi.scanGlobals},
		{sectionExport, "export section", mi.scanExports},
		{sectionStart, "start section", mi.scanStart},
		{sectionElement, "element section", mi.scanElements},
		{sectionData, "data section", mi.scanData},
	} {
		if b, ok := mi.sections[s.id]; ok {
			if err := s.scan(b); err != nil {
				return wrapSection(err, s.name)
			}
		}
	}
	return nil
}

// wrapSection wraps an error of a section's scan: undefined references and reserved names as
// they are, anything else as malformed.
func wrapSection(err error, section string) error {
	if errors.Is(err, errUndefinedIndex) || errors.Is(err, errReserved) {
		return err
	}
	if errors.Is(err, errUnknownInstr) {
		return fmt.Errorf("%s: %w", section, err)
	}
	return fmt.Errorf("%w: %s: %v", errMalformed, section, err)
}

// consumed refuses a section whose entries end before its bytes do: the rewrite appends
// entries after them, and bytes left over would be read as part of the next entry.
func consumed(b []byte, off int) error {
	if off != len(b) {
		return fmt.Errorf("%d bytes after the last entry", len(b)-off)
	}
	return nil
}

// scanTypes counts the types (a rec group, which wazero accepts, holds several) and records
// which are [] -> [] (a start function's type must be).
func (mi *moduleInfo) scanTypes() error {
	b, ok := mi.sections[sectionType]
	if !ok {
		return nil
	}
	n, off, err := readU32(b)
	if err != nil {
		return err
	}
	type typeRef struct {
		typ uint32
		r   ref
	}
	var refs []typeRef // checked once the types are counted
	for range n {
		group := uint32(1)
		if off < len(b) && b[off] == 0x4e { // rec group
			var l int
			if group, l, err = readU32(b[off+1:]); err != nil {
				return err
			}
			off += 1 + l
		}
		for range group {
			t := uint32(len(mi.voidTypes))
			if off >= len(b) || b[off] != 0x60 {
				return fmt.Errorf("type %d is not a function type", t)
			}
			off++
			void := true
			for range 2 { // parameters, results
				k, l, err := readU32(b[min(off, len(b)):])
				if err != nil {
					return err
				}
				off += l
				for range k {
					next, r, nrefs, err := readValType(b, off)
					if err != nil {
						return fmt.Errorf("type %d: %w", t, err)
					}
					if nrefs > 0 {
						refs = append(refs, typeRef{t, r})
					}
					off = next
				}
				void = void && k == 0
			}
			mi.voidTypes = append(mi.voidTypes, void)
		}
	}
	mi.types = uint32(len(mi.voidTypes))
	for _, r := range refs {
		if err := mi.check(r.r, func() string { return fmt.Sprintf("type %d", r.typ) }); err != nil {
			return err
		}
	}
	return consumed(b, off)
}

func (mi *moduleInfo) scanImports(b []byte) error {
	n, off, err := readU32(b)
	if err != nil {
		return err
	}
	skip := func() (uint32, error) {
		v, l, err := readU32(b[min(off, len(b)):])
		off += l
		return v, err
	}
	for i := range n {
		var names [2]string
		for k := range names { // module, name
			s, l, err := readName(b[min(off, len(b)):])
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
		switch kind {
		case 0x00: // func: typeidx
			var t uint32
			if t, err = skip(); err == nil {
				err = mi.check(ref{spaceType, t}, func() string { return fmt.Sprintf("import %d (%q %q)", i, names[0], names[1]) })
				mi.funcTypes = append(mi.funcTypes, t)
			}
			mi.importFuncs++
		case 0x01: // table
			mi.importTables++
			err = mi.tableType(b, &off, func() string { return fmt.Sprintf("import %d (%q %q)", i, names[0], names[1]) })
		case 0x02: // memory: limits
			mi.memory++
			err = skipLimits(b, &off)
		case 0x03: // global: valtype, mut
			mi.importGlobals++
			if off, err = mi.valType(b, off, func() string { return fmt.Sprintf("import %d (%q %q)", i, names[0], names[1]) }); err == nil {
				off++
			}
		case 0x04: // tag: attribute, typeidx
			off++
			_, err = skip()
		default:
			return fmt.Errorf("unknown import kind %#x", kind)
		}
		if err != nil {
			return err
		}
		if off > len(b) {
			return errors.New("truncated")
		}
	}
	return consumed(b, off)
}

func skipLimits(b []byte, off *int) error {
	if *off >= len(b) {
		return errors.New("truncated limits")
	}
	flags := b[*off]
	*off++
	for range 1 + int(flags&1) {
		_, l, err := readLEB(b[min(*off, len(b)):], 10)
		if err != nil {
			return err
		}
		*off += l
	}
	return nil
}

// valType decodes the value type at b[off:] (readValType), checking a type index it names.
func (mi *moduleInfo) valType(b []byte, off int, where func() string) (int, error) {
	next, r, nrefs, err := readValType(b, off)
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
func (mi *moduleInfo) tableType(b []byte, off *int, where func() string) error {
	init := *off+1 < len(b) && b[*off] == 0x40 && b[*off+1] == 0x00
	if init {
		*off += 2
	}
	var err error
	if *off, err = mi.valType(b, *off, where); err != nil {
		return err
	}
	if err := skipLimits(b, off); err != nil {
		return err
	}
	if init {
		return mi.constExpr(b, off, func() string { return where() + "'s initializer" })
	}
	return nil
}

// scanTables checks the tables' types and initializers.
func (mi *moduleInfo) scanTables(b []byte) error {
	n, off, err := readU32(b)
	if err != nil {
		return err
	}
	for t := range n {
		if err := mi.tableType(b, &off, func() string { return fmt.Sprintf("table %d", mi.importTables+t) }); err != nil {
			return err
		}
	}
	return consumed(b, off)
}

// scanMemories checks the memories' limits: the rewrite appends one to a module without a
// memory, so the section must end with its last entry.
func scanMemories(b []byte) error {
	n, off, err := readU32(b)
	if err != nil {
		return err
	}
	for range n {
		if err := skipLimits(b, &off); err != nil {
			return err
		}
	}
	return consumed(b, off)
}

// scanFunctions checks and records each function's type.
func (mi *moduleInfo) scanFunctions(b []byte) error {
	n, off, err := readU32(b)
	if err != nil {
		return err
	}
	for f := range n {
		t, l, err := readU32(b[off:])
		if err != nil {
			return err
		}
		off += l
		if err := mi.check(ref{spaceType, t}, func() string { return fmt.Sprintf("function %d's declaration", mi.importFuncs+f) }); err != nil {
			return err
		}
		mi.funcTypes = append(mi.funcTypes, t)
	}
	return consumed(b, off)
}

// scanGlobals checks the initializers of the globals.
func (mi *moduleInfo) scanGlobals(b []byte) error {
	n, off, err := readU32(b)
	if err != nil {
		return err
	}
	for g := range n {
		where := func() string { return fmt.Sprintf("global %d", mi.importGlobals+g) }
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

func (mi *moduleInfo) scanExports(b []byte) error {
	n, off, err := readU32(b)
	if err != nil {
		return err
	}
	for range n {
		name, l, err := readName(b[min(off, len(b)):])
		if err != nil || off+l+1 > len(b) {
			return errors.New("bad entry")
		}
		kind := b[off+l]
		off += l + 1 // name, kind
		idx, l, err := readU32(b[off:])
		if err != nil {
			return err
		}
		off += l
		if name == exportInterrupt || name == exportStart || isSnapshotExport(name) {
			return fmt.Errorf("%w: the module exports %s, which the host reserves (ABI.md §2)", errReserved, name)
		}
		if kind > 0x03 {
			return fmt.Errorf("export %q has unknown kind %#x", name, kind)
		}
		s := [...]space{spaceFunc, spaceTable, spaceMemory, spaceGlobal}[kind]
		if err := mi.check(ref{s, idx}, func() string { return fmt.Sprintf("export %q", name) }); err != nil {
			return err
		}
	}
	return consumed(b, off)
}

// scanStart reads the start function: one the module defines, of type [] -> [] (the host
// calls it as exportStart, with no arguments).
func (mi *moduleInfo) scanStart(b []byte) error {
	start, _, err := readU32(b)
	if err != nil {
		return err
	}
	if err := mi.check(ref{spaceFunc, start}, func() string { return "the start section" }); err != nil {
		return err
	}
	if int(start) >= len(mi.funcTypes) || int(mi.funcTypes[start]) >= len(mi.voidTypes) || !mi.voidTypes[mi.funcTypes[start]] {
		return fmt.Errorf("start function %d does not have type [] -> []", start)
	}
	mi.start, mi.hasStart = start, true
	return nil
}

// scanElements checks the tables, offsets and functions of the element segments.
func (mi *moduleInfo) scanElements(b []byte) error {
	n, off, err := readU32(b)
	if err != nil {
		return err
	}
	for e := range n {
		where := func() string { return fmt.Sprintf("element segment %d", e) }
		flags, l, err := readU32(b[min(off, len(b)):])
		if err != nil {
			return err
		}
		off += l
		if flags > 7 {
			return fmt.Errorf("element segment %d: unknown flags %d", e, flags)
		}
		if flags&3 == 2 { // active, with a table index
			t, l, err := readU32(b[min(off, len(b)):])
			if err != nil {
				return err
			}
			off += l
			if err := mi.check(ref{spaceTable, t}, where); err != nil {
				return err
			}
		} else if flags&1 == 0 { // active, table 0
			if err := mi.check(ref{spaceTable, 0}, where); err != nil {
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
		k, l, err := readU32(b[min(off, len(b)):])
		if err != nil {
			return err
		}
		off += l
		for range k {
			if flags&4 != 0 { // expressions
				if err := mi.constExpr(b, &off, where); err != nil {
					return err
				}
				continue
			}
			f, l, err := readU32(b[min(off, len(b)):])
			if err != nil {
				return err
			}
			off += l
			if err := mi.check(ref{spaceFunc, f}, where); err != nil {
				return err
			}
		}
	}
	return consumed(b, off)
}

// scanData checks the memories and offsets of the data segments.
func (mi *moduleInfo) scanData(b []byte) error {
	n, off, err := readU32(b)
	if err != nil {
		return err
	}
	for d := range n {
		where := func() string { return fmt.Sprintf("data segment %d", d) }
		flags, l, err := readU32(b[min(off, len(b)):])
		if err != nil {
			return err
		}
		off += l
		switch flags {
		case 0:
			err = mi.check(ref{spaceMemory, 0}, where)
		case 1:
		case 2:
			var m uint32
			m, l, err = readU32(b[min(off, len(b)):])
			off += l
			if err == nil {
				err = mi.check(ref{spaceMemory, m}, where)
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
		size, l, err := readU32(b[min(off, len(b)):])
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
func (mi *moduleInfo) constExpr(b []byte, off *int, where func() string) error {
	var in instr
	for {
		i, err := decodeInstr(b, *off, &in)
		if err != nil {
			return fmt.Errorf("%s: %w", where(), err)
		}
		*off = i
		for _, r := range in.refs[:in.nrefs] {
			if err := mi.check(r, func() string { return where() + ": " + in.name() }); err != nil {
				return err
			}
		}
		if in.op == 0x0b {
			return nil
		}
	}
}
