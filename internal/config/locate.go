package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpwasm/mcpwasm/internal/suggest"
)

// Where a schema error is: the validator (jsonschema-go) names the schema location that
// failed, never the value, so "instances": "4" in the second guest read only `"instances":
// type: …`. schemaError finds the value by walking the document beside the schema, and names
// its line, column and path as a syntax error does: `line 4 column 18:
// guests[1].limits.instances: want integer, got string`.

// positions is where each value and key of a JSON document starts, by path
// ("guests[1].limits.instances"), and each object's keys in the file's order.
type positions struct {
	data  []byte
	value map[string]int64    // path → offset of the value's first byte
	key   map[string]int64    // path → offset of the key's opening quote
	keys  map[string][]string // object path → its keys in the file's order
}

// childPath is the path of member key of the object at path: .key, or ["key"] for a key
// that is not a plain name.
func childPath(path, key string) string {
	if plainKey.MatchString(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return fmt.Sprintf("%s[%q]", path, key)
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// positionsOf indexes data, which must be valid JSON without duplicate keys (parse checked
// both before validating).
func positionsOf(data []byte) *positions {
	p := &positions{data: data, value: map[string]int64{}, key: map[string]int64{}, keys: map[string][]string{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	_ = p.walk(dec, "")
	return p
}

// nextToken is the offset of the next token at or after off: past white space, ':' and ','
// (a Decoder's InputOffset stops before them).
func nextToken(data []byte, off int64) int64 {
	for off < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n:,"), data[off]) >= 0 {
		off++
	}
	return off
}

func (p *positions) walk(dec *json.Decoder, path string) error {
	p.value[path] = nextToken(p.data, dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			at := nextToken(p.data, dec.InputOffset())
			k, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := k.(string)
			child := childPath(path, key)
			p.keys[path] = append(p.keys[path], key)
			p.key[child] = at
			if err := p.walk(dec, child); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := p.walk(dec, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}

// lineColumn is "line L column C" of offset off in data (both from 1; the column counts
// bytes), as syntax errors name a place.
func lineColumn(data []byte, off int64) string {
	before := data[:min(off, int64(len(data)))]
	return fmt.Sprintf("line %d column %d", 1+bytes.Count(before, []byte("\n")), off-int64(bytes.LastIndexByte(before, '\n')))
}

// locator finds the value a schema error is about: validate checks a value against the
// schema at a JSON pointer into schema.json.
type locator struct {
	pos  *positions
	root *jsonschema.Schema              // a fresh copy of schema.json, wrapped below
	memo map[string]*jsonschema.Resolved // by pointer
}

// validate checks v against the schema at ptr ("" the whole schema; "/$defs/guest"), through
// a wrapper whose $ref reaches it, so its own $refs resolve as in the file.
func (l *locator) validate(ptr string, v any) error {
	r, ok := l.memo[ptr]
	if !ok {
		w := &jsonschema.Schema{Schema: l.root.Schema, Ref: "#/$defs/root" + ptr, Defs: map[string]*jsonschema.Schema{"root": l.root}}
		var err error
		if r, err = w.Resolve(nil); err != nil {
			return nil // a pointer the schema cannot resolve: treat as valid, the caller reports what it has
		}
		l.memo[ptr] = r
	}
	return r.Validate(v)
}

// schemaAt returns the schema at ptr and ptr with $refs followed.
func (l *locator) schemaAt(ptr string) (*jsonschema.Schema, string) {
	for range 8 { // a ref to a ref; schema.json has none
		s := l.lookup(ptr)
		if s == nil || s.Ref == "" {
			return s, ptr
		}
		ptr = strings.TrimPrefix(s.Ref, "#")
	}
	return nil, ptr
}

// lookup follows a JSON pointer made of properties/NAME, $defs/NAME, items and
// additionalProperties steps.
func (l *locator) lookup(ptr string) *jsonschema.Schema {
	s := l.root
	steps := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i := 0; i < len(steps) && s != nil && ptr != ""; i++ {
		switch steps[i] {
		case "items":
			s = s.Items
		case "additionalProperties":
			s = s.AdditionalProperties
		case "properties", "$defs":
			if i+1 == len(steps) {
				return nil
			}
			m := s.Properties
			if steps[i] == "$defs" {
				m = s.Defs
			}
			i++
			s = m[steps[i]]
		default:
			return nil
		}
	}
	return s
}

// find returns the path of the deepest value under path that fails on its own, and why.
// v is the value at path and ptr its schema's pointer; the value is known to fail.
func (l *locator) find(v any, ptr, path string) (string, error) {
	err := l.validate(ptr, v)
	s, ptr := l.schemaAt(ptr)
	if s == nil {
		return path, err
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range l.pos.keys[path] {
			child := ""
			switch {
			case s.Properties[k] != nil:
				child = ptr + "/properties/" + k
			case isFalse(s.AdditionalProperties):
				return childPath(path, k), unknownKeyError{key: k, known: slices.Sorted(mapKeys(s.Properties))}
			case s.AdditionalProperties != nil:
				child = ptr + "/additionalProperties"
			default:
				continue
			}
			if l.validate(child, v[k]) != nil {
				return l.find(v[k], child, childPath(path, k))
			}
		}
	case []any:
		if s.Items != nil {
			for i, e := range v {
				if l.validate(ptr+"/items", e) != nil {
					return l.find(e, ptr+"/items", fmt.Sprintf("%s[%d]", path, i))
				}
			}
		}
	}
	return path, err
}

func mapKeys(m map[string]*jsonschema.Schema) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// isFalse reports whether s is the schema false (it validates nothing).
func isFalse(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

// unknownKeyError is a key the schema does not have, with the known keys beside it.
type unknownKeyError struct {
	key   string
	known []string
}

func (e unknownKeyError) Error() string { return fmt.Sprintf("unknown key %q", e.key) }

// schemaError names the value that failed validation: its line and column, its path, and why
// in the file's words (err is the validator's own error, for when the walk finds nothing).
func schemaError(data []byte, v any, err error) error {
	l := &locator{pos: positionsOf(data), memo: map[string]*jsonschema.Resolved{}}
	l.root = new(jsonschema.Schema)
	if json.Unmarshal(Schema, l.root) != nil {
		return fmt.Errorf("config schema: %w", err)
	}
	path, why := l.find(v, "", "")
	if why == nil {
		why = err
	}
	if uk, ok := why.(unknownKeyError); ok {
		where := "at the top level"
		if parent := strings.TrimSuffix(path, childSuffix(path)); parent != "" {
			where = "in " + parent
		}
		msg := fmt.Sprintf("%s: unknown key %q %s", lineColumn(data, l.pos.key[path]), uk.key, where)
		if near := suggest.Nearest(uk.key, uk.known, 2); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return fmt.Errorf("%s", msg)
	}
	name := path
	if name == "" {
		name = "the top level"
	}
	return fmt.Errorf("%s: %s: %s", lineColumn(data, l.pos.value[path]), name, reason(why))
}

// childSuffix is the last step of path: ".key", "[\"key\"]" or "key" at the top.
func childSuffix(path string) string {
	i := max(strings.LastIndexByte(path, '.'), strings.LastIndex(path, `["`))
	if i < 0 {
		return path
	}
	return path[i:]
}

var (
	validatingRE = regexp.MustCompile(`^(?:validating \S+: )+`)
	typeRE       = regexp.MustCompile(`^type: .* has type "(\w+)", want "(\w+)"$`)
	requiredRE   = regexp.MustCompile(`^required: missing properties: \[(.*)\]$`)
	enumRE       = regexp.MustCompile(`^enum: (.*) does not equal any of: \[(.*)\]$`)
	patternRE    = regexp.MustCompile(`^pattern: (".*") does not match regular expression (".*")$`)
	boundRE      = regexp.MustCompile(`^(minimum|maximum): (-?\d+)(?:/1)? is (?:less|greater) than (-?\d+)(?:\.0+)?$`)
)

// reason says in the file's words why a value failed: the validator's last message, with its
// chain of schema locations cut and the common cases reworded.
func reason(err error) string {
	msg := validatingRE.ReplaceAllString(err.Error(), "")
	if m := typeRE.FindStringSubmatch(msg); m != nil {
		return "want " + m[2] + ", got " + m[1]
	}
	if m := requiredRE.FindStringSubmatch(msg); m != nil {
		return "missing " + strings.ReplaceAll(m[1], `" "`, `", "`)
	}
	if m := enumRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("want one of %s, got %q", strings.ReplaceAll(m[2], " ", ", "), m[1])
	}
	if m := patternRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s does not match the pattern %s", m[1], m[2])
	}
	if m := boundRE.FindStringSubmatch(msg); m != nil {
		bound := "at least"
		if m[1] == "maximum" {
			bound = "at most"
		}
		return fmt.Sprintf("want %s %s, got %s", bound, m[3], m[2])
	}
	return msg
}
