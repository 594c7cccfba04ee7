package wasm_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"go/build"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

const header = "\x00asm\x01\x00\x00\x00"

// sec encodes one section: id, size, body.
func sec(id byte, body ...byte) []byte {
	return append(binary.AppendUvarint([]byte{id}, uint64(len(body))), body...)
}

// mod is a module of the given sections.
func mod(secs ...[]byte) []byte {
	return append([]byte(header), bytes.Join(secs, nil)...)
}

// custom is a custom section's body: the name, then data.
func custom(name, data string) []byte {
	return append(wasm.AppendName(nil, name), data...)
}

// vec is a vector of n entries, encoded in items.
func vec(n int, items ...byte) []byte { return append(binary.AppendUvarint(nil, uint64(n)), items...) }

func TestParseRefusesBadHeaders(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "malformed module: no wasm header"},
		{"magic only", []byte("\x00asm"), "malformed module: no wasm header"},
		{"not wasm", []byte("\x7fELF\x01\x00\x00\x00"), "malformed module: no wasm header"},
		{"version 2", []byte("\x00asm\x02\x00\x00\x00"), "malformed module: binary format version 02000000, want 1"},
		{"component", []byte("\x00asm\x0d\x00\x01\x00"), "malformed module: binary format version 0d000100, want 1"},
	} {
		m, err := wasm.Parse(tc.b)
		var pe *wasm.ParseError
		if m != nil || !errors.As(err, &pe) || pe.Section != -1 || !errors.Is(err, wasm.ErrMalformed) || err.Error() != tc.want {
			t.Errorf("%s: Parse = %v, %v; want nil, %q", tc.name, m, err, tc.want)
		}
	}
	m, err := wasm.Parse([]byte(header))
	if err != nil || len(m.Customs()) != 0 {
		t.Fatalf("an empty module: %v, %v", m, err)
	}
	if _, ok := m.Section(wasm.SectionType); ok {
		t.Error("an empty module has a type section")
	}
}

// Sections after the header: each non-custom id at most once and in the binary format's
// order, which puts tag (13) between memory and global and data count (12) between element
// and code; custom sections anywhere.
func TestParseSectionOrder(t *testing.T) {
	empty := []byte{0}
	for _, tc := range []struct {
		name    string
		b       []byte
		want    string // "" accepted
		section int
	}{
		{"in order", mod(sec(1, empty...), sec(0, custom("c", "")...), sec(3, empty...), sec(10, empty...)), "", 0},
		{"tag between memory and global", mod(sec(5, empty...), sec(13, empty...), sec(6, empty...)), "", 0},
		{"data count between element and code", mod(sec(9, empty...), sec(12, 0), sec(10, empty...), sec(11, empty...)), "", 0},
		{"type after function", mod(sec(3, empty...), sec(1, empty...)), "malformed module: section 1 (type) out of order", 1},
		{"function repeated", mod(sec(3, empty...), sec(0, custom("c", "")...), sec(3, empty...)), "malformed module: section 3 (function) repeated", 3},
		{"tag after global", mod(sec(6, empty...), sec(13, empty...)), "malformed module: section 13 (tag) out of order", 13},
		{"data count after code", mod(sec(10, empty...), sec(12, 0)), "malformed module: section 12 (data count) out of order", 12},
		{"unknown id", mod(sec(14, empty...)), "malformed module: unknown section id 14", 14},
	} {
		m, err := wasm.Parse(tc.b)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var pe *wasm.ParseError
		if !errors.As(err, &pe) || err.Error() != tc.want || pe.Section != tc.section || pe.Overrun {
			t.Errorf("%s: Parse: %v; want %q", tc.name, err, tc.want)
		}
		if m == nil {
			t.Errorf("%s: no module of the sections before the bad one", tc.name)
		}
	}
}

// A section's size is a u32 LEB128 of at most 5 bytes and is bounded by the bytes left;
// on an overrun, the module of the sections before it is returned with the error.
func TestParseSectionSizes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		b       []byte
		want    string
		overrun bool
	}{
		{"size LEB of 6 bytes", mod([]byte{1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}), "malformed module: section 1 size: LEB128 longer than 5 bytes", false},
		{"size over u32", mod([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x7f}), "malformed module: section 1 size: LEB128 overflows u32", false},
		{"size truncated", mod([]byte{1, 0x80}), "malformed module: section 1 size: truncated LEB128", false},
		{"overrun", mod(sec(1, 0), []byte{10, 5, 1}), "malformed module: section 10 of 5 bytes overruns the module (1 bytes left)", true},
		{"4 GiB section", mod([]byte{3, 0xff, 0xff, 0xff, 0xff, 0x0f}), "malformed module: section 3 of 4294967295 bytes overruns the module (0 bytes left)", true},
	} {
		m, err := wasm.Parse(tc.b)
		var pe *wasm.ParseError
		if !errors.As(err, &pe) || err.Error() != tc.want || pe.Overrun != tc.overrun {
			t.Errorf("%s: Parse: %v; want %q", tc.name, err, tc.want)
		}
		if tc.name == "overrun" {
			if body, ok := m.Section(wasm.SectionType); !ok || !bytes.Equal(body, []byte{0}) {
				t.Errorf("overrun: the type section before the bad one is %x, %v", body, ok)
			}
		}
	}
}

func TestLEB(t *testing.T) {
	for _, tc := range []struct {
		b    string
		v    uint32
		n    int
		want string
	}{
		{"\x00", 0, 1, ""},
		{"\xe5\x8e\x26", 624485, 3, ""},
		{"\xff\xff\xff\xff\x0f", 1<<32 - 1, 5, ""},
		{"\x80\x80\x80\x80\x10", 0, 0, "LEB128 overflows u32"},
		{"\x80\x80\x80\x80\x80\x00", 0, 0, "LEB128 longer than 5 bytes"},
		{"\x80", 0, 0, "truncated LEB128"},
	} {
		v, n, err := wasm.U32([]byte(tc.b))
		if got := errText(err); v != tc.v || n != tc.n || got != tc.want {
			t.Errorf("U32(%x) = %d, %d, %q; want %d, %d, %q", tc.b, v, n, got, tc.v, tc.n, tc.want)
		}
	}
	if _, _, err := wasm.LEB([]byte("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00"), 10); errText(err) != "LEB128 too long" {
		t.Errorf("an 11-byte i64: %v", err)
	}
	if v, n, err := wasm.S33([]byte{0x40}); v != -64 || n != 1 || err != nil {
		t.Errorf("S33(0x40) = %d, %d, %v; want -64 (the empty block type)", v, n, err)
	}
	if _, _, err := wasm.S33([]byte{0x80, 0x80, 0x80, 0x80, 0x20}); errText(err) != "LEB128 overflows s33" {
		t.Errorf("S33 of 2^34: %v", err)
	}
	for _, v := range []int32{0, 63, 64, -1, -64, -65, 1 << 18, -1 << 31, 1<<31 - 1} {
		b := wasm.AppendS32(nil, v)
		got, n, err := wasm.S33(b)
		if err != nil || got != int64(v) || n != len(b) {
			t.Errorf("AppendS32(%d) = %x, read back as %d (%v)", v, b, got, err)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Without changes a Rewriter writes the module back byte for byte; with them, every section
// it did not touch is kept as it was, the added ones are where the format requires them, and
// the readers see the changes.
func TestRewriterRoundTrip(t *testing.T) {
	for name, b := range map[string][]byte{"echo": wat.Echo, "fixture": wat.Fixture, "bulk": wat.Bulk, "hardening": wat.Hardening} {
		m, err := wasm.Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := wasm.NewRewriter(m).Bytes()
		if err != nil || !bytes.Equal(out, b) {
			t.Errorf("%s: unchanged rewrite differs from the module (%v)", name, err)
		}
	}

	m, err := wasm.Parse(wat.Echo)
	if err != nil {
		t.Fatal(err)
	}
	before, err := m.Index(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := wasm.NewRewriter(m)
	if first := r.Append(wasm.SectionType, 1, []byte{0x60, 0x01, 0x7f, 0x00}); first != before.Types {
		t.Errorf("Append returned %d, want the old count %d", first, before.Types)
	}
	r.Append(wasm.SectionGlobal, 1, []byte{0x7f, 0x01, 0x41, 0x05, 0x0b}) // echo has no globals
	r.Append(wasm.SectionExport, 1, append(wasm.AppendName(nil, "g"), wasm.KindGlobal, 0))
	if err := r.RewriteBodies(func(_ uint32, body, out []byte) ([]byte, error) {
		return append(out, body...), nil
	}); err != nil {
		t.Fatal(err)
	}
	out, err := r.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := wasm.Parse(out)
	if err != nil {
		t.Fatalf("the rewritten module does not parse: %v", err)
	}
	after, err := m2.Index(nil)
	if err != nil {
		t.Fatalf("the rewritten module: %v", err)
	}
	if after.Types != before.Types+1 || after.Globals != 1 || after.Funcs != before.Funcs {
		t.Errorf("after the rewrite: %d types, %d globals, %d functions; want %d, 1, %d", after.Types, after.Globals, after.Funcs, before.Types+1, before.Funcs)
	}
	if last := after.Exports[len(after.Exports)-1]; last != (wasm.Export{Name: "g", Kind: wasm.KindGlobal, Index: 0}) {
		t.Errorf("last export %+v", last)
	}
	types, _ := m2.Types()
	if got := types[len(types)-1].String(); got != "[i32] -> []" {
		t.Errorf("the appended type reads %s", got)
	}
	for _, id := range []wasm.SectionID{wasm.SectionCode, wasm.SectionData, wasm.SectionMemory} {
		a, _ := m.Section(id)
		b, _ := m2.Section(id)
		if !bytes.Equal(a, b) {
			t.Errorf("section %s changed", wasm.SectionName(id))
		}
	}
}

// A custom section appended to a module is read back by name, after the others; the module's
// imports and exports are unchanged, and DropCustom removes it again.
func TestAppendCustom(t *testing.T) {
	script := []byte("export function listTools() { return [] }\n")
	b := mod(sec(0, custom("name", "\x00")...))
	out, err := wasm.AppendCustom(b, "mcpwasm.js", script)
	if err != nil {
		t.Fatal(err)
	}
	m, err := wasm.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := m.Custom("mcpwasm.js")
	if !ok || !bytes.Equal(got, script) {
		t.Fatalf("Custom(mcpwasm.js) = %q, %v", got, ok)
	}
	if cs := m.Customs(); len(cs) != 2 || cs[0].Name != "name" || cs[1].Name != "mcpwasm.js" {
		t.Errorf("Customs = %+v", cs)
	}
	if !bytes.HasPrefix(out, b) {
		t.Error("appending changed the module's bytes before the new section")
	}

	out, err = wasm.AppendCustom(wat.Echo, "mcpwasm.js", script)
	if err != nil {
		t.Fatal(err)
	}
	m, _ = wasm.Parse(out)
	orig, _ := wasm.Parse(wat.Echo)
	e1, err1 := orig.Exports()
	e2, err2 := m.Exports()
	if err1 != nil || err2 != nil || len(e1) != len(e2) || len(e2) == 0 {
		t.Errorf("exports before %v (%v), after %v (%v)", e1, err1, e2, err2)
	}
	r := wasm.NewRewriter(m)
	r.DropCustom("mcpwasm.")
	back, err := r.Bytes()
	if err != nil || !bytes.Equal(back, wat.Echo) {
		t.Errorf("dropping the appended section does not give the module back (%v)", err)
	}
	if _, err := wasm.AppendCustom([]byte("nope"), "x", nil); !errors.Is(err, wasm.ErrMalformed) {
		t.Errorf("AppendCustom to no module: %v", err)
	}
}

// What a guest kind's detection reads: imports (module, name, kind, type), exports (name,
// kind, and through the index the function's type) and custom sections by name.
func TestImportsExportsForDetection(t *testing.T) {
	i64i64 := []byte{0x60, 0x01, 0x7e, 0x01, 0x7e}
	b := mod(
		sec(1, vec(2, append([]byte{0x60, 0, 0}, i64i64...)...)...),
		sec(2, append(vec(2), bytes.Join([][]byte{
			wasm.AppendName(nil, "extism:host/env"), wasm.AppendName(nil, "alloc"), {wasm.KindFunc, 1},
			wasm.AppendName(nil, "env"), wasm.AppendName(nil, "memory"), {wasm.KindMemory, 0x00, 0x01},
		}, nil)...)...),
		sec(3, vec(1, 1)...),
		sec(7, append(vec(1), append(wasm.AppendName(nil, "call"), wasm.KindFunc, 1)...)...),
		sec(10, vec(1, 4, 0x00, 0x20, 0x00, 0x0b)...),
		sec(0, custom("mcpwasm.kind", "extism")...),
	)
	m, err := wasm.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	imports, err := m.Imports()
	if err != nil || len(imports) != 2 {
		t.Fatalf("Imports = %+v, %v", imports, err)
	}
	if im := imports[0]; im.Module != "extism:host/env" || im.Name != "alloc" || im.Kind != wasm.KindFunc || im.Type != 1 {
		t.Errorf("import 0 = %+v", im)
	}
	if im := imports[1]; im.Module != "env" || im.Name != "memory" || im.Kind != wasm.KindMemory || !bytes.Equal(im.Desc, []byte{0x00, 0x01}) {
		t.Errorf("import 1 = %+v", im)
	}
	exports, err := m.Exports()
	if err != nil || len(exports) != 1 || exports[0] != (wasm.Export{Name: "call", Kind: wasm.KindFunc, Index: 1, Type: 1}) {
		t.Fatalf("Exports = %+v, %v", exports, err)
	}
	mi, err := m.Index(nil)
	if err != nil {
		t.Fatal(err)
	}
	ft, ok := mi.TypeOf(exports[0].Index)
	want := wasm.FuncType{Params: []wasm.ValueType{wasm.I64}, Results: []wasm.ValueType{wasm.I64}}
	if !ok || !ft.Equal(want) || ft.String() != "[i64] -> [i64]" {
		t.Errorf("type of export call = %v, %v; want %v", ft, ok, want)
	}
	if types, err := m.Types(); err != nil || len(types) != 2 || !types[exports[0].Type].Equal(want) {
		t.Errorf("Types = %v, %v; the export's type index %d", types, err, exports[0].Type)
	}
	if d, ok := m.Custom("mcpwasm.kind"); !ok || string(d) != "extism" {
		t.Errorf("custom mcpwasm.kind = %q, %v", d, ok)
	}
	if _, ok := m.Custom("mcpwasm.js"); ok {
		t.Error("found a custom section the module lacks")
	}
}

// Index refuses an index past the module's own, naming what names it; the reserved hook's
// error comes back as it is.
func TestIndexChecks(t *testing.T) {
	b := mod(sec(1, vec(1, 0x60, 0, 0)...), sec(3, vec(1, 1)...), sec(10, vec(1, 2, 0, 0x0b)...))
	m, err := wasm.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Index(nil)
	want := "reference to an index the module does not define: function 0's declaration names type 1, but the module defines 1 type (index 0)"
	if !errors.Is(err, wasm.ErrUndefinedIndex) || err.Error() != want {
		t.Errorf("Index: %v\nwant %s", err, want)
	}
	b = mod(sec(7, append(vec(1), append(wasm.AppendName(nil, "x"), 0, 0)...)...))
	m, _ = wasm.Parse(b)
	reserved := errors.New("x is reserved")
	if _, err := m.Index(func(name string) error {
		if name == "x" {
			return reserved
		}
		return nil
	}); err != reserved {
		t.Errorf("Index with a reserved name: %v", err)
	}
}

// CheckCounts refuses a vector count larger than its section's bytes, and a function type's
// parameter count larger than the bytes left.
func TestCheckCounts(t *testing.T) {
	for _, tc := range []struct {
		b, want string
	}{
		{header + "\x01\x08\x96\xa2\x8a\xca\x0c\x60\x00\x00", "malformed module: section 1 declares 3376582934 entries in 3 bytes"},
		{header + "\x01\x08\x01\x60\xff\xff\xff\xff\x0f\x00", "malformed module: type 0 declares 4294967295 value types in 1 bytes"},
		{header + "\x01\x04\x01\x60\x00\x00", ""},
	} {
		m, err := wasm.Parse([]byte(tc.b))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.CheckCounts(); errText(err) != tc.want {
			t.Errorf("CheckCounts(%x) = %v; want %q", tc.b, err, tc.want)
		}
	}
}

// FuzzParse: Parse never panics, nor do the readers on what it accepts, and the unchanged
// rewrite of a module it accepts is the module.
func FuzzParse(f *testing.F) {
	for _, b := range [][]byte{wat.Echo, wat.Fixture, wat.Bulk, wat.Bypass, wat.Hardening, []byte(header)} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := wasm.Parse(b)
		if err != nil {
			if !errors.Is(err, wasm.ErrMalformed) {
				t.Fatalf("Parse error %v does not wrap ErrMalformed", err)
			}
			return
		}
		out, err := wasm.NewRewriter(m).Bytes()
		if err != nil || !bytes.Equal(out, b) {
			t.Fatalf("unchanged rewrite differs (%v)", err)
		}
		if out, err = wasm.AppendCustom(b, "mcpwasm.js", b); err != nil {
			t.Fatalf("AppendCustom: %v", err)
		}
		if m2, err := wasm.Parse(out); err != nil {
			t.Fatalf("after AppendCustom: %v", err)
		} else if cs := m2.Customs(); len(cs) == 0 || cs[len(cs)-1].Name != "mcpwasm.js" || !bytes.Equal(cs[len(cs)-1].Data, b) {
			t.Fatal("the appended custom section is not the last one read back")
		}
		_ = m.CheckCounts()
		_, _ = m.Types()
		_, _ = m.Imports()
		_, _ = m.Exports()
		_, _ = m.Tables()
		_, _ = m.Elements()
		_ = m.Customs()
		if mi, err := m.Index(nil); err == nil {
			for f := range mi.ImportFuncs + mi.Funcs {
				mi.TypeOf(f)
			}
		}
		_ = m.Bodies(func(_ uint32, body []byte) error {
			off, err := wasm.Locals(body, nil)
			var in wasm.Instr
			for err == nil && off < len(body) {
				off, err = wasm.Decode(body, off, &in)
			}
			return nil
		})
	})
}

// A constant expression reads ref.null of a type index, as wazero's does; in code, where
// wazero refuses it without typed function references, Decode refuses it too.
func TestConstExprRefNullTypeIndex(t *testing.T) {
	expr := []byte{0xd0, 0xb0, 0x01, 0x0b} // ref.null 176, end
	var ops []byte
	next, err := wasm.ConstExpr(expr, 0, func(in wasm.Instr) error { ops = append(ops, in.Op); return nil })
	if err != nil || next != len(expr) || string(ops) != "\xd0\x0b" {
		t.Errorf("ConstExpr = %d, %v, ops %x; want %d, nil, d00b", next, err, ops, len(expr))
	}
	var in wasm.Instr
	if _, err := wasm.Decode(expr, 0, &in); err == nil || err.Error() != "instruction 0xd0: unknown reference type" {
		t.Errorf("Decode of ref.null 176 in code: %v", err)
	}
	if _, err := wasm.ConstExpr([]byte{0xd0, 0x70}, 0, nil); err == nil {
		t.Error("a constant expression without end was read")
	}
}

// The package is a leaf: it imports only the standard library, so anything in the host may
// use it and it can never import back (RATIONALE.md, "The shape of the house").
func TestLeaf(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
			t.Errorf("imports %s", imp)
		}
	}
	if len(p.Imports) == 0 {
		t.Fatal("no imports read")
	}
}
