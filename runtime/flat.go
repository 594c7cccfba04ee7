package runtime

import (
	"encoding/json"
	"slices"
)

// flatSchema is a fast acceptor for the input schemas most tools have: an object of scalar
// properties (string, integer, number, boolean), some required, extra properties allowed or
// not. It answers only "valid": whenever it is not sure — a type mismatch, a missing
// property, a number with a fraction or exponent, an escaped key — the caller runs the full
// jsonschema-go validation, which also writes the error message. So it can make valid calls
// cheaper but never changes an answer (FuzzValidateArgs checks that against the reference).
type flatSchema struct {
	names    []string // property names
	types    []byte   // per property: 's' string, 'i' integer, 'n' number, 'b' boolean
	required []int    // indexes into names
	noExtra  bool     // additionalProperties: false
}

// annotation keywords carry no validation (JSON Schema 2020-12 §9 and "meta-data").
var annotationKeywords = []string{"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}

// compileFlat returns a flatSchema for raw, or nil if raw uses anything else.
func compileFlat(raw json.RawMessage) *flatSchema {
	var s map[string]json.RawMessage
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	f := &flatSchema{}
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

// accepts reports whether args (any bytes) is certainly valid. It allocates nothing.
func (f *flatSchema) accepts(args []byte) bool {
	if len(f.names) > 64 || !json.Valid(args) || mayOverflow(args) {
		return false // mayOverflow: decoding into any would reject the arguments
	}
	var seen uint64
	i := skipSpace(args, 0)
	if i >= len(args) || args[i] != '{' {
		return false
	}
	i = skipSpace(args, i+1)
	for i < len(args) && args[i] != '}' {
		if args[i] == ',' {
			i = skipSpace(args, i+1)
		}
		kEnd, escaped := stringEnd(args, i)
		if escaped {
			return false
		}
		key := args[i+1 : kEnd-1]
		i = skipSpace(args, kEnd)
		i = skipSpace(args, i+1) // ':'
		vStart := i
		i = valueEnd(args, i)
		if i < 0 {
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
			if !scalarMatches(f.types[idx], args[vStart:i]) {
				return false
			}
			seen |= 1 << idx
		}
		i = skipSpace(args, i)
	}
	if skipSpace(args, i+1) != len(args) {
		return false
	}
	for _, r := range f.required {
		if seen&(1<<r) == 0 {
			return false
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

// stringEnd returns the index just past the string starting at b[i] (a '"'), and whether it
// contains an escape.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(b), escaped
}

// valueEnd returns the index just past the JSON value starting at b[i]; b is valid JSON.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := stringEnd(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := stringEnd(b, j)
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// mayOverflow reports whether valid JSON b holds a number that might not fit a float64 —
// one with an exponent, or with 309 or more integer digits — which decoding into any rejects.
func mayOverflow(b []byte) bool {
	inString, escaped, digits := false, false, 0
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString, digits = true, 0
		case c >= '0' && c <= '9':
			if digits++; digits >= 309 {
				return true
			}
		case (c == 'e' || c == 'E') && digits > 0:
			return true
		default:
			digits = 0
		}
	}
	return false
}
