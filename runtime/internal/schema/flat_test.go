package schema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

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
		if got := CompileFlat(json.RawMessage(tc.schema)) != nil; got != tc.flat {
			t.Errorf("CompileFlat(%s) flat = %v, want %v", tc.schema, got, tc.flat)
		}
	}
	f := CompileFlat(json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`))
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
		if got := f.Accepts([]byte(tc.args)); got != tc.ok {
			t.Errorf("accepts(%s) = %v, want %v", tc.args, got, tc.ok)
		}
	}
}

// TestFlatScanMatchesValid: the acceptor's scanner never vouches for bytes json.Valid rejects,
// and accepts what it is meant to (valid JSON without exponents, long digit runs or deep
// nesting) under the permissive schema.
func TestFlatScanMatchesValid(t *testing.T) {
	for _, s := range append(slices.Clone(validateSeeds), scanSeeds...) {
		checkScan(t, []byte(s))
	}
}

func FuzzFlatScan(f *testing.F) {
	for _, s := range append(slices.Clone(validateSeeds), scanSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(checkScan)
}

// validateSeeds: the arguments runtime's validate_test checks the validation paths on.
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

func checkScan(t *testing.T, b []byte) {
	f := CompileFlat(json.RawMessage(`{"type":"object"}`))
	valid := json.Valid(b)
	if f.Accepts(b) && !valid {
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
