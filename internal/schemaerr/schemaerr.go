// Package schemaerr turns a JSON Schema validation error (github.com/google/jsonschema-go)
// into the one a user reads: the line, column and path of the value at fault, and why, in
// the file's words — `line 4 column 18: guests[1].limits.instances: want integer, got
// string`. The validator names only the schema location that failed, never the value (so
// `"instances": "4"` in the second guest read `"instances": type: 4 has type "string", want
// "integer"`); Schema.Validate finds the value by walking the document beside the schema.
//
// Paths are dotted keys and [index]es from the top ("plugins.time.runtime_config",
// "guests[0]"); a key that is not a plain name is written ["key"]. Lines and columns count
// from 1; a column counts bytes in JSON and characters in YAML (as yaml.v3 does). Config
// (mcpwasm's JSON) and hypermcp (hyper-mcp's JSON or YAML) use it.
package schemaerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/mcpwasm/mcpwasm/internal/suggest"
)

// Pos is a place in a file: line and column, both from 1.
type Pos struct{ Line, Column int }

// String is "line L column C", as a syntax error names a place.
func (p Pos) String() string { return fmt.Sprintf("line %d column %d", p.Line, p.Column) }

// Doc is where each value and key of a document is, by path, and each object's keys in the
// file's order. The zero Doc knows no positions: errors then name the path alone.
type Doc struct {
	value map[string]Pos
	key   map[string]Pos // the key of the member at the path
	keys  map[string][]string
}

func newDoc() *Doc {
	return &Doc{value: map[string]Pos{}, key: map[string]Pos{}, keys: map[string][]string{}}
}

// Errorf is an error about the value at path: "line L column C: PATH: " (the position when
// d has it) and the formatted message; %w wraps as in fmt.Errorf.
func (d *Doc) Errorf(path, format string, args ...any) error {
	prefix := path + ": "
	if p, ok := d.value[path]; ok {
		prefix = p.String() + ": " + prefix
	}
	return fmt.Errorf("%s"+format, append([]any{prefix}, args...)...)
}

// Child is the path of member key of the object at path.
func Child(path, key string) string {
	if plainKey.MatchString(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return fmt.Sprintf("%s[%q]", path, key)
}

// indexPath is the path of element i of the array at path.
func indexPath(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// NextToken is the offset of the next JSON token at or after off: past white space, ':'
// and ',' (a json.Decoder's InputOffset stops before them).
func NextToken(data []byte, off int64) int64 {
	for off < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n:,"), data[off]) >= 0 {
		off++
	}
	return off
}

// Offset is the position of byte offset off in data.
func Offset(data []byte, off int64) Pos {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	return Pos{1 + bytes.Count(before, []byte("\n")), int(off) - bytes.LastIndexByte(before, '\n')}
}

// Syntax names the line and column of a JSON decoding error in data: err with "line L
// column C: " before it when err holds a *json.SyntaxError or a *json.UnmarshalTypeError
// (whose offsets are just past the byte at fault), else nil.
func Syntax(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s: %w", Offset(data, se.Offset-1), err)
	case errors.As(err, &te):
		return fmt.Errorf("%s: %w", Offset(data, te.Offset-1), err)
	}
	return nil
}

// JSON indexes a JSON document. data must be valid JSON (a document it cannot read is
// indexed as far as it goes).
func JSON(data []byte) *Doc {
	d := newDoc()
	lines := []int64{} // offsets of '\n'
	for i, b := range data {
		if b == '\n' {
			lines = append(lines, int64(i))
		}
	}
	pos := func(off int64) Pos {
		n := sort.Search(len(lines), func(i int) bool { return lines[i] >= off })
		start := int64(-1)
		if n > 0 {
			start = lines[n-1]
		}
		return Pos{n + 1, int(off - start)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func(path string) error
	walk = func(path string) error {
		d.value[path] = pos(NextToken(data, dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				at := pos(NextToken(data, dec.InputOffset()))
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				child := Child(path, key)
				d.keys[path] = append(d.keys[path], key)
				d.key[child] = at
				if err := walk(child); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if err := walk(indexPath(path, i)); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		}
		return err
	}
	_ = walk("")
	return d
}

// YAML indexes a YAML document (its first, as sigs.k8s.io/yaml reads it).
func YAML(data []byte) (*Doc, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	d := newDoc()
	var walk func(n *yaml.Node, path string, depth int)
	walk = func(n *yaml.Node, path string, depth int) {
		if n.Kind == yaml.AliasNode && n.Alias != nil && depth < 32 {
			d.value[path] = Pos{n.Line, n.Column}
			walk(n.Alias, path, depth+1)
			return
		}
		if _, ok := d.value[path]; !ok {
			d.value[path] = Pos{n.Line, n.Column}
		}
		switch n.Kind {
		case yaml.DocumentNode:
			if len(n.Content) > 0 {
				walk(n.Content[0], path, depth)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				child := Child(path, k.Value)
				d.keys[path] = append(d.keys[path], k.Value)
				d.key[child] = Pos{k.Line, k.Column}
				walk(n.Content[i+1], child, depth)
			}
		case yaml.SequenceNode:
			for i, e := range n.Content {
				walk(e, indexPath(path, i), depth)
			}
		}
	}
	walk(&root, "", 0)
	return d, nil
}

// Schema is a JSON Schema (draft 2020-12) whose errors name the value at fault. It is
// resolved on first use, so a program that never validates never pays for it.
type Schema struct {
	text     []byte
	resolved func() *jsonschema.Resolved
}

// New returns the schema in text; name (a file name) is for the panic of a text that is not
// a valid schema, on first use: the schema is the program's own.
func New(name string, text []byte) *Schema {
	return &Schema{text: text, resolved: sync.OnceValue(func() *jsonschema.Resolved {
		var s jsonschema.Schema
		if err := json.Unmarshal(text, &s); err != nil {
			panic(name + ": " + err.Error())
		}
		r, err := s.Resolve(nil)
		if err != nil {
			panic(name + ": " + err.Error())
		}
		return r
	})}
}

// Validate checks v (a document as encoding/json decodes it) and, if it fails, names the
// value at fault: its position in the Doc that doc returns (called only then), its path, and
// why.
func (s *Schema) Validate(v any, doc func() *Doc) error {
	err := s.resolved().Validate(v)
	if err == nil {
		return nil
	}
	return explain(s.text, doc(), v, err)
}

// explain names the value that failed validation against schema (the JSON Schema text that
// err came from). When the walk finds nothing better, err's own last message.
func explain(schema []byte, d *Doc, v any, err error) error {
	l := &locator{doc: d, memo: map[string]*jsonschema.Resolved{}}
	l.root = new(jsonschema.Schema)
	if json.Unmarshal(schema, l.root) != nil {
		return err
	}
	if l.root.ID == "" {
		// The wrapper (validate) reaches the root through $defs; with an $id of its own the
		// root's "#/…" refs still resolve within it.
		l.root.ID = "https://schemaerr.invalid/root.json"
	}
	path, why := l.find(v, "", "")
	if why == nil {
		why = err
	}
	if uk, ok := why.(unknownKey); ok {
		where := "at the top level"
		if uk.parent != "" {
			where = "in " + uk.parent
		}
		msg := fmt.Sprintf("unknown key %q %s", uk.key, where)
		if near := suggest.Nearest(uk.key, uk.known, 2); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return placed(d.key, path, msg)
	}
	name := path
	if name == "" {
		name = "the top level"
	}
	return placed(d.value, path, name+": "+reason(why))
}

// placed prefixes msg with the position of path, when known.
func placed(at map[string]Pos, path, msg string) error {
	if p, ok := at[path]; ok {
		return fmt.Errorf("%s: %s", p, msg)
	}
	return fmt.Errorf("%s", msg)
}

// locator finds the value a schema error is about.
type locator struct {
	doc  *Doc
	root *jsonschema.Schema              // a fresh copy of the schema, wrapped by validate
	memo map[string]*jsonschema.Resolved // by pointer
}

// validate checks v against the schema at the JSON pointer ptr ("" the whole schema,
// "/$defs/guest"), through a wrapper whose $ref reaches it so its own $refs resolve as in
// the file.
func (l *locator) validate(ptr string, v any) error {
	r, ok := l.memo[ptr]
	if !ok {
		w := &jsonschema.Schema{Schema: l.root.Schema, Ref: "#/$defs/root" + ptr, Defs: map[string]*jsonschema.Schema{"root": l.root}}
		var err error
		if r, err = w.Resolve(nil); err != nil {
			return nil // not a place the walk can check: the caller keeps what it has
		}
		l.memo[ptr] = r
	}
	return r.Validate(v)
}

// schemaAt returns the schema at ptr and ptr with $refs followed.
func (l *locator) schemaAt(ptr string) (*jsonschema.Schema, string) {
	for range 8 {
		s := l.lookup(ptr)
		if s == nil || s.Ref == "" {
			return s, ptr
		}
		ptr = strings.TrimPrefix(s.Ref, "#")
	}
	return nil, ptr
}

// lookup follows a JSON pointer of properties/NAME, $defs/NAME, items and
// additionalProperties steps.
func (l *locator) lookup(ptr string) *jsonschema.Schema {
	if ptr == "" {
		return l.root
	}
	s := l.root
	steps := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i := 0; i < len(steps) && s != nil; i++ {
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

// find returns the path of the deepest value under path that fails on its own, and why:
// the first in the file's order. v is the value at path, ptr its schema's pointer.
func (l *locator) find(v any, ptr, path string) (string, error) {
	err := l.validate(ptr, v)
	s, ptr := l.schemaAt(ptr)
	if s == nil || err == nil {
		return path, err
	}
	switch v := v.(type) {
	case map[string]any:
		keys := l.doc.keys[path]
		if len(keys) == 0 { // a document the index does not cover: any order
			keys = slices.Sorted(func(yield func(string) bool) {
				for k := range v {
					if !yield(k) {
						return
					}
				}
			})
		}
		for _, k := range keys {
			child := ""
			switch {
			case s.Properties[k] != nil:
				child = ptr + "/properties/" + k
			case isFalse(s.AdditionalProperties):
				known := make([]string, 0, len(s.Properties))
				for p := range s.Properties {
					known = append(known, p)
				}
				slices.Sort(known)
				return Child(path, k), unknownKey{k, path, known}
			case s.AdditionalProperties != nil:
				child = ptr + "/additionalProperties"
			default:
				continue
			}
			if l.validate(child, v[k]) != nil {
				return l.find(v[k], child, Child(path, k))
			}
		}
	case []any:
		if s.Items != nil {
			for i, e := range v {
				if l.validate(ptr+"/items", e) != nil {
					return l.find(e, ptr+"/items", indexPath(path, i))
				}
			}
		}
	}
	return path, err
}

// isFalse reports whether s is the schema false (it validates nothing).
func isFalse(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

// unknownKey is a key the schema does not have, with the keys it has.
type unknownKey struct {
	key, parent string
	known       []string
}

func (e unknownKey) Error() string { return fmt.Sprintf("unknown key %q", e.key) }

var (
	validatingRE = regexp.MustCompile(`^(?:validating \S+: )+`)
	typeRE       = regexp.MustCompile(`^type: .* has type "(\w+)", want "(\w+)"$`)
	typesRE      = regexp.MustCompile(`^type: .* has type "(\w+)", want one of "(.*)"$`)
	requiredRE   = regexp.MustCompile(`^required: missing properties: \[(.*)\]$`)
	enumRE       = regexp.MustCompile(`^enum: (.*) does not equal any of: \[(.*)\]$`)
	patternRE    = regexp.MustCompile(`^pattern: (".*") does not match regular expression (".*")$`)
	boundRE      = regexp.MustCompile(`^(minimum|maximum): (-?\d+)(?:/1)? is (?:less|greater) than (-?\d+)(?:\.0+)?$`)
)

// reason says why a value failed: the validator's last message with its chain of schema
// locations cut, and the common cases reworded.
func reason(err error) string {
	msg := validatingRE.ReplaceAllString(err.Error(), "")
	if m := typeRE.FindStringSubmatch(msg); m != nil {
		return "want " + m[2] + ", got " + m[1]
	}
	if m := typesRE.FindStringSubmatch(msg); m != nil {
		return "want " + strings.ReplaceAll(m[2], ", ", " or ") + ", got " + m[1]
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
