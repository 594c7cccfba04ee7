package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

var ctx = context.Background()

func TestSHA256(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"hello world", "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"},
		{"héllo", "3c48591d8d098a4538f5e013dfcf406e948eac4d3277b10bf614e295d6068179"},
	}
	for _, tt := range tests {
		got, err := SHA256(ctx, SHA256In{Text: tt.in})
		if err != nil || got.Hex != tt.want {
			t.Errorf("SHA256(%q) = %q, %v; want %q", tt.in, got.Hex, err, tt.want)
		}
	}
}

func TestBase64Encode(t *testing.T) {
	tests := []struct {
		in   string
		url  bool
		want string
	}{
		{"", false, ""},
		{"ab", false, "YWI="},
		{"héllo?>", false, "aMOpbGxvPz4="},
		{"<<???>>", false, "PDw/Pz8+Pg=="},
		{"<<???>>", true, "PDw_Pz8-Pg=="},
		{"a?b>c~", false, "YT9iPmN+"},
		{"a?b>c~", true, "YT9iPmN-"},
	}
	for _, tt := range tests {
		got, err := Base64Encode(ctx, Base64EncodeIn{Text: tt.in, URL: tt.url})
		if err != nil || got.Base64 != tt.want {
			t.Errorf("Base64Encode(%q, url=%v) = %q, %v; want %q", tt.in, tt.url, got.Base64, err, tt.want)
		}
	}
}

func TestBase64Decode(t *testing.T) {
	tests := []struct {
		in      string
		url     bool
		want    string
		wantErr string
	}{
		{"", false, "", ""},
		{"YWI=", false, "ab", ""},
		{"YWI", false, "ab", ""},
		{"aMOpbGxvPz4=", false, "héllo?>", ""},
		{"PDw/Pz8+Pg==", false, "<<???>>", ""},
		{"PDw/Pz8+Pg", false, "<<???>>", ""},
		{"PDw_Pz8-Pg==", true, "<<???>>", ""},
		{"PDw_Pz8-Pg", true, "<<???>>", ""},
		{"YT9iPmN+", false, "a?b>c~", ""},
		{"PDw_Pz8-Pg==", false, "", "invalid base64 at byte 3"},
		{"PDw/Pz8+Pg==", true, "", "invalid base64 at byte 3"},
		{"YW!=", false, "", "invalid base64 at byte 2"},
		{"Y", false, "", "invalid base64 at byte 0"},
		{"YWI==", false, "", "invalid base64 at byte 4"},
		{"//4+Pw==", false, "", "decoded bytes are not valid UTF-8"},
	}
	for _, tt := range tests {
		got, err := Base64Decode(ctx, Base64DecodeIn{Base64: tt.in, URL: tt.url})
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("Base64Decode(%q, url=%v) = %q, %v; want error %q", tt.in, tt.url, got.Text, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.Text != tt.want {
			t.Errorf("Base64Decode(%q, url=%v) = %q, %v; want %q", tt.in, tt.url, got.Text, err, tt.want)
		}
	}
}

func ptr(s string) *string { return &s }

func TestRegexMatch(t *testing.T) {
	tests := []struct {
		name    string
		in      RegexIn
		want    RegexOut
		wantErr string
	}{
		{"first match with groups", RegexIn{Pattern: `(\w+)@(\w+)\.com`, Text: "mail bob@example.com or amy@test.com"},
			RegexOut{Matched: true, Matches: []Match{{Match: "bob@example.com", Index: 5, Groups: []*string{ptr("bob"), ptr("example")}}}}, ""},
		{"all matches", RegexIn{Pattern: `(\w+)@(\w+)\.com`, Text: "mail bob@example.com or amy@test.com", All: true},
			RegexOut{Matched: true, Matches: []Match{
				{Match: "bob@example.com", Index: 5, Groups: []*string{ptr("bob"), ptr("example")}},
				{Match: "amy@test.com", Index: 24, Groups: []*string{ptr("amy"), ptr("test")}},
			}}, ""},
		{"no match", RegexIn{Pattern: `\d+`, Text: "none here", All: true},
			RegexOut{Matched: false, Matches: []Match{}}, ""},
		{"no groups", RegexIn{Pattern: `b+`, Text: "abbbc"},
			RegexOut{Matched: true, Matches: []Match{{Match: "bbb", Index: 1, Groups: []*string{}}}}, ""},
		{"unmatched optional group is null", RegexIn{Pattern: `a(x)?(b)`, Text: "ab"},
			RegexOut{Matched: true, Matches: []Match{{Match: "ab", Index: 0, Groups: []*string{nil, ptr("b")}}}}, ""},
		{"empty group", RegexIn{Pattern: `a(x*)b`, Text: "ab"},
			RegexOut{Matched: true, Matches: []Match{{Match: "ab", Index: 0, Groups: []*string{ptr("")}}}}, ""},
		{"byte offsets after multibyte", RegexIn{Pattern: `l+`, Text: "héllo"},
			RegexOut{Matched: true, Matches: []Match{{Match: "ll", Index: 3, Groups: []*string{}}}}, ""},
		{"empty pattern all", RegexIn{Pattern: ``, Text: "ab", All: true},
			RegexOut{Matched: true, Matches: []Match{
				{Match: "", Index: 0, Groups: []*string{}},
				{Match: "", Index: 1, Groups: []*string{}},
				{Match: "", Index: 2, Groups: []*string{}},
			}}, ""},
		{"bad pattern", RegexIn{Pattern: `a(b`, Text: "ab"}, RegexOut{}, "invalid pattern \"a(b\": missing closing ): `a(b`"},
		{"backreference unsupported", RegexIn{Pattern: `(a)\1`, Text: "aa"}, RegexOut{}, "invalid pattern \"(a)\\\\1\": invalid escape sequence: `\\1`"},
		{"pattern too long", RegexIn{Pattern: strings.Repeat("a", 1025), Text: "a"}, RegexOut{}, "pattern longer than 1024 bytes"},
		{"text too long", RegexIn{Pattern: "a", Text: strings.Repeat("a", 1<<20+1)}, RegexOut{}, "text longer than 1048576 bytes"},
	}
	for _, tt := range tests {
		got, err := RegexMatch(ctx, tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}

func TestRegexMatchLimits(t *testing.T) {
	// Exactly at the limits is accepted.
	got, err := RegexMatch(ctx, RegexIn{Pattern: strings.Repeat("a", 1024), Text: strings.Repeat("a", 1<<20)})
	if err != nil || !got.Matched || got.Matches[0].Index != 0 {
		t.Fatalf("at limits: matched=%v err=%v", got.Matched, err)
	}
	// More than MaxMatches matches: capped and flagged.
	got, err = RegexMatch(ctx, RegexIn{Pattern: "a", Text: strings.Repeat("a", 1500), All: true})
	if err != nil || len(got.Matches) != 1000 || !got.Truncated || got.Matches[999].Index != 999 {
		t.Fatalf("cap: %d matches, truncated=%v, err=%v", len(got.Matches), got.Truncated, err)
	}
	got, err = RegexMatch(ctx, RegexIn{Pattern: "a", Text: strings.Repeat("a", 1000), All: true})
	if err != nil || len(got.Matches) != 1000 || got.Truncated {
		t.Fatalf("exactly 1000: %d matches, truncated=%v, err=%v", len(got.Matches), got.Truncated, err)
	}
}

func TestRegexMatchJSON(t *testing.T) {
	got, err := RegexMatch(ctx, RegexIn{Pattern: `a(x)?`, Text: "zzz"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `{"matched":false,"matches":[],"truncated":false}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	got, _ = RegexMatch(ctx, RegexIn{Pattern: `a(x)?`, Text: "za"})
	b, _ = json.Marshal(got)
	if want := `{"matched":true,"matches":[{"match":"a","index":1,"groups":[null]}],"truncated":false}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestCount(t *testing.T) {
	tests := []struct {
		in   string
		want CountOut
	}{
		{"", CountOut{0, 0, 0, 0}},
		{"hello", CountOut{5, 5, 1, 1}},
		{"hello world\n", CountOut{12, 12, 2, 1}},
		{"a\nb", CountOut{3, 3, 2, 2}},
		{"\n", CountOut{1, 1, 0, 1}},
		{"\n\n", CountOut{2, 2, 0, 2}},
		{"  héllo\twörld  \n\nthird line", CountOut{29, 27, 4, 3}},
		{"日本語 テキスト", CountOut{22, 8, 2, 1}},
		{"\xff\xfe", CountOut{2, 2, 1, 1}},
	}
	for _, tt := range tests {
		got, err := Count(ctx, CountIn{Text: tt.in})
		if err != nil || got != tt.want {
			t.Errorf("Count(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestEcho(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	for _, s := range []string{"", "hello", "héllo\n\"quoted\"\t", big} {
		got, err := Echo(ctx, EchoIn{Text: s})
		if err != nil || got != s {
			t.Errorf("Echo(len %d) = len %d, %v", len(s), len(got), err)
		}
	}
}

func TestJSONQuery(t *testing.T) {
	doc := `{"a": {"b": [{"c": 1}, {"c": 2.50, "d": null}]}, "x.y": "dotted", "arr": [10, 20, 30],
		"big": 12345678901234567890, "s": "str", "t": true, "": "empty", "sp ace": [1]}`
	tests := []struct {
		path    string
		want    string // the value's JSON
		wantErr string
	}{
		{"$", "", ""}, // whole document, checked separately below
		{"a.b[0].c", "1", ""},
		{"$.a.b[0].c", "1", ""},
		{"a.b[1].c", "2.50", ""},
		{"a.b[1].d", "null", ""},
		{"a.b[1]", `{"c":2.50,"d":null}`, ""},
		{"a.b[-1].c", "2.50", ""},
		{"arr[-3]", "10", ""},
		{`["x.y"]`, `"dotted"`, ""},
		{`$["x.y"]`, `"dotted"`, ""},
		{`$['x.y']`, `"dotted"`, ""},
		{`$["x\u002ey"]`, `"dotted"`, ""},
		{`$[""]`, `"empty"`, ""},
		{`$["sp ace"][0]`, "1", ""},
		{`sp ace[0]`, "1", ""},
		{"big", "12345678901234567890", ""},
		{"t", "true", ""},
		{"a.b[0].missing", "", `path segment .missing: key "missing" not found at $.a.b[0]`},
		{"nope", "", `path segment .nope: key "nope" not found at $`},
		{`$["x.z"]`, "", `path segment ["x.z"]: key "x.z" not found at $`},
		{"arr[3]", "", "path segment [3]: index out of range at $.arr (length 3)"},
		{"arr[-4]", "", "path segment [-4]: index out of range at $.arr (length 3)"},
		{"s[0]", "", "path segment [0]: $.s is a string, not an array"},
		{"arr.x", "", "path segment .x: $.arr is an array, not an object"},
		{"a.b[1].d.e", "", "path segment .e: $.a.b[1].d is null, not an object"},
		{"t.u", "", "path segment .u: $.t is a boolean, not an object"},
		{"a..b", "", `invalid path "a..b" at offset 2: expected a key after "."`},
		{"a.", "", `invalid path "a." at offset 2: expected a key after "."`},
		{"a[0", "", `invalid path "a[0" at offset 1: unterminated [`},
		{"a[", "", `invalid path "a[" at offset 2: unterminated [`},
		{"a[x]", "", `invalid path "a[x]" at offset 2: invalid index "x" (want an integer or a quoted key)`},
		{"a[+1]", "", `invalid path "a[+1]" at offset 2: invalid index "+1" (want an integer or a quoted key)`},
		{`a["b]`, "", `invalid path "a[\"b]" at offset 2: invalid quoted key`},
		{`a["b"x]`, "", `invalid path "a[\"b\"x]" at offset 5: expected "]"`},
		{`a['b`, "", `invalid path "a['b" at offset 2: unterminated quoted key`},
		{"$a", "", `invalid path "$a" at offset 1: unexpected 'a'`},
		{"a]", "", `invalid path "a]" at offset 1: unexpected ']'`},
	}
	for _, tt := range tests {
		got, err := JSONQuery(ctx, JSONQueryIn{JSON: doc, Path: tt.path})
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("path %q: err = %v, want %q", tt.path, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("path %q: %v", tt.path, err)
			continue
		}
		if tt.path == "$" {
			if m, ok := got.Value.(map[string]any); !ok || len(m) != 8 {
				t.Errorf("path $: got %T %v", got.Value, got.Value)
			}
			continue
		}
		b, err := json.Marshal(got.Value)
		if err != nil || string(b) != tt.want {
			t.Errorf("path %q: value %s, %v; want %s", tt.path, b, err, tt.want)
		}
	}
}

func TestJSONQueryDocument(t *testing.T) {
	tests := []struct {
		json, path, want, wantErr string
	}{
		{`[1,[2,3]]`, "[1][0]", `{"value":2}`, ""},
		{`[1,[2,3]]`, "", `{"value":[1,[2,3]]}`, ""},
		{`"just a string"`, "$", `{"value":"just a string"}`, ""},
		{`null`, "$", `{"value":null}`, ""},
		{` {"a":1} `, "a", `{"value":1}`, ""},
		{`{"a":1`, "a", "", "invalid JSON: unexpected EOF"},
		{`{"a":1} {}`, "a", "", "invalid JSON: data after the top-level value"},
		{``, "$", "", "invalid JSON: EOF"},
		{`{a:1}`, "a", "", "invalid JSON: invalid character 'a' looking for beginning of object key string"},
	}
	for _, tt := range tests {
		got, err := JSONQuery(ctx, JSONQueryIn{JSON: tt.json, Path: tt.path})
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("JSONQuery(%q, %q): err = %v, want %q", tt.json, tt.path, err, tt.wantErr)
			}
			continue
		}
		b, _ := json.Marshal(got)
		if err != nil || string(b) != tt.want {
			t.Errorf("JSONQuery(%q, %q) = %s, %v; want %s", tt.json, tt.path, b, err, tt.want)
		}
	}
}

func TestParsePathRoundTrip(t *testing.T) {
	for _, p := range []string{"$", "$.a.b[0].c", `$["x.y"][-1]`, `$[""]`, `$["sp ace"]`, `$["$"]`} {
		segs, err := ParsePath(p)
		if err != nil {
			t.Fatalf("ParsePath(%q): %v", p, err)
		}
		if got := FormatPath(segs); got != p {
			t.Errorf("FormatPath(ParsePath(%q)) = %q", p, got)
		}
	}
}

// TestSchemas checks the inferred input schemas make exactly the documented fields required,
// so the host's input validation accepts omitted optional flags.
func TestSchemas(t *testing.T) {
	check := func(name string, s *jsonschema.Schema, err error, required ...string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.Type != "object" || !cmp.Equal(s.Required, required) {
			b, _ := json.Marshal(s)
			t.Errorf("%s: required %v, want %v; schema %s", name, s.Required, required, b)
		}
		for k, p := range s.Properties {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", name, k)
			}
		}
	}
	s, err := jsonschema.For[SHA256In](nil)
	check("sha256 in", s, err, "text")
	s, err = jsonschema.For[Base64EncodeIn](nil)
	check("base64_encode in", s, err, "text")
	s, err = jsonschema.For[Base64DecodeIn](nil)
	check("base64_decode in", s, err, "base64")
	s, err = jsonschema.For[RegexIn](nil)
	check("regex_match in", s, err, "pattern", "text")
	s, err = jsonschema.For[CountIn](nil)
	check("count in", s, err, "text")
	s, err = jsonschema.For[JSONQueryIn](nil)
	check("json_query in", s, err, "json", "path")
	s, err = jsonschema.For[EchoIn](nil)
	check("echo in", s, err, "text")
	s, err = jsonschema.For[RegexOut](nil)
	check("regex_match out", s, err, "matched", "matches", "truncated")
	s, err = jsonschema.For[CountOut](nil)
	check("count out", s, err, "bytes", "runes", "words", "lines")
	s, err = jsonschema.For[JSONQueryOut](nil)
	check("json_query out", s, err, "value")
}
