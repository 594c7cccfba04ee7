package wasm

import "fmt"

// ValueType is a value type as the binary format encodes it: one byte (I32, …, ExternRef),
// or 0x63/0x64 and a heap type for (ref null? ht).
type ValueType string

// The one-byte value types.
const (
	I32       ValueType = "\x7f"
	I64       ValueType = "\x7e"
	F32       ValueType = "\x7d"
	F64       ValueType = "\x7c"
	V128      ValueType = "\x7b"
	FuncRef   ValueType = "\x70"
	ExternRef ValueType = "\x6f"
)

// String names the type as the text format does: "i32", "funcref"; another is shown in hex.
func (v ValueType) String() string {
	switch v {
	case I32:
		return "i32"
	case I64:
		return "i64"
	case F32:
		return "f32"
	case F64:
		return "f64"
	case V128:
		return "v128"
	case FuncRef:
		return "funcref"
	case ExternRef:
		return "externref"
	}
	return fmt.Sprintf("valtype(%x)", string(v))
}

// FuncType is a function type: parameters and results.
type FuncType struct {
	Params, Results []ValueType
}

func (t FuncType) void() bool { return len(t.Params) == 0 && len(t.Results) == 0 }

// String is the text format's shape: "[i32 i32] -> [i64]".
func (t FuncType) String() string {
	return fmt.Sprintf("%v -> %v", t.Params, t.Results)
}

// Equal reports whether t and u have the same parameters and results.
func (t FuncType) Equal(u FuncType) bool {
	if len(t.Params) != len(u.Params) || len(t.Results) != len(u.Results) {
		return false
	}
	for i := range t.Params {
		if t.Params[i] != u.Params[i] {
			return false
		}
	}
	for i := range t.Results {
		if t.Results[i] != u.Results[i] {
			return false
		}
	}
	return true
}

// The kinds of an import or export (WebAssembly Core 2.0 §5.5.5, §5.5.10; tag: exception
// handling).
const (
	KindFunc   byte = 0x00
	KindTable  byte = 0x01
	KindMemory byte = 0x02
	KindGlobal byte = 0x03
	KindTag    byte = 0x04
)

// Import is one import: the module and name it imports, its kind, and for a function or a
// tag its type index (Type); Desc is its descriptor's bytes as encoded (the type index, the
// table type, the limits, the global type).
type Import struct {
	Module, Name string
	Kind         byte
	Type         uint32
	Desc         []byte
}

// Export is one export: its name, kind and the index it exports in the kind's space; for a
// function, Type is its type index (Types, Index.TypeOf).
type Export struct {
	Name  string
	Kind  byte
	Index uint32
	Type  uint32
}

// TypeOf returns the type of function fidx (imports first): ok is false if the module does
// not define the function or its type.
func (mi *Index) TypeOf(fidx uint32) (FuncType, bool) {
	if int(fidx) >= len(mi.FuncTypes) {
		return FuncType{}, false
	}
	t := mi.FuncTypes[fidx]
	if int(t) >= len(mi.types) {
		return FuncType{}, false
	}
	return mi.types[t], true
}

// TypeList returns the module's types, by type index.
func (mi *Index) TypeList() []FuncType { return mi.types }

// laxIndex reads the sections through the Index scanners without checking indexes.
func (m *Module) laxIndex() *Index {
	mi := &Index{sections: map[byte][]byte{}, lax: true}
	for _, s := range m.secs {
		if s.id != SectionCustom {
			mi.sections[s.id] = m.b[s.body:s.end]
		}
	}
	return mi
}

// Types returns the function types of the type section, by type index (a rec group's types
// in order).
func (m *Module) Types() ([]FuncType, error) {
	mi := m.laxIndex()
	if err := mi.scanTypes(); err != nil {
		return nil, wrapSection(err, "type section")
	}
	return mi.types, nil
}

// Imports returns the imports of the import section, in order.
func (m *Module) Imports() ([]Import, error) {
	mi := m.laxIndex()
	if b, ok := mi.sections[SectionImport]; ok {
		if err := mi.scanImports(b); err != nil {
			return nil, wrapSection(err, "import section")
		}
	}
	return mi.Imports, nil
}

// Exports returns the exports of the export section, in order, with each function's type
// index.
func (m *Module) Exports() ([]Export, error) {
	mi := m.laxIndex()
	if b, ok := mi.sections[SectionImport]; ok {
		if err := mi.scanImports(b); err != nil {
			return nil, wrapSection(err, "import section")
		}
	}
	if b, ok := mi.sections[SectionFunction]; ok {
		if err := mi.scanFunctions(b); err != nil {
			return nil, wrapSection(err, "function section")
		}
	}
	if b, ok := mi.sections[SectionExport]; ok {
		if err := mi.scanExports(b); err != nil {
			return nil, wrapSection(err, "export section")
		}
	}
	return mi.Exports, nil
}

// Elements returns how many elements the segments of the element section hold together.
func (m *Module) Elements() (uint64, error) {
	mi := m.laxIndex()
	if b, ok := mi.sections[SectionElement]; ok {
		if err := mi.scanElements(b); err != nil {
			return 0, wrapSection(err, "element section")
		}
	}
	return mi.ElementItems, nil
}
