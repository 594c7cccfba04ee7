package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
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
	dec := json.NewDecoder(strings.NewReader(in.JSON))
	dec.UseNumber() // keep numbers exactly as written (no float64 rounding of big integers)
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return JSONQueryOut{}, fmt.Errorf("invalid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
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
			return nil, pathErr(p, i, fmt.Sprintf("unexpected %q", p[i]))
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
		dec := json.NewDecoder(strings.NewReader(p[j:]))
		var k string
		if err := dec.Decode(&k); err != nil {
			return Segment{}, 0, pathErr(p, j, "invalid quoted key")
		}
		seg.Key = k
		j += int(dec.InputOffset())
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
			return Segment{}, 0, pathErr(p, j, fmt.Sprintf("invalid index %q (want an integer or a quoted key)", s))
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
	return fmt.Errorf("invalid path %q at offset %d: %s", p, off, msg)
}

// Lookup follows segs from doc (as decoded by encoding/json).
func Lookup(doc any, segs []Segment) (any, error) {
	v := doc
	for i, s := range segs {
		at := FormatPath(segs[:i])
		if s.IsIndex {
			arr, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("path segment %s: %s is %s, not an array", s, at, kind(v))
			}
			idx := s.Index
			if idx < 0 {
				idx += len(arr)
			}
			if idx < 0 || idx >= len(arr) {
				return nil, fmt.Errorf("path segment %s: index out of range at %s (length %d)", s, at, len(arr))
			}
			v = arr[idx]
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("path segment %s: %s is %s, not an object", s, at, kind(v))
		}
		next, ok := obj[s.Key]
		if !ok {
			return nil, fmt.Errorf("path segment %s: key %q not found at %s", s, s.Key, at)
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
	return fmt.Sprintf("%T", v)
}
