// Package jsonwire reads JSON text (RFC 8259) in place, without decoding it: the members of
// an object and the elements of an array as byte ranges, a key compared with a name, a string
// literal decoded. Every function expects text json.Valid accepts; on other input it returns
// without panicking but its answer means nothing. The stdio transport reads each message's
// envelope with it, and mcpserver a guest's tool result.
package jsonwire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// isWS reports whether c is JSON insignificant whitespace (RFC 8259 §2).
func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// TrimWS removes leading and trailing JSON whitespace.
func TrimWS(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isWS(b[i]) {
		i++
	}
	for j > i && isWS(b[j-1]) {
		j--
	}
	return b[i:j]
}

// Kind classifies a raw JSON value: 0 for absent (empty), '"' string,
// '{' object, '[' array, 'n' null, 'b' boolean, '0' number.
func Kind(v []byte) byte {
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

// ForEachMember calls fn for each member of the JSON object that starts at
// b[0], passing the raw key literal (with quotes) and the offsets of the raw
// value in b. b must be valid JSON.
func ForEachMember(b []byte, fn func(key []byte, vs, ve int)) {
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

// KeyIs reports whether the raw key literal denotes name.
func KeyIs(key []byte, name string) bool {
	if len(key) < 2 {
		return false
	}
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == name
	}
	s, ok := DecodeString(key)
	return ok && s == name
}

// DecodeString decodes a raw JSON string literal.
func DecodeString(raw []byte) (string, bool) {
	if Kind(raw) != '"' || len(raw) < 2 {
		return "", false
	}
	if bytes.Equal(raw, []byte(`"2.0"`)) {
		return "2.0", true
	}
	if PlainString(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// PlainString reports whether the string literal lit (with quotes) is
// reproduced byte for byte when its decoded value is encoded again by
// encoding/json without HTML escaping, as the SDK does: it contains no escape
// sequence, is valid UTF-8 and contains no U+2028/U+2029.
func PlainString(lit []byte) bool {
	inner := lit[1 : len(lit)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return false
	}
	return !bytes.Contains(inner, []byte("\u2028")) && !bytes.Contains(inner, []byte("\u2029"))
}

// ForEachElement calls fn with the offsets of each element of the JSON array that starts at
// b[0] (after whitespace). b must be valid JSON.
func ForEachElement(b []byte, fn func(vs, ve int)) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return
	}
	i++
	for {
		i = skipWS(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
		}
		if i >= len(b) || b[i] == ']' {
			return
		}
		ve := skipValue(b, i)
		if i >= ve {
			return
		}
		fn(i, ve)
		i = ve
	}
}

// DuplicateKey finds the first object, at any depth of the JSON value b, that gives a key
// twice (RFC 8259 §4: names SHOULD be unique; decoders disagree on which value wins). path
// names the repeated member as a dotted path from b (`structuredContent.n`, `content[0].text`;
// the top level's members by their key alone) and key is the key, decoded. Keys are compared
// decoded, so "n" and "\u006e" are the same key. b must be valid JSON; found is false when
// every object's keys are unique. One pass over b; it allocates only for an object of more
// than 16 members, a key with escapes, and the path of a duplicate found.
func DuplicateKey(b []byte) (path, key string, found bool) {
	var segs []string
	if _, found = dupValue(b, skipWS(b, 0), &segs); found {
		return joinPath(segs), segs[0], true
	}
	return "", "", false
}

// joinPath joins path segments (keys, and "[i]" for array elements) given innermost first.
func joinPath(rev []string) string {
	var sb strings.Builder
	for i := len(rev) - 1; i >= 0; i-- {
		s := rev[i]
		if sb.Len() > 0 && !strings.HasPrefix(s, "[") {
			sb.WriteByte('.')
		}
		sb.WriteString(s)
	}
	return sb.String()
}

// dupValue scans the value starting at b[i] and returns the index just past it, or reports
// that it holds a duplicate key, having appended the path segments from the duplicate up to
// b[i] to segs, innermost (the key itself) first.
func dupValue(b []byte, i int, segs *[]string) (end int, found bool) {
	if i >= len(b) {
		return len(b), false
	}
	switch b[i] {
	case '{':
		var small [16][]byte // raw keys of plain spelling, while there are few
		var many map[string]struct{}
		n := 0
		for i++; ; {
			i = skipWS(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipWS(b, i+1)
			}
			if i >= len(b) || b[i] != '"' {
				return i + 1, false // '}'
			}
			ke := skipString(b, i)
			key := b[i:ke]
			if many == nil && n < len(small) && PlainString(key) {
				for _, k := range small[:n] {
					if bytes.Equal(k, key) {
						*segs = append(*segs, string(key[1:len(key)-1]))
						return 0, true
					}
				}
				small[n] = key
				n++
			} else {
				if many == nil {
					many = make(map[string]struct{}, 2*len(small))
					for _, k := range small[:n] {
						many[string(k[1:len(k)-1])] = struct{}{}
					}
				}
				k := decodedKey(key)
				if _, ok := many[k]; ok {
					*segs = append(*segs, k)
					return 0, true
				}
				many[k] = struct{}{}
			}
			i = skipWS(b, ke)
			if i >= len(b) || b[i] != ':' {
				return len(b), false
			}
			if i, found = dupValue(b, skipWS(b, i+1), segs); found {
				*segs = append(*segs, decodedKey(key))
				return 0, true
			}
		}
	case '[':
		for idx := 0; ; idx++ {
			i = skipWS(b, i+1)
			if i >= len(b) || b[i] == ']' {
				return i + 1, false
			}
			if i, found = dupValue(b, i, segs); found {
				*segs = append(*segs, "["+strconv.Itoa(idx)+"]")
				return 0, true
			}
			i = skipWS(b, i)
			if i >= len(b) || b[i] != ',' {
				return i + 1, false // ']'
			}
		}
	}
	return skipValue(b, i), false
}

// decodedKey is a raw key literal's decoded value.
func decodedKey(key []byte) string {
	s, _ := DecodeString(key)
	return s
}

// Compacted reports whether the valid JSON text b has no insignificant whitespace (none outside
// its string literals), so that json.Compact would return it unchanged.
func Compacted(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = skipString(b, i) - 1
		case ' ', '\t', '\n', '\r':
			return false
		}
	}
	return true
}
