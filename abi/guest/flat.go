package guest

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"
)

// A flatDecoder decodes a typed tool's arguments — a JSON object — into a struct of string,
// number and bool fields without encoding/json, whose reflective decoding is most of a small
// typed call in a guest and, with reflect, fmt and what they reach, over a megabyte of its
// module. It is exact, not a fast path: any input gets the value json.Unmarshal would give,
// or the error text it would give (syntax errors first, then the first type mismatch, named
// as "Go struct field T.key"). FuzzFlatDecoder holds the two to the same answers.
type flatDecoder struct {
	node *decNode
}

// flatField is one exported field: its JSON key, its offset in the struct, its kind, and
// whether it is tagged omitempty.
type flatField struct {
	key       string
	offset    uintptr
	kind      reflect.Kind
	typ       reflect.Type
	omitEmpty bool
}

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonNumber      = reflect.TypeFor[json.Number]() // a string kind that encoding/json checks
)

// newFlatDecoder returns a decoder for t, or nil if t is not a struct of only scalar fields
// that encoding/json decodes plainly (see flatFields).
func newFlatDecoder(t reflect.Type) *flatDecoder {
	fields, ok := flatFields(t)
	if !ok {
		return nil
	}
	n := &decNode{t: t, kind: reflect.Struct}
	for _, f := range fields {
		n.fields = append(n.fields, decField{key: f.key, folded: string(foldName([]byte(f.key))), offset: f.offset,
			node: &decNode{t: f.typ, kind: f.kind}})
	}
	return &flatDecoder{node: n}
}

// flatFields returns the exported fields of t if t is a struct of only string, bool,
// integer and float fields that encoding/json encodes and decodes plainly: no method of t or
// a field type is a json or text (un)marshaler, no embedded struct, no ",string" or
// ",omitzero" option, no json.Number, no two keys that differ only in case, and every key
// made of ASCII letters, digits, '_' and '-'.
func flatFields(t reflect.Type) ([]flatField, bool) {
	if t.Kind() != reflect.Struct || custom(t) {
		return nil, false
	}
	var fields []flatField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil, false
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		key, opts, _ := strings.Cut(tag, ",")
		opts = "," + opts + ","
		if strings.Contains(opts, ",string,") || strings.Contains(opts, ",omitzero,") {
			return nil, false
		}
		if key == "" {
			key = f.Name
		}
		if !simpleKey(key) || custom(f.Type) || f.Type == jsonNumber {
			return nil, false
		}
		switch f.Type.Kind() {
		case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return nil, false
		}
		for _, g := range fields {
			if strings.EqualFold(g.key, key) {
				return nil, false // encoding/json's rules for such pairs are not worth copying
			}
		}
		fields = append(fields, flatField{key: key, offset: f.Offset, kind: f.Type.Kind(), typ: f.Type,
			omitEmpty: strings.Contains(opts, ",omitempty,")})
	}
	return fields, true
}

// custom reports whether encoding/json would call a method of t (or *t) to encode or
// decode it.
func custom(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(jsonMarshaler) || p.Implements(textMarshaler) ||
		p.Implements(jsonUnmarshaler) || p.Implements(textUnmarshaler)
}

// simpleKey reports whether key is made of ASCII letters, digits, '_' and '-' only (a
// valid json tag name that needs no escaping).
func simpleKey(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return key != ""
}

// decode decodes data into the struct at p (of the decoder's type, zeroed) and returns
// json.Unmarshal's error for data, if any; on error, p may be partly written.
func (d *flatDecoder) decode(data []byte, p unsafe.Pointer) error {
	return decodeInto(data, d.node, p)
}

// A flatEncoder encodes a struct of scalar fields (see flatFields) as encoding/json with
// SetEscapeHTML(false) does, byte for byte: fields in order, omitempty honoured, floats in
// encoding/json's format. It reports false for a NaN or infinite float, which encoding/json
// refuses with an error the caller lets it write. FuzzFlatEncoder checks it.
type flatEncoder struct {
	fields []flatField
}

// newFlatEncoder returns an encoder for t, or nil if flatFields refuses t.
func newFlatEncoder(t reflect.Type) *flatEncoder {
	fields, ok := flatFields(t)
	if !ok {
		return nil
	}
	return &flatEncoder{fields: fields}
}

// encode appends the JSON of the struct at p to dst.
func (e *flatEncoder) encode(dst []byte, p unsafe.Pointer) ([]byte, bool) {
	dst = append(dst, '{')
	first := true
	for k := range e.fields {
		f := &e.fields[k]
		q := unsafe.Add(p, f.offset)
		if f.omitEmpty && isEmpty(f.kind, q) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, '"')
		dst = append(dst, f.key...)
		dst = append(dst, '"', ':')
		switch f.kind {
		case reflect.String:
			dst = appendString(dst, *(*string)(q))
		case reflect.Bool:
			dst = strconv.AppendBool(dst, *(*bool)(q))
		case reflect.Int:
			dst = strconv.AppendInt(dst, int64(*(*int)(q)), 10)
		case reflect.Int8:
			dst = strconv.AppendInt(dst, int64(*(*int8)(q)), 10)
		case reflect.Int16:
			dst = strconv.AppendInt(dst, int64(*(*int16)(q)), 10)
		case reflect.Int32:
			dst = strconv.AppendInt(dst, int64(*(*int32)(q)), 10)
		case reflect.Int64:
			dst = strconv.AppendInt(dst, *(*int64)(q), 10)
		case reflect.Uint:
			dst = strconv.AppendUint(dst, uint64(*(*uint)(q)), 10)
		case reflect.Uint8:
			dst = strconv.AppendUint(dst, uint64(*(*uint8)(q)), 10)
		case reflect.Uint16:
			dst = strconv.AppendUint(dst, uint64(*(*uint16)(q)), 10)
		case reflect.Uint32:
			dst = strconv.AppendUint(dst, uint64(*(*uint32)(q)), 10)
		case reflect.Uint64:
			dst = strconv.AppendUint(dst, *(*uint64)(q), 10)
		case reflect.Float32:
			var ok bool
			if dst, ok = appendFloat(dst, float64(*(*float32)(q)), 32); !ok {
				return dst, false
			}
		case reflect.Float64:
			var ok bool
			if dst, ok = appendFloat(dst, *(*float64)(q), 64); !ok {
				return dst, false
			}
		default:
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// isEmpty is encoding/json's isEmptyValue for the scalar kinds.
func isEmpty(kind reflect.Kind, p unsafe.Pointer) bool {
	switch kind {
	case reflect.String:
		return *(*string)(p) == ""
	case reflect.Bool:
		return !*(*bool)(p)
	case reflect.Int:
		return *(*int)(p) == 0
	case reflect.Int8:
		return *(*int8)(p) == 0
	case reflect.Int16:
		return *(*int16)(p) == 0
	case reflect.Int32:
		return *(*int32)(p) == 0
	case reflect.Int64:
		return *(*int64)(p) == 0
	case reflect.Uint:
		return *(*uint)(p) == 0
	case reflect.Uint8:
		return *(*uint8)(p) == 0
	case reflect.Uint16:
		return *(*uint16)(p) == 0
	case reflect.Uint32:
		return *(*uint32)(p) == 0
	case reflect.Uint64:
		return *(*uint64)(p) == 0
	case reflect.Float32:
		return *(*float32)(p) == 0
	case reflect.Float64:
		return *(*float64)(p) == 0
	}
	return false
}

// appendFloat is encoding/json's floatEncoder: like ES6, 'f' format unless the magnitude is
// below 1e-6 or at least 1e21, then 'e' with a one-digit negative exponent unpadded. NaN
// and infinities are not JSON: it reports false.
func appendFloat(dst []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// unsupported returns, for a struct at p that encode refused, the text of encoding/json's
// error for it: the first field holding a NaN or an infinity.
func (e *flatEncoder) unsupported(p unsafe.Pointer) string {
	for k := range e.fields {
		f := &e.fields[k]
		q := unsafe.Add(p, f.offset)
		switch f.kind {
		case reflect.Float32:
			if v := float64(*(*float32)(q)); math.IsInf(v, 0) || math.IsNaN(v) {
				return "json: unsupported value: " + strconv.FormatFloat(v, 'g', -1, 32)
			}
		case reflect.Float64:
			if v := *(*float64)(q); math.IsInf(v, 0) || math.IsNaN(v) {
				return "json: unsupported value: " + strconv.FormatFloat(v, 'g', -1, 64)
			}
		}
	}
	return "json: unsupported value"
}
