package stdio

import "unicode/utf8"

// Number and string helpers of the id round trip (ids.go) and framing.

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
