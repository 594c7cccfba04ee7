package exactjson

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestDecodeToolResultKeepsNumbers(t *testing.T) {
	in := `{"content":[{"type":"text","text":"t"}],"structuredContent":{"n":9007199254740993,"e":1e400,"f":1.0000000000000000001},"_meta":{"k":[12345678901234567890]},"isError":false}`
	res, err := DecodeToolResult([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"structuredContent":{"n":9007199254740993,"e":1e400,"f":1.0000000000000000001}`, `"_meta":{"k":[12345678901234567890]}`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("re-encoded result %s lacks %s", out, want)
		}
	}
}

// FuzzDecodeToolResult: decoding a CallToolResult (a guest's or an upstream's) never panics,
// and what decodes re-encodes with structuredContent exactly as given (compacted, HTML
// characters escaped as encoding/json does): no number is changed.
func FuzzDecodeToolResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[],"structuredContent":{"n":9007199254740993}}`,
		`{"content":[{"type":"text","text":"x"}],"structuredContent":[1e400,-0,0.1e-999],"isError":true}`,
		`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"_meta":{"a":{"b":1e400}}}`,
		`{"structuredContent":null,"_meta":null}`, `null`, `{"content":[{"type":"nope"}]}`, `{"structuredContent":"s"}`,
		`{"content":[{"type":"resource","resource":{"uri":"x://","text":"t"}}],"structuredContent":{"a":{"a":{"a":[]}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := DecodeToolResult(data)
		if err != nil {
			return
		}
		_, sc, _, err := Split(data)
		if err != nil {
			t.Fatalf("DecodeToolResult succeeded but Split failed: %v", err)
		}
		out, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("re-encoding %q: %v", data, err)
		}
		if sc == nil {
			return
		}
		var compact, want bytes.Buffer // encoding/json escapes <, > and & in what it marshals
		if err := json.Compact(&compact, sc); err != nil {
			t.Fatal(err)
		}
		json.HTMLEscape(&want, compact.Bytes())
		var got struct {
			SC json.RawMessage `json:"structuredContent"`
		}
		if err := json.Unmarshal(out, &got); err != nil || !bytes.Equal(got.SC, want.Bytes()) {
			t.Errorf("structuredContent %s re-encoded as %s (%v)", want.Bytes(), got.SC, err)
		}
	})
}
