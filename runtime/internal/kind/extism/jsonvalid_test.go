package extism

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValidJSON holds validJSON to encoding/json.Valid.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{
		``, ` `, `{}`, ` {"a":1} `, `{"a":[1,2,{"b":null}],"c":"x\"\\\/\b\f\n\r\t\u00e9"}`, `[]`, `[1,]`, `{"a":1,}`,
		`{"a"}`, `{"a":}`, `{,}`, `"\u12"`, `"\x"`, "\"a\x01\"", `"abc`, `-`, `-0`, `-01`, `0.`, `0.5e`, `1e+5`, `1E-0`,
		`01`, `.5`, `tru`, `true`, `false `, `nul`, `null`, `{"a":1}{}`, `[[[]]]`, `{"a":1 "b":2}`, "\"\xff\xfe\"",
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid %v", b, got, want)
		}
	})
}
