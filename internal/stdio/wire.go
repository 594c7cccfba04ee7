package stdio

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// This file holds small allocation-free helpers that inspect JSON text
// (RFC 8259) which has already been validated with json.Valid.

// isWS reports whether c is JSON insignificant whitespace (RFC 8259 §2).
func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trimWS removes leading and trailing JSON whitespace.
func trimWS(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isWS(b[i]) {
		i++
	}
	for j > i && isWS(b[j-1]) {
		j--
	}
	return b[i:j]
}

// kindOf classifies a raw JSON value: 0 for absent (empty), '"' string,
// '{' object, '[' array, 'n' null, 'b' boolean, '0' number.
func kindOf(v []byte) byte {
	if len(v) == 0 {
		return 0
	}
	switch c := v[0]; {
	case c == '"', c == '{', c == '[', c == 'n':
		return c
	case c == 't', c == 'f':
		return 'b'
	default:
		return '0'
	}
}

// skipString returns the index just past the string literal starting at
// b[i] == '"', or len(b) if it is unterminated.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
			i++
		}
		return len(b)
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// forEachMember calls fn for each member of the JSON object that starts at
// b[0], passing the raw key literal (with quotes) and the offsets of the raw
// value in b. b must be valid JSON.
func forEachMember(b []byte, fn func(key []byte, vs, ve int)) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i++
	for {
		i = skipWS(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
		}
		if i >= len(b) || b[i] != '"' {
			return // '}' or malformed
		}
		ke := skipString(b, i)
		key := b[i:ke]
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return
		}
		vs := skipWS(b, i+1)
		ve := skipValue(b, vs)
		if vs >= ve {
			return
		}
		fn(key, vs, ve)
		i = ve
	}
}

// keyIs reports whether the raw key literal denotes name.
func keyIs(key []byte, name string) bool {
	if len(key) < 2 {
		return false
	}
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == name
	}
	s, ok := decodeString(key)
	return ok && s == name
}

// decodeString decodes a raw JSON string literal.
func decodeString(raw []byte) (string, bool) {
	if kindOf(raw) != '"' || len(raw) < 2 {
		return "", false
	}
	if bytes.Equal(raw, []byte(`"2.0"`)) {
		return "2.0", true
	}
	if plainString(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// plainString reports whether the string literal lit (with quotes) is
// reproduced byte for byte when its decoded value is encoded again by
// encoding/json without HTML escaping, as the SDK does: it contains no escape
// sequence, is valid UTF-8 and contains no U+2028/U+2029.
func plainString(lit []byte) bool {
	inner := lit[1 : len(lit)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return false
	}
	return !bytes.Contains(inner, []byte("\u2028")) && !bytes.Contains(inner, []byte("\u2029"))
}

// canonicalInt reports whether the number literal lit is exactly what
// strconv.FormatInt prints for an integer n with |n| <= 2^53, i.e. a value
// the SDK's float64-based id decoding reproduces identically.
func canonicalInt(lit []byte) (int64, bool) {
	s := lit
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 16 || (s[0] == '0' && len(s) > 1) || (neg && s[0] == '0') {
		return 0, false
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n > 1<<53 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// appendJSONString appends s as a JSON string literal, escaping like
// encoding/json without HTML escaping.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
