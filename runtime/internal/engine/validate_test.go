package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/schema"
)

// validateArgsReference is validateArgs before its fast paths: the behaviour they must keep.
func validateArgsReference(t *tool, args []byte) error {
	v, err := schema.DecodeExact(args)
	if err != nil {
		return err
	}
	return schema.Check(t.input, v)
}

var validateSeeds = []string{
	`{"a":1,"b":2}`, `{"a":1,"b":2,"c":3}`, `{"b":2}`, `{"a":1.0,"b":2}`, `{"x":1.5,"on":true,"s":"q","z":[{}]}`,
	`{"a":1,"a":"x","b":2}`, `{"a":"x","a":1,"b":2}`, `{"text":"a","text":5}`, `{"on":null}`,
	`{}`, ` {"a":1} `, "\n{}\t", `{"a":1e400}`, `{"a":1E5}`, `{"a":-1.5e-3}`, `{"a":"e5"}`, `{"a":"\"e1"}`,
	`{"a":true,"b":false,"c":null}`, `[1]`, `"x"`, `null`, `1`, `{} {}`, `{}x`, `{"a":`, ``, ` `,
	`{"text":5}`, `{"text":"x"}`, `{"text":"x","n":[1,2,{"e":3}]}`, "{\"a\":\"\xff\"}", `{"a":"\u00e9"}`,
	`{"a":` + strings.Repeat("9", 308) + `}`, `{"a":` + strings.Repeat("9", 309) + `}`,
	`{"a":` + strings.Repeat("9", 400) + `}`, `{"a":0.` + strings.Repeat("9", 400) + `}`,
	strings.Repeat(`{"a":`, 10001) + `1` + strings.Repeat(`}`, 10001),
}

func validateTools(tb testing.TB) []*tool {
	var ts []*tool
	for _, src := range []string{`{"type":"object"}`,
		`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer","description":"x"}},"required":["a","b"],"additionalProperties":false}`,
		`{"type":"object","properties":{"x":{"type":"number"},"on":{"type":"boolean"},"s":{"type":"string"}},"additionalProperties":true}`,
	} {
		r, err := schema.Resolve(json.RawMessage(src))
		if err != nil {
			tb.Fatal(err)
		}
		ts = append(ts, &tool{input: r, flat: schema.CompileFlat(json.RawMessage(src))})
	}
	return ts
}

func checkValidateSame(t *testing.T, tools []*tool, args []byte) {
	for i, tl := range tools {
		want, got := validateArgsReference(tl, args), tl.validate(args)
		if sameSchemaFailure(want, got) {
			// Several properties fail: jsonschema-go names whichever its map order meets first.
		} else if canonicalErr(want) != canonicalErr(got) {
			t.Errorf("schema %d, args %.80q: validateArgs = %v, want %v", i, args, got, want)
		}
	}
}

func sameSchemaFailure(a, b error) bool {
	const p = "validating /properties/"
	return a != nil && b != nil && strings.HasPrefix(a.Error(), p) && strings.HasPrefix(b.Error(), p)
}

// canonicalErr sorts the property list of jsonschema-go's "unexpected additional
// properties [...]", which it builds in map order.
func canonicalErr(err error) string {
	s := fmt.Sprint(err)
	i, j := strings.Index(s, "properties ["), strings.LastIndex(s, "]")
	if i < 0 || j < i {
		return s
	}
	names := strings.Fields(s[i+len("properties [") : j])
	slices.Sort(names)
	return s[:i] + "properties [" + strings.Join(names, " ") + s[j:]
}

// TestValidateArgsFastPaths: the flat acceptor and the Unmarshal fast path answer exactly
// as the Decoder path does.
func TestValidateArgsFastPaths(t *testing.T) {
	tools := validateTools(t)
	for _, s := range validateSeeds {
		checkValidateSame(t, tools, []byte(s))
	}
}

func FuzzValidateArgs(f *testing.F) {
	for _, s := range validateSeeds {
		f.Add([]byte(s))
	}
	tools := validateTools(f)
	f.Fuzz(func(t *testing.T, args []byte) { checkValidateSame(t, tools, args) })
}
