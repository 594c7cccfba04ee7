package guest

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// A flatDecoder decodes the common case of a typed tool's arguments — a JSON object of
// strings, numbers and booleans into a struct of such fields — without encoding/json,
// whose reflective decoding (and its allocations) is most of a small typed call in a
// guest. It is a fast path only: decode reports false for anything it does not handle
// exactly as encoding/json would (escapes in strings, invalid UTF-8, null, nested values,
// keys that match no field exactly, numbers that do not fit), and the caller then zeroes
// the value and runs json.Unmarshal, which decodes it or writes the error it always wrote.
// FuzzFlatDecoder checks that whenever decode succeeds, json.Unmarshal gives the same value.
type flatDecoder struct {
	fields []flatField
}

// flatField is one exported field: its JSON key, its offset in the struct, its kind, and
// whether it is tagged omitempty.
type flatField struct {
	key       string
	offset    uintptr
	kind      reflect.Kind
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
	return &flatDecoder{fields: fields}
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
		fields = append(fields, flatField{key: key, offset: f.Offset, kind: f.Type.Kind(),
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

// decode decodes data into the struct at p (of the decoder's type, zeroed). On false, p may
// be partly written.
func (d *flatDecoder) decode(data []byte, p unsafe.Pointer) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		key, j, ok := plainString(data, i)
		if !ok {
			return false
		}
		var f *flatField
		for k := range d.fields {
			if d.fields[k].key == unsafe.String(unsafe.SliceData(key), len(key)) {
				f = &d.fields[k]
				break
			}
		}
		if f == nil {
			return false // unknown, or matching a field only case-insensitively
		}
		i = skipSpace(data, j)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		if i, ok = f.set(data, i, unsafe.Add(p, f.offset)); !ok {
			return false
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return skipSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
}

// set decodes the value at data[i:] into the field at p and returns the offset after it.
func (f *flatField) set(data []byte, i int, p unsafe.Pointer) (int, bool) {
	switch f.kind {
	case reflect.String:
		s, j, ok := plainString(data, i)
		if !ok {
			return 0, false
		}
		*(*string)(p) = string(s)
		return j, true
	case reflect.Bool:
		switch {
		case hasPrefix(data[i:], "true"):
			*(*bool)(p) = true
			return i + 4, true
		case hasPrefix(data[i:], "false"):
			*(*bool)(p) = false
			return i + 5, true
		}
		return 0, false
	}
	j, ok := number(data, i)
	if !ok {
		return 0, false
	}
	lit := unsafe.String(&data[i], j-i)
	var err error
	switch f.kind {
	case reflect.Float64:
		*(*float64)(p), err = strconv.ParseFloat(lit, 64)
	case reflect.Float32:
		var v float64
		v, err = strconv.ParseFloat(lit, 32)
		*(*float32)(p) = float32(v)
	case reflect.Int:
		var v int64
		v, err = strconv.ParseInt(lit, 10, strconv.IntSize)
		*(*int)(p) = int(v)
	case reflect.Int64:
		*(*int64)(p), err = strconv.ParseInt(lit, 10, 64)
	case reflect.Int32:
		var v int64
		v, err = strconv.ParseInt(lit, 10, 32)
		*(*int32)(p) = int32(v)
	case reflect.Int16:
		var v int64
		v, err = strconv.ParseInt(lit, 10, 16)
		*(*int16)(p) = int16(v)
	case reflect.Int8:
		var v int64
		v, err = strconv.ParseInt(lit, 10, 8)
		*(*int8)(p) = int8(v)
	case reflect.Uint:
		var v uint64
		v, err = strconv.ParseUint(lit, 10, strconv.IntSize)
		*(*uint)(p) = uint(v)
	case reflect.Uint64:
		*(*uint64)(p), err = strconv.ParseUint(lit, 10, 64)
	case reflect.Uint32:
		var v uint64
		v, err = strconv.ParseUint(lit, 10, 32)
		*(*uint32)(p) = uint32(v)
	case reflect.Uint16:
		var v uint64
		v, err = strconv.ParseUint(lit, 10, 16)
		*(*uint16)(p) = uint16(v)
	case reflect.Uint8:
		var v uint64
		v, err = strconv.ParseUint(lit, 10, 8)
		*(*uint8)(p) = uint8(v)
	default:
		return 0, false
	}
	return j, err == nil
}

func hasPrefix(b []byte, s string) bool { return len(b) >= len(s) && string(b[:len(s)]) == s }

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// plainString returns the contents of the JSON string at data[i:] and the offset after its
// closing quote, if it has no escapes and no control characters and is valid UTF-8 (so its
// bytes are its value).
func plainString(data []byte, i int) ([]byte, int, bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, 0, false
	}
	start := i + 1
	ascii := true
	for j := start; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			s := data[start:j]
			return s, j + 1, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, 0, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, 0, false
}

// number returns the offset after the JSON number at data[i:] (RFC 8259 §6 grammar).
func number(data []byte, i int) (int, bool) {
	digits := func(i int) int {
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
		}
		return i
	}
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = digits(i + 1)
	default:
		return 0, false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
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
