package runtime

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// validateArgsReference is validateArgs before its fast paths: the behaviour they must keep.
func validateArgsReference(t *tool, args []byte) error {
	v, err := decodeExact(args)
	if err != nil {
		return err
	}
	return checkArgs(t.input, v)
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
	for _, schema := range []string{`{"type":"object"}`,
		`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer","description":"x"}},"required":["a","b"],"additionalProperties":false}`,
		`{"type":"object","properties":{"x":{"type":"number"},"on":{"type":"boolean"},"s":{"type":"string"}},"additionalProperties":true}`,
	} {
		r, err := resolveSchema(json.RawMessage(schema))
		if err != nil {
			tb.Fatal(err)
		}
		ts = append(ts, &tool{input: r, flat: compileFlat(json.RawMessage(schema))})
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

func TestCompileFlat(t *testing.T) {
	for _, tc := range []struct {
		schema string
		flat   bool
	}{
		{`{"type":"object","properties":{"text":{"type":"string","description":"d"}},"required":["text"]}`, true},
		{`{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}`, true},
		{`{"type":"object"}`, true},
		{`{"type":"object","properties":{"a":{"type":"integer","minimum":1}}}`, false},
		{`{"type":"object","properties":{"a":{"type":["null","string"]}}}`, false},
		{`{"type":"object","properties":{"a":{"type":"array"}}}`, false},
		{`{"type":"object","required":["missing"]}`, false},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, false},
		{`{"properties":{}}`, false},
	} {
		if got := compileFlat(json.RawMessage(tc.schema)) != nil; got != tc.flat {
			t.Errorf("compileFlat(%s) flat = %v, want %v", tc.schema, got, tc.flat)
		}
	}
	f := compileFlat(json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`))
	for _, tc := range []struct {
		args string
		ok   bool
	}{
		{`{"a":1,"b":2}`, true},
		{` { "b" : -2 , "a" : 10 } `, true},
		{`{"a":1}`, false},
		{`{"a":1,"b":"two"}`, false},
		{`{"a":1,"b":2,"x":true}`, false},
		{`{"a":1.5,"b":2}`, false},
		{`{"a":1e2,"b":2}`, false},
		{`{"\u0061":1,"b":2}`, false},
		{`[1]`, false},
		{`{"a":1,"b":2}x`, false},
	} {
		if got := f.accepts([]byte(tc.args)); got != tc.ok {
			t.Errorf("accepts(%s) = %v, want %v", tc.args, got, tc.ok)
		}
	}
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

// TestValidateExactNumbers: integers above 2^53 and numbers beyond float64 are valid JSON
// numbers, judged by their value (reproducer N07, input direction).
func TestValidateExactNumbers(t *testing.T) {
	r, err := resolveSchema(json.RawMessage(`{"type":"object","properties":{"i":{"type":"integer","maximum":9007199254740992},"n":{"type":"number","minimum":0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args string
		ok   bool
	}{
		{`{"i":9007199254740992}`, true},
		{`{"i":9007199254740993}`, false}, // above maximum: compared exactly, not as 2^53
		{`{"i":-9007199254740993}`, true},
		{`{"i":-12345678901234567890123}`, true},
		{`{"i":1e3}`, true},
		{`{"i":1.0000000000000000001}`, false}, // not an integer, though float64 says 1
		{`{"i":1.5}`, false},
		{`{"n":1e400}`, true},
		{`{"n":-1e400}`, false}, // below minimum
		{`{"n":1e-400}`, true},
		{`{"n":1e999999999999}`, true},
	} {
		err := validateArgs(r, []byte(tc.args))
		if (err == nil) != tc.ok {
			t.Errorf("validateArgs(%s) = %v, want ok=%v", tc.args, err, tc.ok)
		}
	}
}

// scanSeeds exercise the single-pass scanner of the flat acceptor against json.Valid.
var scanSeeds = []string{
	`{"a":"plain text longer than eight bytes","b":[1,-2,3.25,true,false,null,{"c":"d"}]}`,
	`{"a":"tab\there"}`, "{\"a\":\"tab\there\"}", "{\"a\":\"nul\x00here, long enough\"}", `{"a":"\u00E9\/\b\f\n\r\t\"\\"}`,
	`{"a":"\u00g0"}`, `{"a":"\x"}`, `{"a":"unterminated`, `{"a":"ends in a backslash\`, `{"a":01}`, `{"a":-}`, `{"a":1.}`,
	`{"a":.5}`, `{"a":-0.5}`, `{"a":tru}`, `{"a":nul}`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":{"b"}}`, `{"a":{"b":1,}}`,
	`{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a":[]}`, `{"a":{}}`, `{"a":[[[[]]]]}`, `{"` + "\xff" + `":1}`,
	`{"a":"1234567\"89abcdef"}`, `{"a":"12345678\\9abcdef"}`, `{"a":"é long string of several bytes ü"}`,
	strings.Repeat(`[`, 600) + strings.Repeat(`]`, 600),
}

// TestFlatScanMatchesValid: the acceptor's scanner never vouches for bytes json.Valid rejects,
// and accepts what it is meant to (valid JSON without exponents, long digit runs or deep
// nesting) under the permissive schema.
func TestFlatScanMatchesValid(t *testing.T) {
	for _, s := range append(slices.Clone(validateSeeds), scanSeeds...) {
		checkScan(t, []byte(s))
	}
}

func checkScan(t *testing.T, b []byte) {
	f := compileFlat(json.RawMessage(`{"type":"object"}`))
	valid := json.Valid(b)
	if f.accepts(b) && !valid {
		t.Errorf("accepts(%.80q) = true, json.Valid false", b)
	}
	end := scanValue(b, skipSpace(b, 0), 0)
	scanned := end >= 0 && skipSpace(b, end) == len(b)
	if scanned && !valid {
		t.Errorf("scanValue(%.80q) vouches for it, json.Valid does not", b)
	}
	plain := !strings.ContainsAny(string(b), "eE") && len(b) < 1000 && !longDigitRun(b)
	if valid && plain && !scanned {
		t.Errorf("scanValue(%.80q) = %d for valid JSON", b, end)
	}
}

func FuzzFlatScan(f *testing.F) {
	for _, s := range append(slices.Clone(validateSeeds), scanSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(checkScan)
}

func longDigitRun(b []byte) bool {
	n := 0
	for _, c := range b {
		if n = n + 1; c < '0' || c > '9' {
			n = 0
		}
		if n >= 309 {
			return true
		}
	}
	return false
}
