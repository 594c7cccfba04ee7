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
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
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
// d has it) and the formatted message; %w wraps as in fmt.Errorf. It is an *Error.
func (d *Doc) Errorf(path, format string, args ...any) error {
	prefix := path + ": "
	p, ok := d.value[path]
	if ok {
		prefix = p.String() + ": " + prefix
	}
	return &Error{Pos: p, Path: path, Err: fmt.Errorf("%s"+format, append([]any{prefix}, args...)...)}
}

// ValueAt is the path of the value that starts last at or before p: for a position inside a
// number, string or literal, that value's path. ok is false when d knows no value there.
func (d *Doc) ValueAt(p Pos) (path string, ok bool) {
	var best Pos
	for at, v := range d.value {
		if !v.after(p) && (!ok || v.after(best) || v == best && len(at) > len(path)) {
			path, best, ok = at, v, true
		}
	}
	return path, ok
}

// after reports whether p comes after q in the file.
func (p Pos) after(q Pos) bool {
	return p.Line > q.Line || p.Line == q.Line && p.Column > q.Column
}

// Error is an error about one value of a document: Err's text names the place and the path
// ("line 3 column 28: guests[0].limits.instances: want integer, got string"); Pos is that
// place (zero when the Doc did not know it) and Path the value's path ("" the top level;
// for an unknown or duplicate key, the key's member).
type Error struct {
	Pos  Pos
	Path string
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// List is several errors found at once, one per line: about one document, in the file's
// order (see Sort), or another set a command reports together (mcpwasm's tool name clashes
// among a config's guests). One error is answered as itself, not as a List of one.
type List []error

// Error is the errors' texts, one per line.
func (l List) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the errors (errors.Is and errors.As look into each).
func (l List) Unwrap() []error { return l }

// Sort orders errs by their place in the file (each one's *Error.Pos, found with
// errors.As), stably; an error without a place goes after those with one.
func Sort(errs []error) {
	pos := func(e error) Pos {
		var se *Error
		if errors.As(e, &se) {
			return se.Pos
		}
		return Pos{}
	}
	slices.SortStableFunc(errs, func(a, b error) int { return comparePos(pos(a), pos(b)) })
}

// comparePos orders places in the file's order; the zero Pos (no place) after all others.
func comparePos(a, b Pos) int {
	switch {
	case a == b:
		return 0
	case a.Line == 0:
		return 1
	case b.Line == 0:
		return -1
	case a.after(b):
		return 1
	}
	return -1
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
	l := newLocator(schema, d)
	if l == nil {
		return err
	}
	path, why := l.find(v, "", "")
	if why == nil {
		why = err
	}
	return l.fault(path, why)
}

// ValidateAll is Validate naming every value at fault, each once, in the file's order: an
// unknown key, a value of the wrong type, a missing member. Nil when v is valid; doc is
// called only then. A value is at fault for what it breaks itself — its children's faults are
// theirs: an object with an invalid member and without a required one is two errors, one
// about the member and one "missing" the other (a required member that is present but
// invalid is not also called missing). Each error is an *Error.
func (s *Schema) ValidateAll(v any, doc func() *Doc) []*Error {
	err := s.resolved().Validate(v)
	if err == nil {
		return nil
	}
	d := doc()
	l := newLocator(s.text, d)
	if l == nil {
		return []*Error{{Path: "", Err: err}}
	}
	var faults []*Error
	l.findAll(v, "", "", func(path string, why error) {
		faults = append(faults, l.fault(path, why))
	})
	if len(faults) == 0 { // the walk found nothing: the validator's own words
		faults = append(faults, l.fault("", err))
	}
	slices.SortStableFunc(faults, func(a, b *Error) int { return comparePos(a.Pos, b.Pos) })
	return faults
}

// newLocator is a locator of the schema text in d; nil if the text is not a schema.
func newLocator(schema []byte, d *Doc) *locator {
	l := &locator{doc: d, memo: map[string]*jsonschema.Resolved{}}
	l.root = new(jsonschema.Schema)
	if json.Unmarshal(schema, l.root) != nil {
		return nil
	}
	if l.root.ID == "" {
		// The wrapper (validate) reaches the root through $defs; with an $id of its own the
		// root's "#/…" refs still resolve within it.
		l.root.ID = "https://schemaerr.invalid/root.json"
	}
	return l
}

// fault is the error about the value at path: its place, its path, and why in words.
func (l *locator) fault(path string, why error) *Error {
	d := l.doc
	if uk, ok := why.(unknownKey); ok {
		where := "at the top level"
		if uk.parent != "" {
			where = "in " + uk.parent
		}
		msg := fmt.Sprintf("unknown key %q %s", uk.key, where)
		if near := withUnit(uk.key, uk.known); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		} else if near := suggest.Nearest(uk.key, uk.known, 2); near != "" {
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

// withUnit is the known key that is key with a unit suffix — _ms, _mb or _bytes: "timeout"
// → "timeout_ms", "memory" → "memory_mb" — too far from key for suggest.Nearest; "" when
// none is.
func withUnit(key string, known []string) string {
	for _, k := range known {
		for _, unit := range []string{"_ms", "_mb", "_bytes"} {
			if k == key+unit {
				return k
			}
		}
	}
	return ""
}

// placed prefixes msg with the position of path, when known.
func placed(at map[string]Pos, path, msg string) *Error {
	if p, ok := at[path]; ok {
		return &Error{Pos: p, Path: path, Err: fmt.Errorf("%s: %s", p, msg)}
	}
	return &Error{Path: path, Err: errors.New(msg)}
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

// findAll calls fault for each value under path (v, whose schema is at ptr) that fails on
// its own: an unknown key, a member or element that fails (recursively), and v itself when it
// still fails without its faulty members — in the walk's order (the file's, by key).
func (l *locator) findAll(v any, ptr, path string, fault func(path string, why error)) {
	err := l.validate(ptr, v)
	if err == nil {
		return
	}
	s, ptr := l.schemaAt(ptr)
	if s == nil {
		fault(path, err)
		return
	}
	own := err
	switch v := v.(type) {
	case map[string]any:
		keys := l.doc.keys[path]
		if len(keys) == 0 {
			keys = slices.Sorted(maps.Keys(v))
		}
		faulty := map[string]bool{}
		for _, k := range keys {
			if faulty[k] { // a duplicate key: its value is told once
				continue
			}
			child := ""
			switch {
			case s.Properties[k] != nil:
				child = ptr + "/properties/" + k
			case isFalse(s.AdditionalProperties):
				known := slices.Sorted(maps.Keys(s.Properties))
				faulty[k] = true
				fault(Child(path, k), unknownKey{k, path, known})
				continue
			case s.AdditionalProperties != nil:
				child = ptr + "/additionalProperties"
			default:
				continue
			}
			if l.validate(child, v[k]) != nil {
				faulty[k] = true
				l.findAll(v[k], child, Child(path, k), fault)
			}
		}
		if len(faulty) > 0 {
			// What is wrong with the object itself, its faulty members left out: a member that
			// is required is not missing, it is wrong (and told so).
			rest := maps.Clone(v)
			for k := range faulty {
				delete(rest, k)
			}
			own = l.validate(ptr, rest)
			if own != nil {
				own = notMissing(own, faulty)
			}
		}
	case []any:
		if s.Items != nil {
			bad := false
			for i, e := range v {
				if l.validate(ptr+"/items", e) != nil {
					bad = true
					l.findAll(e, ptr+"/items", indexPath(path, i), fault)
				}
			}
			if bad {
				own = nil // the array's own bounds count elements, not what they are
			}
		}
	}
	if own != nil {
		fault(path, own)
	}
}

// notMissing is err, a validation error, without the required members in present; nil if
// they were all it was about.
func notMissing(err error, present map[string]bool) error {
	m := requiredRE.FindStringSubmatch(validatingRE.ReplaceAllString(err.Error(), ""))
	if m == nil {
		return err
	}
	var missing []string
	for _, q := range strings.Fields(m[1]) {
		if name, uerr := strconv.Unquote(q); uerr != nil || !present[name] {
			missing = append(missing, q)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("required: missing properties: [%s]", strings.Join(missing, " "))
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
