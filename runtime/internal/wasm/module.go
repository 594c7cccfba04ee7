// Package wasm is the host's one reader and rewriter of the WebAssembly binary format
// (WebAssembly Core 2.0 §5): Parse splits a module into its sections once, readers decode the
// sections the host's checks need (types, imports, functions, tables, exports, elements, code
// bodies, custom sections), Decode decodes one instruction, and a Rewriter writes a module
// with sections replaced, extended, dropped or appended.
//
// It is a leaf: it imports only the standard library. It does not validate a module — wazero
// does, after the host's checks — but it must agree with wazero on where every section, entry
// and instruction ends, and it refuses nothing wazero accepts (RATIONALE.md, "Why rewrite
// function bodies…", "One wasm reader").
package wasm

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrMalformed is wrapped by every error about bytes that are not a module as the binary
// format encodes one; the message says which section or entry.
var ErrMalformed = errors.New("malformed module")

// SectionID is a section's id byte (WebAssembly Core 2.0 §5.5.2; tag is the exception
// handling proposal's).
type SectionID = byte

// The section ids.
const (
	SectionCustom    SectionID = 0
	SectionType      SectionID = 1
	SectionImport    SectionID = 2
	SectionFunction  SectionID = 3
	SectionTable     SectionID = 4
	SectionMemory    SectionID = 5
	SectionGlobal    SectionID = 6
	SectionExport    SectionID = 7
	SectionStart     SectionID = 8
	SectionElement   SectionID = 9
	SectionCode      SectionID = 10
	SectionData      SectionID = 11
	SectionDataCount SectionID = 12
	SectionTag       SectionID = 13
)

var sectionNames = [...]string{"custom", "type", "import", "function", "table", "memory", "global",
	"export", "start", "element", "code", "data", "data count", "tag"}

// SectionName names a section id: "type", "code"; "unknown" past the last.
func SectionName(id SectionID) string {
	if int(id) < len(sectionNames) {
		return sectionNames[id]
	}
	return "unknown"
}

// Rank orders the non-custom sections as the binary format requires them (tag between memory
// and global, data count between element and code): a module's ranks strictly increase.
func Rank(id SectionID) int {
	switch id {
	case SectionTag:
		return 6
	case SectionGlobal, SectionExport, SectionStart, SectionElement:
		return int(id) + 1
	case SectionDataCount:
		return 11
	case SectionCode, SectionData:
		return int(id) + 2
	}
	return int(id)
}

// ParseError is Parse's error: what is wrong where. It wraps ErrMalformed.
type ParseError struct {
	// Section is the id of the section at fault, -1 for the header.
	Section int
	// Overrun is set when the section's size goes past the end of the module.
	Overrun bool
	msg     string
}

// Error is "malformed module: " and what is wrong: "section 1 (type) repeated".
func (e *ParseError) Error() string { return ErrMalformed.Error() + ": " + e.msg }

// Unwrap returns ErrMalformed.
func (e *ParseError) Unwrap() error { return ErrMalformed }

// Module is a module split into its sections. It holds b, not a copy: b must not change.
type Module struct {
	b    []byte
	secs []section
	at   [SectionTag + 1]int // by id: index+1 into secs of the non-custom section, 0 if absent
}

// section is where one section is in the module: id byte at start, body b[body:end].
type section struct {
	id               SectionID
	start, body, end int
}

// Parse splits b into sections once: the header (magic and version 1) checked, every
// section's size bounded by the bytes left, each non-custom id known, at most once and in
// the order of Rank. It decodes no section body. The error is a *ParseError (wrapping
// ErrMalformed) naming the section; the Module is then the sections before it (nil if the
// header is wrong), for a caller that must look at what a decoder reads before it fails.
func Parse(b []byte) (*Module, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, &ParseError{Section: -1, msg: "no wasm header"}
	}
	if v := b[4:8]; string(v) != "\x01\x00\x00\x00" {
		return nil, &ParseError{Section: -1, msg: fmt.Sprintf("binary format version %x, want 1", v)}
	}
	m := &Module{b: b}
	last := 0
	for i := 8; i < len(b); {
		id := b[i]
		size, n, err := U32(b[i+1:])
		if err != nil {
			return m, &ParseError{Section: int(id), msg: fmt.Sprintf("section %d size: %v", id, err)}
		}
		body := i + 1 + n
		if uint64(size) > uint64(len(b)-body) {
			return m, &ParseError{Section: int(id), Overrun: true,
				msg: fmt.Sprintf("section %d of %d bytes overruns the module (%d bytes left)", id, size, len(b)-body)}
		}
		if id != SectionCustom {
			switch {
			case id > SectionTag:
				return m, &ParseError{Section: int(id), msg: fmt.Sprintf("unknown section id %d", id)}
			case m.at[id] != 0:
				return m, &ParseError{Section: int(id), msg: fmt.Sprintf("section %d (%s) repeated", id, SectionName(id))}
			case Rank(id) <= last:
				return m, &ParseError{Section: int(id), msg: fmt.Sprintf("section %d (%s) out of order", id, SectionName(id))}
			}
			last = Rank(id)
			m.at[id] = len(m.secs) + 1
		}
		m.secs = append(m.secs, section{id: id, start: i, body: body, end: body + int(size)})
		i = body + int(size)
	}
	return m, nil
}

// Bytes returns the module's bytes, as given to Parse.
func (m *Module) Bytes() []byte { return m.b }

// Section returns the body of the non-custom section id, and whether the module has it.
func (m *Module) Section(id SectionID) (body []byte, ok bool) {
	if id == SectionCustom || int(id) >= len(m.at) || m.at[id] == 0 {
		return nil, false
	}
	s := m.secs[m.at[id]-1]
	return m.b[s.body:s.end], true
}

// Custom is one custom section: its name and the bytes after the name.
type Custom struct {
	Name string
	Data []byte
}

// customName reads a custom section's name: ok only if it is readable and UTF-8 (a name
// that is not makes the module invalid; wazero refuses it).
func customName(body []byte) (name string, n int, ok bool) {
	name, n, err := Name(body)
	return name, n, err == nil && utf8.ValidString(name)
}

// Customs returns the custom sections whose name can be read, in order.
func (m *Module) Customs() []Custom {
	var cs []Custom
	for _, s := range m.secs {
		if s.id != SectionCustom {
			continue
		}
		body := m.b[s.body:s.end]
		if name, n, ok := customName(body); ok {
			cs = append(cs, Custom{Name: name, Data: body[n:]})
		}
	}
	return cs
}

// Custom returns the data of the first custom section named name.
func (m *Module) Custom(name string) (data []byte, ok bool) {
	for _, c := range m.Customs() {
		if c.Name == name {
			return c.Data, true
		}
	}
	return nil, false
}

// isVector reports whether section id starts with a vector of entries.
func isVector(id SectionID) bool {
	switch id {
	case SectionType, SectionImport, SectionFunction, SectionTable, SectionMemory, SectionGlobal,
		SectionExport, SectionElement, SectionCode, SectionData, SectionTag:
		return true
	}
	return false
}

// Count returns the number of entries the vector section id declares (0 if absent).
func (m *Module) Count(id SectionID) (uint32, error) {
	b, ok := m.Section(id)
	if !ok {
		return 0, nil
	}
	n, _, err := U32(b)
	if err != nil {
		return 0, fmt.Errorf("%w: section %d count: %v", ErrMalformed, id, err)
	}
	return n, nil
}

// CheckCounts refuses a section that declares more entries than its bytes can hold (every
// entry takes at least one byte), and a plain function type declaring more parameters or
// results than the bytes left: a decoder that sizes a slice from a count before reading the
// entries (wazero does) would otherwise allocate gigabytes for a few bytes of module. A
// count it cannot read, and a type that is not a plain function type, is left to the decoder.
func (m *Module) CheckCounts() error {
	for _, s := range m.secs {
		if !isVector(s.id) {
			continue
		}
		b := m.b[s.body:s.end]
		n, l, err := U32(b)
		if err != nil {
			continue
		}
		if uint64(n) > uint64(len(b)-l) {
			return fmt.Errorf("%w: section %d declares %d entries in %d bytes", ErrMalformed, s.id, n, len(b)-l)
		}
		if s.id == SectionType {
			if err := checkFuncTypes(b, l, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkFuncTypes walks n function types (0x60 params results) from b[off:].
func checkFuncTypes(b []byte, off int, n uint32) error {
	for t := uint32(0); t < n && off < len(b); t++ {
		if b[off] != 0x60 {
			return nil // not a plain function type (e.g. GC rec types): the decoder decides
		}
		off++
		for range 2 { // params, then results
			k, l, err := U32(b[off:])
			if err != nil {
				return nil
			}
			off += l
			if uint64(k) > uint64(len(b)-off) {
				return fmt.Errorf("%w: type %d declares %d value types in %d bytes", ErrMalformed, t, k, len(b)-off)
			}
			for range k { // (ref null $t) takes two bytes or more
				next, _, _, err := ValType(b, off)
				if err != nil {
					return nil
				}
				off = next
			}
		}
	}
	return nil
}

// Bodies calls fn with every function body of the code section, in order: i is its index in
// the code section (its function index is i plus the imported functions), body its locals
// and code. It stops at fn's first error and returns it.
func (m *Module) Bodies(fn func(i uint32, body []byte) error) error {
	sec, ok := m.Section(SectionCode)
	if !ok {
		return nil
	}
	count, off, err := U32(sec)
	if err != nil {
		return fmt.Errorf("%w: code section count: %v", ErrMalformed, err)
	}
	for i := range count {
		size, n, err := U32(sec[off:])
		if err != nil || uint64(n)+uint64(size) > uint64(len(sec)-off) {
			return fmt.Errorf("%w: function body %d: bad size", ErrMalformed, i)
		}
		off += n
		if err := fn(i, sec[off:off+int(size)]); err != nil {
			return err
		}
		off += int(size)
	}
	if off != len(sec) {
		return fmt.Errorf("%w: %d trailing bytes in code section", ErrMalformed, len(sec)-off)
	}
	return nil
}

// Locals returns the offset just past a function body's local declarations, vec(n:u32
// type:valtype), calling check (if not nil) on every type index a local's type names.
func Locals(body []byte, check func(Ref) error) (int, error) {
	groups, off, err := U32(body)
	if err != nil {
		return 0, err
	}
	for range groups {
		_, n, err := U32(body[min(off, len(body)):])
		if err != nil {
			return 0, err
		}
		next, r, nrefs, err := ValType(body, off+n)
		if err != nil {
			return 0, fmt.Errorf("local: %w", err)
		}
		if nrefs > 0 && check != nil {
			if err := check(r); err != nil {
				return 0, err
			}
		}
		off = next
	}
	return off, nil
}

// ConstExpr decodes the constant expression at b[off:] through its end opcode, calling fn (if
// not nil) on each instruction, and returns the offset just past it. It reads instructions as
// Decode does, but for ref.null, which here also takes a type index (a u32, named by no Ref):
// wazero's constant-expression reader accepts one without typed function references, which
// its code validation requires for the same instruction in a function body.
func ConstExpr(b []byte, off int, fn func(Instr) error) (int, error) {
	var in Instr
	for {
		i, err := Decode(b, off, &in)
		if err != nil && off+1 < len(b) && b[off] == 0xd0 && !isHeapTypeByte(b[off+1]) {
			_, n, lerr := U32(b[off+1:])
			if lerr != nil {
				return off, err
			}
			in, i, err = Instr{Op: 0xd0, Info: &ops[0xd0]}, off+1+n, nil
		}
		if err != nil {
			return off, err
		}
		off = i
		if fn != nil {
			if err := fn(in); err != nil { // by value: in stays on the stack
				return off, err
			}
		}
		if in.Op == 0x0b {
			return off, nil
		}
	}
}

// isHeapTypeByte reports whether c is an abstract heap type's one-byte code: func, extern,
// exn.
func isHeapTypeByte(c byte) bool { return c == 0x70 || c == 0x6f || c == 0x69 }

// limits is a memory's or table's limits: flags (bit 0: a maximum follows), minimum, maximum.
type limits struct {
	Flags    byte
	Min, Max uint64
	HasMax   bool
}

// readLimits decodes limits at b[off:] as wazero reads them: a flags byte, then one or two
// LEB128 numbers of at most 10 bytes (a 64-bit memory's are u64).
func readLimits(b []byte, off int) (limits, int, error) {
	var l limits
	if off >= len(b) {
		return l, off, errors.New("truncated limits")
	}
	l.Flags, l.HasMax = b[off], b[off]&1 != 0
	off++
	for k := range 1 + int(l.Flags&1) {
		v, n, err := LEB(b[min(off, len(b)):], 10)
		if err != nil {
			return l, off, err
		}
		if k == 0 {
			l.Min = v
		} else {
			l.Max = v
		}
		off += n
	}
	return l, off, nil
}
