package schemaerr

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

const testSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
    "tags": {"type": "object", "additionalProperties": {"type": "string"}}
  },
  "$defs": {
    "item": {"type": "object", "required": ["id"], "additionalProperties": false,
             "properties": {"id": {"type": "integer", "minimum": 1}, "kind": {"enum": ["a", "b"]}}}
  }
}`

func check(t *testing.T, doc *Doc, jsonText string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(jsonText), &v); err != nil {
		t.Fatal(err)
	}
	err := New("test schema", []byte(testSchema)).Validate(v, func() *Doc { return doc })
	if err == nil {
		t.Fatalf("%s: valid", jsonText)
	}
	return err.Error()
}

// The value at fault is the first in the file's order, found under an array and a map.
func TestExplainJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\"items\": [{\"id\": 1},\n  {\"id\": \"2\"}]}", `line 2 column 10: items[1].id: want integer, got string`},
		{`{"items": [{"id": 0}]}`, `line 1 column 19: items[0].id: want at least 1, got 0`},
		{`{"items": [{"id": 1, "kind": "c"}]}`, `line 1 column 30: items[0].kind: want one of a, b, got "c"`},
		{`{"items": [{"kind": "a"}]}`, `line 1 column 12: items[0]: missing "id"`},
		{`{"items": [{"id": 1, "idd": 2}]}`, `line 1 column 22: unknown key "idd" in items[0] (did you mean "id"?)`},
		{`{"tags": {"a.b": 1}}`, `line 1 column 18: tags["a.b"]: want string, got integer`},
		{`{"tagz": {}}`, `line 1 column 2: unknown key "tagz" at the top level (did you mean "tags"?)`},
		{`[1]`, `line 1 column 1: the top level: want object, got array`},
	} {
		if got := check(t, JSON([]byte(tc.in)), tc.in); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// YAML positions count from the value as written (an alias at the alias).
func TestExplainYAML(t *testing.T) {
	for _, tc := range []struct{ yaml, json, want string }{
		{"items:\n  - id: 1\n  - id: two\n", `{"items": [{"id": 1}, {"id": "two"}]}`, `line 3 column 9: items[1].id: want integer, got string`},
		{"tags:\n  x: &v [1]\n  y: *v\n", `{"tags": {"x": [1], "y": [1]}}`, `line 2 column 6: tags.x: want string, got array`},
	} {
		doc, err := YAML([]byte(tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		if got := check(t, doc, tc.json); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.yaml, got, tc.want)
		}
	}
}

// Without positions (a document the index could not read) the path and reason remain.
func TestExplainWithoutPositions(t *testing.T) {
	if got, want := check(t, new(Doc), `{"items": [{"id": "x"}]}`), `items[0].id: want integer, got string`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A valid document is valid, and its Doc is never asked for.
func TestValidateValid(t *testing.T) {
	var v any
	if err := json.Unmarshal([]byte(`{"items": [{"id": 1, "kind": "a"}], "tags": {"x": "y"}}`), &v); err != nil {
		t.Fatal(err)
	}
	if err := New("test schema", []byte(testSchema)).Validate(v, func() *Doc { t.Fatal("Doc asked for"); return nil }); err != nil {
		t.Fatal(err)
	}
}

// A decoding error's offset is just past the byte at fault; Syntax names that byte.
func TestSyntax(t *testing.T) {
	for _, in := range []string{"{\"a\": 1,\n  }", "{\"a\": [1 2]}", "", "{"} {
		var v any
		err := json.Unmarshal([]byte(in), &v)
		got := Syntax([]byte(in), err)
		want := map[string]string{
			"{\"a\": 1,\n  }": `line 2 column 3: invalid character '}' looking for beginning of object key string`,
			"{\"a\": [1 2]}":  `line 1 column 10: invalid character '2' after array element`,
			"":                `line 1 column 1: unexpected end of JSON input`,
			"{":               `line 1 column 1: unexpected end of JSON input`,
		}[in]
		if got == nil || got.Error() != want {
			t.Errorf("Syntax(%q) = %v, want %q", in, got, want)
		}
	}
}

// An error that is not JSON's own carries no place.
func TestSyntaxOther(t *testing.T) {
	if got := Syntax([]byte("{}"), errors.New("other")); got != nil {
		t.Errorf("Syntax = %v, want nil", got)
	}
}

// ValidateAll names every value at fault, in the file's order: an unknown key, a wrong type
// and a missing member of three items; a required member present but wrong is not also
// "missing"; an item with two faults is both.
func TestValidateAll(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"{\"items\": [{\"id\": 1, \"idd\": 2},\n  {\"id\": \"2\"},\n  {\"kind\": \"a\"}],\n \"tagz\": {}}", []string{
			`line 1 column 22: unknown key "idd" in items[0] (did you mean "id"?)`,
			`line 2 column 10: items[1].id: want integer, got string`,
			`line 3 column 3: items[2]: missing "id"`,
			`line 4 column 2: unknown key "tagz" at the top level (did you mean "tags"?)`,
		}},
		{`{"items": [{"id": "x"}]}`, []string{`line 1 column 19: items[0].id: want integer, got string`}},
		{`{"items": [{"kind": "c", "x": 1}]}`, []string{
			`line 1 column 12: items[0]: missing "id"`,
			`line 1 column 21: items[0].kind: want one of a, b, got "c"`,
			`line 1 column 26: unknown key "x" in items[0] (did you mean "id"?)`,
		}},
		{`{"tags": {"a": 1, "b": "ok", "c": []}}`, []string{
			`line 1 column 16: tags.a: want string, got integer`,
			`line 1 column 35: tags.c: want string, got array`,
		}},
		{`[1]`, []string{`line 1 column 1: the top level: want object, got array`}},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.in), &v); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range New("test schema", []byte(testSchema)).ValidateAll(v, func() *Doc { return JSON([]byte(tc.in)) }) {
			got = append(got, e.Error())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// For each single fault the walk of ValidateAll and Validate's agree: one error, the same.
func TestValidateAllOneFault(t *testing.T) {
	for _, in := range []string{
		"{\"items\": [{\"id\": 1},\n  {\"id\": \"2\"}]}", `{"items": [{"id": 0}]}`, `{"items": [{"id": 1, "kind": "c"}]}`,
		`{"items": [{"kind": "a"}]}`, `{"items": [{"id": 1, "idd": 2}]}`, `{"tags": {"a.b": 1}}`, `{"tagz": {}}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
		s, doc := New("test schema", []byte(testSchema)), func() *Doc { return JSON([]byte(in)) }
		all := s.ValidateAll(v, doc)
		if one := s.Validate(v, doc); len(all) != 1 || all[0].Error() != one.Error() {
			t.Errorf("%s: ValidateAll %q, Validate %q", in, all, one)
		}
	}
}

// Sort puts errors in the file's order, those without a place last, ties as they were.
func TestSort(t *testing.T) {
	d := JSON([]byte("{\"a\": 1,\n \"b\": 2}"))
	errs := []error{errors.New("no place"), d.Errorf("b", "second"), d.Errorf("a", "first"), d.Errorf("a", "first too")}
	Sort(errs)
	if got, want := List(errs).Error(), "line 1 column 7: a: first\nline 1 column 7: a: first too\nline 2 column 7: b: second\nno place"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
