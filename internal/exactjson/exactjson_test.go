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
		_, x, err := Split(data)
		if err != nil {
			t.Fatalf("DecodeToolResult succeeded but Split failed: %v", err)
		}
		sc := x.Structured
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

// FuzzDecodeTextResult holds the one-pass decoding of text results to the SDK's: whatever
// DecodeTextResult accepts, the SDK's path (decodeSDK) decodes too, and both marshal to the
// same bytes. The seeds are the shapes it must refuse (left to the SDK) beside those it takes.
func FuzzDecodeTextResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[{"type":"text","text":"a\u00e9\ud83d\ude00<&>"},{"text":"b","type":"text"}],"isError":true}`,
		` {"content":[],"structuredContent":{"n":9007199254740993},"_meta":{"k":1e400}} `,
		`{"structuredContent":[1,2]}`, `{}`, `{"isError":false}`, `{"structuredContent":null,"_meta":null}`,
		`{"Content":[{"type":"text","text":"x"}]}`, `{"content":[{"type":"Text","text":"x"}]}`,
		`{"content":[{"type":"text","text":"x","annotations":{"priority":1}}]}`,
		`{"content":[{"type":"text","text":"x","_meta":{"a":1}}]}`,
		`{"content":[{"type":"text"}]}`, `{"content":[{"type":"text","text":null}]}`, `{"content":[{"type":"text","text":1}]}`,
		`{"content":[{"type":"text","text":"a","text":"b"}]}`, `{"content":[],"content":[{"type":"text","text":"x"}]}`,
		`{"content":null}`, `{"content":{}}`, `{"content":[null]}`, `{"isError":null}`, `{"isError":"true"}`,
		`{"resultType":"complete","content":[]}`, `{"\u0063ontent":[{"type":"text","text":"x"}]}`,
		`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`, "{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}",
		`[]`, `null`, `"s"`, `{"content":[{"type":"text","text":"x"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := DecodeTextResult(data)
		if !ok {
			return
		}
		if err := Check(data); err != nil {
			t.Fatalf("DecodeTextResult took %q, Check refuses it: %v", data, err)
		}
		slow, err := decodeSDK(data)
		if err != nil {
			t.Fatalf("DecodeTextResult took %q, the SDK refuses it: %v", data, err)
		}
		a, err1 := json.Marshal(fast)
		b, err2 := json.Marshal(slow)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%q decodes to\n%s (%v), the SDK's\n%s (%v)", data, a, err1, b, err2)
		}
	})
}

// The one-pass decoding takes the common shapes and leaves the rest to the SDK: a test that
// it is used at all (the fuzz test alone passes if it never takes anything).
func TestDecodeTextResultTakes(t *testing.T) {
	for in, want := range map[string]bool{
		`{"content":[{"type":"text","text":"hi"}],"isError":true}`:              true,
		`{"content":[],"structuredContent":{"n":1},"_meta":{"a":[1]}}`:          true,
		`{"content":[{"type":"text","text":"x","annotations":{"priority":1}}]}`: false,
		`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`:   false,
		`{"Content":[{"type":"text","text":"x"}]}`:                              false,
		`{"content":[{"type":"text","text":"a","text":"b"}]}`:                   false,
	} {
		if _, ok := DecodeTextResult([]byte(in)); ok != want {
			t.Errorf("DecodeTextResult(%s) took it: %v, want %v", in, ok, want)
		}
	}
}
