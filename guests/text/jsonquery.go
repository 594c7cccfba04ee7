package main

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi/guest"
)

type JSONQueryIn struct {
	JSON string `json:"json" jsonschema:"a JSON document"`
	Path string `json:"path" jsonschema:"path into the document: $ (or empty) is the root; .key or a bare leading key selects an object member; [n] an array element (negative n counts from the end); [\"key\"] or ['key'] a member whose name has . [ ] or spaces; e.g. a.b[0].c or $[\"x.y\"][-1]"`
}

type JSONQueryOut struct {
	Value any `json:"value" jsonschema:"the JSON value at path"`
}

func JSONQuery(_ context.Context, in JSONQueryIn) (JSONQueryOut, error) {
	segs, err := ParsePath(in.Path)
	if err != nil {
		return JSONQueryOut{}, err
	}
	// As a json.Decoder with UseNumber reads it: numbers stay exactly as written (no float64
	// rounding of big integers), and the errors are encoding/json's.
	doc, n, err := guest.DecodeJSONValue([]byte(in.JSON))
	if err != nil {
		return JSONQueryOut{}, errors.New("invalid JSON: " + err.Error())
	}
	if strings.TrimLeft(in.JSON[n:], " \t\r\n") != "" {
		return JSONQueryOut{}, errors.New("invalid JSON: data after the top-level value")
	}
	v, err := Lookup(doc, segs)
	if err != nil {
		return JSONQueryOut{}, err
	}
	return JSONQueryOut{Value: v}, nil
}

// Segment is one step of a path: an object key, or an array index when IsIndex.
type Segment struct {
	Key     string
	Index   int
	IsIndex bool
}

func (s Segment) String() string {
	if s.IsIndex {
		return "[" + strconv.Itoa(s.Index) + "]"
	}
	if isBareKey(s.Key) {
		return "." + s.Key
	}
	return "[" + strconv.Quote(s.Key) + "]"
}

// isBareKey reports whether k can be written as .k in a path.
func isBareKey(k string) bool {
	if k == "" || k == "$" {
		return false
	}
	return !strings.ContainsAny(k, ".[]\"' \t\r\n")
}

// FormatPath writes segs in canonical form, starting with $.
func FormatPath(segs []Segment) string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range segs {
		b.WriteString(s.String())
	}
	return b.String()
}

// ParsePath parses a path such as `a.b[0].c`, `$.a["x.y"][-1]` or `$`.
func ParsePath(p string) ([]Segment, error) {
	segs := []Segment{}
	i := 0
	if strings.HasPrefix(p, "$") {
		i = 1
	} else if p != "" && p[0] != '[' && p[0] != '.' {
		// A leading bare key: "a.b" means "$.a.b".
		k, n := bareKey(p)
		if k == "" {
			return nil, pathErr(p, 0, "expected a key")
		}
		segs = append(segs, Segment{Key: k})
		i = n
	}
	for i < len(p) {
		switch p[i] {
		case '.':
			k, n := bareKey(p[i+1:])
			if k == "" {
				return nil, pathErr(p, i+1, "expected a key after \".\"")
			}
			segs = append(segs, Segment{Key: k})
			i += 1 + n
		case '[':
			seg, n, err := bracket(p, i)
			if err != nil {
				return nil, err
			}
			segs = append(segs, seg)
			i += n
		default:
			return nil, pathErr(p, i, "unexpected "+strconv.QuoteRune(rune(p[i])))
		}
	}
	return segs, nil
}

// bareKey returns the key at the start of s (up to . or [) and its length.
func bareKey(s string) (string, int) {
	n := strings.IndexAny(s, ".[]")
	if n < 0 {
		n = len(s)
	}
	return s[:n], n
}

// bracket parses the [...] segment starting at p[i] == '['; it returns its length.
func bracket(p string, i int) (Segment, int, error) {
	j := i + 1
	if j >= len(p) {
		return Segment{}, 0, pathErr(p, j, "unterminated [")
	}
	var seg Segment
	switch q := p[j]; q {
	case '"':
		// A JSON string literal, escapes included.
		v, n, err := guest.DecodeJSONValue([]byte(p[j:]))
		k, ok := v.(string)
		if err != nil || !ok {
			return Segment{}, 0, pathErr(p, j, "invalid quoted key")
		}
		seg.Key = k
		j += n
	case '\'':
		end := strings.IndexByte(p[j+1:], '\'')
		if end < 0 {
			return Segment{}, 0, pathErr(p, j, "unterminated quoted key")
		}
		seg.Key = p[j+1 : j+1+end]
		j += end + 2
	default:
		end := strings.IndexByte(p[j:], ']')
		if end < 0 {
			return Segment{}, 0, pathErr(p, i, "unterminated [")
		}
		s := p[j : j+end]
		n, err := strconv.Atoi(s)
		if err != nil || strings.HasPrefix(s, "+") || s != strings.TrimSpace(s) {
			return Segment{}, 0, pathErr(p, j, "invalid index "+strconv.Quote(s)+" (want an integer or a quoted key)")
		}
		seg.Index, seg.IsIndex = n, true
		j += end
	}
	if j >= len(p) || p[j] != ']' {
		return Segment{}, 0, pathErr(p, j, "expected \"]\"")
	}
	return seg, j + 1 - i, nil
}

func pathErr(p string, off int, msg string) error {
	return errors.New("invalid path " + strconv.Quote(p) + " at offset " + strconv.Itoa(off) + ": " + msg)
}

// Lookup follows segs from doc (as decoded by encoding/json).
func Lookup(doc any, segs []Segment) (any, error) {
	v := doc
	for i, s := range segs {
		at := FormatPath(segs[:i])
		if s.IsIndex {
			arr, ok := v.([]any)
			if !ok {
				return nil, errors.New("path segment " + s.String() + ": " + at + " is " + kind(v) + ", not an array")
			}
			idx := s.Index
			if idx < 0 {
				idx += len(arr)
			}
			if idx < 0 || idx >= len(arr) {
				return nil, errors.New("path segment " + s.String() + ": index out of range at " + at + " (length " + strconv.Itoa(len(arr)) + ")")
			}
			v = arr[idx]
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, errors.New("path segment " + s.String() + ": " + at + " is " + kind(v) + ", not an object")
		}
		next, ok := obj[s.Key]
		if !ok {
			return nil, errors.New("path segment " + s.String() + ": key " + strconv.Quote(s.Key) + " not found at " + at)
		}
		v = next
	}
	return v, nil
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return reflect.TypeOf(v).String() // as %T
}
