package schema

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// Flat is a fast acceptor for the input schemas most tools have: an object of scalar
// properties (string, integer, number, boolean), some required, extra properties allowed or
// not. It answers only "valid": whenever it is not sure — a type mismatch, a missing
// property, a number with a fraction or exponent, an escaped key — the caller runs the full
// jsonschema-go validation, which also writes the error message. So it can make valid calls
// cheaper but never changes an answer (FuzzValidateArgs checks that against the reference).
type Flat struct {
	names    []string // property names
	types    []byte   // per property: 's' string, 'i' integer, 'n' number, 'b' boolean
	required []int    // indexes into names
	noExtra  bool     // additionalProperties: false
}

// annotation keywords carry no validation (JSON Schema 2020-12 §9 and "meta-data").
var annotationKeywords = []string{"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}

// CompileFlat returns a Flat for raw, or nil if raw uses anything else.
func CompileFlat(raw json.RawMessage) *Flat {
	var s map[string]json.RawMessage
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	f := &Flat{}
	var props map[string]json.RawMessage
	var required []string
	for k, v := range s {
		switch {
		case k == "type":
			if string(v) != `"object"` {
				return nil
			}
		case k == "properties":
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
		case k == "required":
			if json.Unmarshal(v, &required) != nil {
				return nil
			}
		case k == "additionalProperties":
			switch string(v) {
			case "false":
				f.noExtra = true
			case "true":
			default:
				return nil
			}
		case k == "$schema" || slices.Contains(annotationKeywords, k):
		default:
			return nil
		}
	}
	if _, ok := s["type"]; !ok {
		return nil
	}
	for name, p := range props {
		typ := propType(p)
		if typ == 0 {
			return nil
		}
		f.names, f.types = append(f.names, name), append(f.types, typ)
	}
	for _, r := range required {
		i := slices.Index(f.names, r)
		if i < 0 {
			return nil // required but not declared: leave it to the full validator
		}
		f.required = append(f.required, i)
	}
	return f
}

// propType is the type code of a property schema that is a bare scalar type, else 0.
func propType(raw json.RawMessage) byte {
	var p map[string]json.RawMessage
	if json.Unmarshal(raw, &p) != nil {
		return 0
	}
	var typ byte
	for k, v := range p {
		switch {
		case k == "type":
			switch string(v) {
			case `"string"`:
				typ = 's'
			case `"integer"`:
				typ = 'i'
			case `"number"`:
				typ = 'n'
			case `"boolean"`:
				typ = 'b'
			default:
				return 0
			}
		case slices.Contains(annotationKeywords, k):
		default:
			return 0
		}
	}
	return typ
}

// Accepts reports whether args (any bytes) is certainly valid. It allocates nothing and reads
// args once: the JSON grammar (as json.Valid judges it), the schema and the number bounds are
// checked in the same left-to-right pass, and string contents are skipped eight bytes at a
// time. Anything it is unsure of — a number with an exponent or 309 digits in a row (decoding
// into any would reject it), an escaped or non-UTF-8 key, nesting deeper than maxFlatDepth —
// makes it answer false, and the caller runs the full validation.
func (f *Flat) Accepts(args []byte) bool {
	if len(f.names) > 64 {
		return false
	}
	b := args
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	var seen uint64
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return false
			}
			kEnd, escaped := scanString(b, i)
			if kEnd < 0 || escaped {
				return false
			}
			key := b[i+1 : kEnd-1]
			if !asciiOrUTF8(key) {
				return false // decoding would replace bytes; the name may then match
			}
			i = skipSpace(b, kEnd)
			if i >= len(b) || b[i] != ':' {
				return false
			}
			vStart := skipSpace(b, i+1)
			if i = scanValue(b, vStart, 1); i < 0 {
				return false
			}
			idx := -1
			for j, n := range f.names {
				if n == string(key) {
					idx = j
					break
				}
			}
			if idx < 0 {
				if f.noExtra {
					return false
				}
			} else {
				if !scalarMatches(f.types[idx], b[vStart:i]) {
					return false
				}
				seen |= 1 << idx
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return false
		}
	}
	if skipSpace(b, i) != len(b) {
		return false
	}
	for _, r := range f.required {
		if seen&(1<<r) == 0 {
			return false
		}
	}
	return true
}

// maxFlatDepth bounds the nesting scanValue follows; deeper arguments take the full path
// (encoding/json's own limit is 10000).
const maxFlatDepth = 512

// scanValue returns the index just past the JSON value starting at b[i], or -1 if there is
// none there or accepts must not vouch for it (see Accepts). depth counts enclosing
// containers.
func scanValue(b []byte, i, depth int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		end, _ := scanString(b, i)
		return end
	case c == '{' || c == '[':
		if depth >= maxFlatDepth {
			return -1
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == closer {
			return i + 1
		}
		for {
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return -1
				}
				if i, _ = scanString(b, i); i < 0 {
					return -1
				}
				if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
					return -1
				}
				i = skipSpace(b, i+1)
			}
			if i = scanValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case ',':
				i = skipSpace(b, i+1)
			case closer:
				return i + 1
			default:
				return -1
			}
		}
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(b, i)
	}
	return -1
}

func literal(b []byte, i int, lit string) int {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	return -1
}

// scanNumber returns the index just past the number at b[i] (RFC 8259 §6), or -1 if it is not
// one or has an exponent or a run of 309 or more digits (it might not fit a float64).
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	start := i
	i = digits(b, i)
	if i == start || i-start >= 309 || b[start] == '0' && i-start > 1 {
		return -1
	}
	if i < len(b) && b[i] == '.' {
		start = i + 1
		if i = digits(b, start); i == start || i-start >= 309 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		return -1
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// SWAR constants: one in every byte, and the top bit of every byte.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// scanString returns the index just past the JSON string starting at b[i] (a '"') and whether
// it contains an escape, or -1 if it is not a valid JSON string: unterminated, a control
// character, or a bad escape. Like json.Valid, it does not check UTF-8. Runs of plain bytes are
// skipped eight at a time.
func scanString(b []byte, i int) (int, bool) {
	escaped := false
	j := i + 1
	for {
		for len(b)-j >= 8 {
			x := binary.LittleEndian.Uint64(b[j:])
			q, bs := x^(lsb*'"'), x^(lsb*'\\')
			// Exact "some byte is '"', '\\' or < 0x20" tests (a zero byte of q or bs, a byte of
			// x below 0x20); the lowest flagged byte is a true one.
			special := ((q - lsb) &^ q) | ((bs - lsb) &^ bs) | ((x - lsb*0x20) &^ x)
			if special &= msb; special != 0 {
				j += bits.TrailingZeros64(special) / 8
				break
			}
			j += 8
		}
		if j >= len(b) {
			return -1, escaped
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, escaped
		case c < 0x20:
			return -1, escaped
		case c == '\\':
			escaped = true
			if j+1 >= len(b) {
				return -1, escaped
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if len(b)-j < 6 || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
					return -1, escaped
				}
				j += 6
			default:
				return -1, escaped
			}
		default:
			j++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// asciiOrUTF8 reports whether key is valid UTF-8 (fast for ASCII).
func asciiOrUTF8(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 {
			return utf8.Valid(key)
		}
	}
	return true
}

func scalarMatches(typ byte, v []byte) bool {
	switch typ {
	case 's':
		return v[0] == '"'
	case 'b':
		return v[0] == 't' || v[0] == 'f'
	case 'n', 'i':
		if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
			return false
		}
		digits := 0
		for _, c := range v {
			switch {
			case c >= '0' && c <= '9':
				digits++
			case c == '-':
			default:
				return false // fraction or exponent: let the full validator decide
			}
		}
		return digits < 16 // exact in float64, far from overflow
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
