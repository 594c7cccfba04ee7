package engine

import (
	"encoding/json"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/schema"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// TestSchemaPatternGoCannotCompile: an ECMA-262 pattern Go's regexp cannot compile
// (lookaround, back-references, \u escapes) — wherever it sits in an input or output schema —
// leaves the tool loadable; the host leaves that one keyword out of its own validation,
// names it in unenforced, and enforces the rest of the schema.
func TestSchemaPatternGoCannotCompile(t *testing.T) {
	const lookahead = `^(?=.*\\d)(?=.*[a-z]).{8,}$`
	for _, tc := range []struct {
		name          string
		input, output string
		want          []schema.Unenforced
		accept        []string          // arguments the host now accepts (the guest judges the pattern)
		refuse        map[string]string // arguments → a part of the host's error (the rest is enforced)
	}{{
		name:  "lookahead in properties",
		input: `{"type":"object","properties":{"pw":{"type":"string","minLength":3,"pattern":"` + lookahead + `"}},"required":["pw"]}`,
		want: []schema.Unenforced{{Path: "inputSchema/properties/pw/pattern", Pattern: `^(?=.*\d)(?=.*[a-z]).{8,}$`,
			Why: "Go's regexp has no lookahead"}},
		accept: []string{`{"pw":"abcdefgh"}`, `{"pw":"nodigits"}`},
		refuse: map[string]string{`{"pw":"ab"}`: "minLength", `{}`: "pw", `{"pw":7}`: "type"},
	}, {
		name:   "back-reference in items",
		input:  `{"type":"object","properties":{"l":{"type":"array","maxItems":1,"items":{"type":"string","pattern":"^(a+)-\\1$"}}}}`,
		want:   []schema.Unenforced{{Path: "inputSchema/properties/l/items/pattern", Pattern: `^(a+)-\1$`, Why: "Go's regexp has no back-references"}},
		accept: []string{`{"l":["a-aa"]}`},
		refuse: map[string]string{`{"l":["a","b"]}`: "maxItems", `{"l":[1]}`: "type"},
	}, {
		name:   "lookbehind and a \\u escape in $defs",
		input:  `{"type":"object","$defs":{"p":{"type":"string","pattern":"(?<!x)[\\u00C0-\\u017F]+"}},"properties":{"a":{"$ref":"#/$defs/p"}}}`,
		want:   []schema.Unenforced{{Path: "inputSchema/$defs/p/pattern", Pattern: `(?<!x)[\u00C0-\u017F]+`, Why: `Go's regexp has no lookbehind, no \u escapes`}},
		accept: []string{`{"a":"x"}`},
		refuse: map[string]string{`{"a":true}`: "type"},
	}, {
		name:  "patternProperties key with lookahead, additionalProperties false",
		input: `{"type":"object","properties":{"id":{"type":"integer"}},"patternProperties":{"^(?!id$)x_":{"type":"string"},"^n_":{"type":"number"}},"additionalProperties":false}`,
		want: []schema.Unenforced{
			{Path: "inputSchema/patternProperties/^(?!id$)x_", Pattern: "^(?!id$)x_", Why: "Go's regexp has no lookahead"},
			{Path: "inputSchema/additionalProperties", Why: "it depends on a patternProperties key left out"},
		},
		accept: []string{`{"x_a":"s","other":1}`, `{"x_a":5}`},
		refuse: map[string]string{`{"id":"s"}`: "type", `{"n_a":"s"}`: "type"},
	}, {
		name:  "patternProperties key in allOf, unevaluatedProperties false at the root",
		input: `{"type":"object","allOf":[{"patternProperties":{"^(?=k)\\w+$":{"type":"string"}}}],"properties":{"id":{"type":"integer"}},"unevaluatedProperties":false}`,
		want: []schema.Unenforced{
			{Path: "inputSchema/allOf/0/patternProperties/^(?=k)\\w+$", Pattern: `^(?=k)\w+$`, Why: "Go's regexp has no lookahead"},
			{Path: "inputSchema/unevaluatedProperties", Why: "it may depend on a patternProperties key left out"},
		},
		accept: []string{`{"key":"v","id":1}`},
		refuse: map[string]string{`{"id":"s"}`: "type"},
	}, {
		name:  "repeat counts over Go's limit, in propertyNames too; format regex is an annotation",
		input: `{"type":"object","propertyNames":{"pattern":"^(ab{100}){100}$","maxLength":4},"properties":{"t":{"type":"string","pattern":"^.{1,2000}$"},"re":{"type":"string","format":"regex"}}}`,
		want: []schema.Unenforced{
			{Path: "inputSchema/properties/t/pattern", Pattern: "^.{1,2000}$", Why: "Go's regexp has no repeat counts over 1000"},
			{Path: "inputSchema/propertyNames/pattern", Pattern: "^(ab{100}){100}$", Why: "Go's regexp has no nested repeat counts over 1000 in all"},
		},
		accept: []string{`{"t":""}`, `{"re":"(?=x)("}`},
		refuse: map[string]string{`{"toolong":""}`: "maxLength"},
	}, {
		name:   "output schema",
		input:  `{"type":"object"}`,
		output: `{"type":"object","properties":{"code":{"type":"string","pattern":"^(\\w)\\1$"}}}`,
		want:   []schema.Unenforced{{Path: "outputSchema/properties/code/pattern", Pattern: `^(\w)\1$`, Why: "Go's regexp has no back-references"}},
	}, {
		name:   "valid in both dialects: the host enforces it as before",
		input:  `{"type":"object","properties":{"id":{"type":"string","pattern":"^[a-z]+$"}},"patternProperties":{"^n_":{"type":"number"}}}`,
		accept: []string{`{"id":"abc"}`},
		refuse: map[string]string{`{"id":"A1"}`: "pattern", `{"n_a":"s"}`: "type"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			td := abi.Tool{Name: "pw", InputSchema: json.RawMessage(tc.input)}
			if tc.output != "" {
				td.OutputSchema = json.RawMessage(tc.output)
			}
			tl, err := newTool(td, policy.DefaultLimits(), Limits{})
			if err != nil {
				t.Fatalf("newTool: %v", err)
			}
			if !reflect.DeepEqual(tl.unenforced, tc.want) {
				t.Errorf("unenforced = %+v\nwant        %+v", tl.unenforced, tc.want)
			}
			if string(tl.def.InputSchema) != tc.input {
				t.Errorf("served inputSchema = %s, want it as the guest wrote it", tl.def.InputSchema)
			}
			for _, args := range tc.accept {
				if err := tl.validate([]byte(args)); err != nil {
					t.Errorf("validate(%s) = %v, want accepted", args, err)
				}
			}
			for args, part := range tc.refuse {
				if err := tl.validate([]byte(args)); err == nil || !strings.Contains(err.Error(), part) {
					t.Errorf("validate(%s) = %v, want an error naming %q", args, err, part)
				}
			}
		})
	}
}

// TestSchemaPatternInvalidInBothDialects: a pattern malformed in ECMA-262 as in Go is still
// an error at load, naming the schema path and the pattern — also when an ECMA-only
// construct comes before the fault.
func TestSchemaPatternInvalidInBothDialects(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`,
			`tool "t": inputSchema: /properties/a/pattern: "(": error parsing regexp: missing closing ): ` + "`(`"},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"(?=a)("}}}`,
			`tool "t": inputSchema: /properties/a/pattern: "(?=a)(" is not a regular expression: missing closing )`},
		{`{"type":"object","items":{"pattern":"\\1*?+"}}`,
			`tool "t": inputSchema: /items/pattern: "\\1*?+" is not a regular expression: invalid nested repetition operator`},
		{`{"type":"object","properties":{"a":{"pattern":"a{1001,1000}"}}}`,
			`tool "t": inputSchema: /properties/a/pattern: "a{1001,1000}": error parsing regexp: invalid repeat count: ` + "`{1001,1000}`"},
		{`{"type":"object","properties":{"a":{"pattern":"a{5,2}"}}}`,
			`tool "t": inputSchema: /properties/a/pattern: "a{5,2}": error parsing regexp: invalid repeat count: ` + "`{5,2}`"},
		{`{"type":"object","properties":{"a":{"pattern":"(?=a)b{5,2}"}}}`,
			`tool "t": inputSchema: /properties/a/pattern: "(?=a)b{5,2}" is not a regular expression: invalid repeat count`},
		{`{"type":"object","patternProperties":{"[z-a](?<=b)":{}}}`,
			`tool "t": inputSchema: /patternProperties: key "[z-a](?<=b)" is not a regular expression: invalid character class range`},
	} {
		_, err := newTool(abi.Tool{Name: "t", InputSchema: json.RawMessage(tc.schema)}, policy.DefaultLimits(), Limits{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("newTool(%s) = %v\nwant %s", tc.schema, err, tc.want)
		}
	}
	_, err := newTool(abi.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"pattern":"(?<=a"}}}`)}, policy.DefaultLimits(), Limits{})
	if want := `tool "t": outputSchema: /properties/a/pattern: "(?<=a" is not a regular expression: missing closing )`; err == nil || err.Error() != want {
		t.Errorf("output schema: %v\nwant %s", err, want)
	}
}

// The warning for a pattern left to the guest is logged once at load, naming guest, tool,
// path and pattern, and at a relist only for a tool whose schema changed.
func TestWarnUnenforcedOncePerSchema(t *testing.T) {
	var buf strings.Builder
	g := &Guest{host: &Host{logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))}, name: "imp"}
	newPW := func(pattern string) *tool {
		tl, err := newTool(abi.Tool{Name: "pw", InputSchema: json.RawMessage(`{"type":"object","properties":{"pw":{"pattern":"` + pattern + `"}}}`)}, policy.DefaultLimits(), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	load := newPW(`(?=a)`)
	g.warnUnenforced(load) // at load: no lists yet
	want := `level=WARN msg="schema keyword not enforced by the host: Go's regexp has no lookahead; only the guest can check it" guest=imp tool=pw path=inputSchema/properties/pw/pattern pattern="(?=a)"` + "\n"
	if buf.String() != want {
		t.Fatalf("at load: %q\nwant %q", buf.String(), want)
	}
	g.cur.Store(&lists{tools: map[string]*tool{"pw": load}})
	g.warnUnenforced(newPW(`(?=a)`)) // relist, same schema
	if buf.String() != want {
		t.Errorf("relist with the same schema logged again: %q", buf.String())
	}
	g.warnUnenforced(newPW(`(?!b)`)) // relist, changed schema
	if got := strings.TrimPrefix(buf.String(), want); !strings.Contains(got, "pattern=(?!b)\n") {
		t.Errorf("relist with a changed schema logged %q", got)
	}
}
