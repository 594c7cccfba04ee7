package guest

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// This file decodes JSON into a few kinds of Go values — structs of scalar fields, pointers
// to such structs, map[string]string — as json.Unmarshal does, without encoding/json: the
// same values, and the same error texts, which reach users in tool errors ("invalid
// arguments: json: cannot unmarshal number into Go struct field calcIn.expression of type
// string"). Input is first checked with checkValid, as json.Unmarshal does, so the decoder
// proper reads only valid JSON.

// A decNode says how to decode into one Go type.
type decNode struct {
	t      reflect.Type
	kind   reflect.Kind // a scalar kind, Struct, Pointer (to a struct) or Map (map[string]string)
	fields []decField   // Struct
	elem   *decNode     // Pointer: the struct; Map: the value
}

// decField is one struct field: its JSON key, the key folded as encoding/json matches keys
// case-insensitively, and where it is.
type decField struct {
	key, folded string
	offset      uintptr
	node        *decNode
}

// decoder is the state of one decodeInto.
type decoder struct {
	data []byte
	i    int
	err  error // the first type mismatch; decoding goes on, as in encoding/json
	// The error context encoding/json keeps: the innermost struct whose field is being
	// decoded, and the keys from the outermost.
	inStruct reflect.Type
	keys     []string
}

var dec decoder // reused; the host never runs two calls in one instance at once

// decodeInto decodes data into the value of n's type at p, returning json.Unmarshal's error.
func decodeInto(data []byte, n *decNode, p unsafe.Pointer) error {
	if err := checkValid(data); err != nil {
		return err
	}
	d := &dec
	d.data, d.i, d.err, d.inStruct, d.keys = data, 0, nil, nil, d.keys[:0]
	d.value(n, p)
	err := d.err
	d.data, d.err = nil, nil
	return err
}

func (d *decoder) space() {
	for d.i < len(d.data) && isSpace(d.data[d.i]) {
		d.i++
	}
}

// mismatch records encoding/json's UnmarshalTypeError for a value of JSON kind what (e.g.
// "number", "number 1.5", "object") that cannot go into t, if it is the first.
func (d *decoder) mismatch(what string, t reflect.Type) {
	if d.err != nil {
		return
	}
	if d.inStruct != nil || len(d.keys) > 0 {
		name := ""
		if d.inStruct != nil {
			name = d.inStruct.Name()
		}
		d.err = errors.New("json: cannot unmarshal " + what + " into Go struct field " + name + "." +
			strings.Join(d.keys, ".") + " of type " + t.String())
		return
	}
	d.err = errors.New("json: cannot unmarshal " + what + " into Go value of type " + t.String())
}

// value decodes the value at d.i into p (of n's type); n nil skips it.
func (d *decoder) value(n *decNode, p unsafe.Pointer) {
	d.space()
	if n == nil {
		d.skip()
		return
	}
	c := d.data[d.i]
	if n.kind == reflect.Pointer {
		pp := (*unsafe.Pointer)(p)
		if c == 'n' {
			*pp = nil
			d.i += 4
			return
		}
		if *pp == nil {
			*pp = reflect.New(n.elem.t).UnsafePointer()
		}
		d.value(n.elem, *pp)
		return
	}
	switch c {
	case '{':
		switch n.kind {
		case reflect.Struct:
			d.object(n, p)
		case reflect.Map:
			d.stringMap(n, (*map[string]string)(p))
		default:
			d.mismatch("object", n.t)
			d.skip()
		}
	case '[':
		d.mismatch("array", n.t)
		d.skip()
	case '"':
		s := d.str()
		if n.kind == reflect.String {
			*(*string)(p) = s
		} else {
			d.mismatch("string", n.t)
		}
	case 't', 'f':
		v := c == 't'
		if v {
			d.i += 4
		} else {
			d.i += 5
		}
		if n.kind == reflect.Bool {
			*(*bool)(p) = v
		} else {
			d.mismatch("bool", n.t)
		}
	case 'n':
		d.i += 4
		if n.kind == reflect.Map {
			*(*map[string]string)(p) = nil
		}
	default:
		start := d.i
		d.skipNumber()
		d.number(n, p, unsafe.String(&d.data[start], d.i-start))
	}
}

// number stores the number lit into p, or records the mismatch encoding/json reports and,
// as encoding/json does, leaves p as it was: strconv's clamped value for an out-of-range
// literal, or its 0 for a fraction in an integer, is never stored.
func (d *decoder) number(n *decNode, p unsafe.Pointer, lit string) {
	var ok bool
	switch n.kind {
	case reflect.Float64:
		ok = storeFloat((*float64)(p), lit, 64)
	case reflect.Float32:
		ok = storeFloat((*float32)(p), lit, 32)
	case reflect.Int, reflect.Int64:
		ok = storeInt((*int64)(p), lit, 64)
	case reflect.Int32:
		ok = storeInt((*int32)(p), lit, 32)
	case reflect.Int16:
		ok = storeInt((*int16)(p), lit, 16)
	case reflect.Int8:
		ok = storeInt((*int8)(p), lit, 8)
	case reflect.Uint, reflect.Uint64:
		ok = storeUint((*uint64)(p), lit, 64)
	case reflect.Uint32:
		ok = storeUint((*uint32)(p), lit, 32)
	case reflect.Uint16:
		ok = storeUint((*uint16)(p), lit, 16)
	case reflect.Uint8:
		ok = storeUint((*uint8)(p), lit, 8)
	default:
		d.mismatch("number", n.t)
		return
	}
	if !ok {
		d.mismatch("number "+lit, n.t)
	}
}

// storeInt, storeUint and storeFloat parse lit as a bits-wide value and store it in *p only
// if it is one.
func storeInt[T int8 | int16 | int32 | int64](p *T, lit string, bits int) bool {
	v, err := strconv.ParseInt(lit, 10, bits)
	if err == nil {
		*p = T(v)
	}
	return err == nil
}

func storeUint[T uint8 | uint16 | uint32 | uint64](p *T, lit string, bits int) bool {
	v, err := strconv.ParseUint(lit, 10, bits)
	if err == nil {
		*p = T(v)
	}
	return err == nil
}

func storeFloat[T float32 | float64](p *T, lit string, bits int) bool {
	v, err := strconv.ParseFloat(lit, bits)
	if err == nil {
		*p = T(v)
	}
	return err == nil
}

// object decodes the object at d.i into the struct at p. Keys match a field exactly, else
// case-insensitively (encoding/json's foldName); other keys are skipped.
func (d *decoder) object(n *decNode, p unsafe.Pointer) {
	d.i++ // '{'
	outerStruct, outerKeys := d.inStruct, len(d.keys)
	for {
		d.space()
		if d.data[d.i] == '}' {
			d.i++
			return
		}
		key := d.strBytes()
		d.space()
		d.i++ // ':'
		var f *decField
		for k := range n.fields {
			if n.fields[k].key == string(key) {
				f = &n.fields[k]
				break
			}
		}
		if f == nil {
			folded := string(foldName(key))
			for k := range n.fields {
				if n.fields[k].folded == folded {
					f = &n.fields[k]
					break
				}
			}
		}
		if f == nil {
			d.value(nil, nil)
		} else {
			d.inStruct, d.keys = n.t, append(d.keys, f.key)
			d.value(f.node, unsafe.Add(p, f.offset))
		}
		d.inStruct, d.keys = outerStruct, d.keys[:outerKeys]
		d.space()
		if d.data[d.i] == ',' {
			d.i++
		}
	}
}

// stringMap decodes the object at d.i into *m, making it if nil.
func (d *decoder) stringMap(n *decNode, m *map[string]string) {
	d.i++ // '{'
	if *m == nil {
		*m = map[string]string{}
	}
	for {
		d.space()
		if d.data[d.i] == '}' {
			d.i++
			return
		}
		key := d.str()
		d.space()
		d.i++ // ':'
		var v string
		d.value(n.elem, unsafe.Pointer(&v))
		(*m)[key] = v
		d.space()
		if d.data[d.i] == ',' {
			d.i++
		}
	}
}

// skip moves past the (valid) value at d.i.
func (d *decoder) skip() {
	d.space()
	switch d.data[d.i] {
	case '"':
		d.skipString()
	case '{', '[':
		depth := 0
		for {
			switch d.data[d.i] {
			case '"':
				d.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			d.i++
			if depth == 0 {
				return
			}
		}
	case 't', 'n':
		d.i += 4
	case 'f':
		d.i += 5
	default:
		d.skipNumber()
	}
}

func (d *decoder) skipNumber() {
	for d.i < len(d.data) {
		switch c := d.data[d.i]; {
		case '0' <= c && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) skipString() {
	d.i++
	for d.data[d.i] != '"' {
		if d.data[d.i] == '\\' {
			d.i++
		}
		d.i++
	}
	d.i++
}

// str returns the (valid) string literal at d.i, unquoted, and moves past it.
func (d *decoder) str() string { return string(d.strBytes()) }

// strBytes is str without the copy: a literal without escapes or invalid UTF-8 is returned
// in place.
func (d *decoder) strBytes() []byte {
	start := d.i
	d.skipString()
	return unquote(d.data[start+1 : d.i-1])
}

// unquote is encoding/json's unquoting of a valid string literal's contents: escapes
// decoded, a lone or unpaired UTF-16 surrogate escape becomes U+FFFD, and so does each byte
// of invalid UTF-8.
func unquote(s []byte) []byte {
	r := 0
	for r < len(s) {
		c := s[r]
		if c == '\\' {
			break
		}
		if c < utf8.RuneSelf {
			r++
			continue
		}
		rr, size := utf8.DecodeRune(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	b = append(b, s[:r]...)
	for r < len(s) {
		c := s[r]
		switch {
		case c == '\\':
			r++
			switch e := s[r]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(s[r-1:])
				r += 5
				if 0xD800 <= rr && rr < 0xE000 {
					if rr < 0xDC00 {
						if rr1 := getu4(s[r:]); 0xDC00 <= rr1 && rr1 < 0xE000 {
							b = utf8.AppendRune(b, (rr-0xD800)<<10|(rr1-0xDC00)+0x10000)
							r += 6
							continue
						}
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // '"', '\\', '/'
				b = append(b, e)
			}
			r++
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return b
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// foldName is encoding/json's key folding: two keys match case-insensitively exactly when
// their foldings are equal (as bytes.EqualFold would say).
func foldName(in []byte) []byte {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return out
}

// stringMapNode returns the decNode of map[string]string, as prompt arguments arrive.
func stringMapNode() *decNode {
	return &decNode{t: reflect.TypeFor[map[string]string](), kind: reflect.Map,
		elem: &decNode{t: reflect.TypeFor[string](), kind: reflect.String}}
}

// DecodeJSONValue reads the first JSON value in data as a json.Decoder with UseNumber does,
// without linking encoding/json: objects become map[string]any (a repeated key keeps its
// last value), arrays []any, numbers json.Number (the literal as written), strings string,
// true and false bool, null nil. It returns the value and n, the bytes read: leading white
// space and the value (RFC 8259 §2), not what follows it, which the caller may check. Errors
// are io.EOF when data holds only white space, io.ErrUnexpectedEOF when it ends inside the
// value, and otherwise an error with encoding/json's text for the first invalid byte, e.g.
// "invalid character 'a' looking for beginning of object key string". It is safe for
// concurrent use.
func DecodeJSONValue(data []byte) (v any, n int, err error) {
	s := &scanner{}
	s.reset()
	n = -1
	for i := 0; i < len(data) && n < 0; i++ {
		if s.endTop { // a closing '}' or ']' ended the value
			n = i
			break
		}
		c := data[i]
		ok, _ := s.step(c)
		switch {
		case s.endTop && (!ok || isSpace(c)):
			n = i // c follows a string, number or literal that it ended
		case !ok:
			return nil, 0, s.err
		}
	}
	if n < 0 {
		if !s.endTop {
			if s.step(' '); !s.endTop {
				for _, c := range data {
					if !isSpace(c) {
						return nil, 0, io.ErrUnexpectedEOF
					}
				}
				return nil, 0, io.EOF
			}
		}
		n = len(data)
	}
	d := &decoder{data: data[:n]}
	return d.anyValue(), n, nil
}

// anyValue decodes the (valid) value at d.i as json.Unmarshal into an any with UseNumber.
func (d *decoder) anyValue() any {
	d.space()
	switch c := d.data[d.i]; c {
	case '{':
		d.i++
		m := map[string]any{}
		for {
			d.space()
			if d.data[d.i] == '}' {
				d.i++
				return m
			}
			key := d.str()
			d.space()
			d.i++ // ':'
			m[key] = d.anyValue()
			d.space()
			if d.data[d.i] == ',' {
				d.i++
			}
		}
	case '[':
		d.i++
		a := []any{}
		for {
			d.space()
			if d.data[d.i] == ']' {
				d.i++
				return a
			}
			a = append(a, d.anyValue())
			d.space()
			if d.data[d.i] == ',' {
				d.i++
			}
		}
	case '"':
		return d.str()
	case 't':
		d.i += 4
		return true
	case 'f':
		d.i += 5
		return false
	case 'n':
		d.i += 4
		return nil
	default:
		start := d.i
		d.skipNumber()
		return json.Number(d.data[start:d.i])
	}
}
