package exactjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/internal/jsonwire"
)

func TestDecodeToolResultKeepsNumbers(t *testing.T) {
	in := `{"content":[{"type":"text","text":"t","_meta":{"k":9007199254740993,"b":1e400}},{"type":"resource","resource":{"uri":"x://","text":"t","_meta":{"r":12345678901234567890}}}],"structuredContent":{"n":9007199254740993,"e":1e400,"f":1.0000000000000000001},"_meta":{"k":[12345678901234567890]},"isError":false}`
	res, err := DecodeToolResult([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"structuredContent":{"n":9007199254740993,"e":1e400,"f":1.0000000000000000001}`, `"_meta":{"k":[12345678901234567890]}`,
		`"_meta":{"b":1e400,"k":9007199254740993}`, `"_meta":{"r":12345678901234567890}`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("re-encoded result %s lacks %s", out, want)
		}
	}
}

// FuzzDecodeToolResult: decoding a CallToolResult (a guest's or an upstream's) never panics,
// takes exactly what Check takes (no repeated key anywhere; no refusal left to the SDK's less
// readable errors), what decodes re-encodes as UTF-8, and with structuredContent exactly as given (compacted, HTML
// characters escaped as encoding/json does): no number is changed.
func FuzzDecodeToolResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[],"structuredContent":{"n":9007199254740993}}`,
		`{"content":[{"type":"text","text":"x"}],"structuredContent":[1e400,-0,0.1e-999],"isError":true}`,
		`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"_meta":{"a":{"b":1e400}}}`,
		`{"structuredContent":null,"_meta":null}`, `null`, `{"content":[{"type":"nope"}]}`, `{"structuredContent":"s"}`,
		`{"content":[{"type":"resource","resource":{"uri":"x://","text":"t"}}],"structuredContent":{"a":{"a":{"a":[]}}}}`,
		`{"content":[{"type":"text","text":"a","_meta":{"k":9007199254740993,"e":1e400}}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"x://","blob":"AA==","_meta":{"b":1e400}},"_meta":{}}]}`,
		`{"content":[],"structuredContent":{"n":1,"n":2}}`, `{"isError":true,"isError":false}`, `{"content":[{"type":"video","data":"x"}]}`,
		`{"content":[{"type":"resource_link","uri":"u","name":"n","size":1.5,"icons":[{"src":"s","sizes":["1x1"]}]}]}`,
		`{"content":[{"type":"text","text":"x","annotations":{"priority":1e400,"audience":["robot"]}}]}`,
		`{"resultType":5}`, `{"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`, `{"content":[{"type":"text","text":"x","annotations":{"priority":0.5,"audience":["user"],"lastModified":"2025"}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := DecodeToolResult(data)
		if err != nil {
			if Check(data) == nil {
				t.Fatalf("Check takes %q, the decoding refuses it: %v", data, err)
			}
			return
		}
		if err := Check(data); err != nil {
			t.Fatalf("DecodeToolResult took %q, Check refuses it: %v", data, err)
		}
		if _, _, dup := jsonwire.DuplicateKey(data); dup {
			t.Fatalf("DecodeToolResult took %q, which repeats a key", data)
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
		if !utf8.Valid(out) {
			t.Fatalf("%q re-encodes as %q, not UTF-8", data, out)
		}
		if sc == nil {
			return
		}
		var compact, want bytes.Buffer // encoding/json escapes <, > and & in what it marshals
		if err := json.Compact(&compact, sc); err != nil {
			t.Fatal(err)
		}
		json.HTMLEscape(&want, ValidUTF8(compact.Bytes()))
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
		`{"content":[],"structuredContent":{"n":1,"n":2}}`:                      false,
		`{"content":[],"_meta":{"a":{"b":1,"b":2}}}`:                            false,
		`{"content":[],"structuredContent":{"n":1,"m":{"n":2}}}`:                true,
	} {
		if _, ok := DecodeTextResult([]byte(in)); ok != want {
			t.Errorf("DecodeTextResult(%s) took it: %v, want %v", in, ok, want)
		}
	}
}

// Check's reasons, each for the smallest input that shows it (the end-to-end cases are in
// mcpserver's TestResultRefusedReadably).
func TestCheck(t *testing.T) {
	for in, want := range map[string]string{
		`{"content":[{"type":"text","text":"a"}]}`: "",
		`{}`: "",
		`{"content":null,"isError":null,"_meta":null}`:                         "",
		`{"content":[{"type":"text","text":"a","extra":{"x":1e400}}],"x":[1]}`: "",
		`{"content":[{"type":"video","data":"x"}]}`:                            `content[0]: unknown type "video"`,
		`{"content":[{"type":"text","text":42}]}`:                              `content[0].text: a number, want a string`,
		`{"isError":"true"}`:                                                   `isError: a string, want true or false`,
		`42`:                                                                   `the result is a number, want an object`,
		`"s"`:                                                                  `the result is a string, want an object`,
		`{"a":1,"a":2}`:                                                        `a: duplicate key "a"`,
		`{"content":[{"type":"resource_link","uri":"u","name":"n","icons":[{"src":1}]}]}`:         `content[0].icons[0].src: a number, want a string`,
		`{"content":[{"type":"resource_link","uri":"u","name":"n","icons":[{"sizes":[1]}]}]}`:     `content[0].icons[0]: src is missing`,
		`{"content":[{"type":"resource_link","uri":"u","name":"n","size":99999999999999999999}]}`: `content[0].size: 99999999999999999999, want an integer`,
		`{"content":[{"type":"resource","resource":{"uri":"u","text":"t","_meta":1}}]}`:           `content[0].resource._meta: a number, want an object`,
		`{"content":[{"type":"text","text":"x","annotations":{"lastModified":1}}]}`:               `content[0].annotations.lastModified: a number, want a string`,
		`{"content":[{"type":"text","text":"x","annotations":{"priority":-0.5}}]}`:                `content[0].annotations.priority: -0.5, want a number from 0 to 1`,
		`{"content":[{"type":"text","text":"x","annotations":[]}]}`:                               `content[0].annotations: an array, want an object`,
		`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`:                     "",
	} {
		got := ""
		if err := Check([]byte(in)); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("Check(%s) = %q, want %q", in, got, want)
		}
	}
	if err := Check([]byte(`{"content":[}`)); err == nil || !strings.HasPrefix(err.Error(), "the result is not JSON: ") {
		t.Errorf("Check of broken JSON = %v", err)
	}
}

// A member the SDK does not read is dropped before its decoding, so the SDK's nesting limit
// (1000) cannot refuse a result Check took (found by FuzzDecodeToolResult's Check invariant).
func TestDeepUnknownMemberDropped(t *testing.T) {
	in := `{"content":[{"type":"text","text":"a","x":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}],"x":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`
	res, err := DecodeToolResult([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := json.Marshal(res); string(out) != `{"content":[{"type":"text","text":"a"}]}` {
		t.Errorf("decoded %s", out)
	}
}

// Bytes that are not UTF-8 become U+FFFD everywhere — in decoded fields (the SDK's doing) and in
// the raw members too, so the result sent on is UTF-8 (RFC 8259 §8.1); a lone surrogate escape
// stays as written in a raw member (it is ASCII) and becomes U+FFFD in a decoded one.
func TestInvalidUTF8(t *testing.T) {
	in := "{\"content\":[{\"type\":\"text\",\"text\":\"a\xffb\\ud800\",\"_meta\":{\"m\":\"\xfe\"}}],\"structuredContent\":{\"s\":\"a\xff\xffb\\ud800\"},\"_meta\":{\"m\":[\"\xc3\"]}}"
	res, err := DecodeToolResult([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"_meta":{"m":["\ufffd"]},"content":[{"type":"text","text":"a\ufffdb\ufffd","_meta":{"m":"\ufffd"}}],"structuredContent":{"s":"a\ufffd\ufffdb\ud800"}}`
	want = strings.ReplaceAll(want, `\ufffd`, "\ufffd")
	if string(out) != want {
		t.Errorf("re-encoded\n%q\nwant\n%q", out, want)
	}
}

// What ABI.md §5 says is dropped: members the schema does not define, case-sensitively, and a
// block's members of other types; null is absent.
func TestDropped(t *testing.T) {
	for in, want := range map[string]string{
		`{}`:                              `{"content":[]}`,
		`{"content":null,"isError":null}`: `{"content":[]}`,
		`{"Content":[{"type":"text","text":"x"}]}`:                          `{"content":[]}`,
		`{"content":[],"extra":1,"IsError":true}`:                           `{"content":[]}`,
		`{"content":[{"type":"text","text":"\u00e9","data":"!!","uri":5}]}`: `{"content":[{"type":"text","text":"é"}]}`,
	} {
		res, err := DecodeToolResult([]byte(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if out, _ := json.Marshal(res); string(out) != want {
			t.Errorf("%s decodes to %s, want %s", in, out, want)
		}
	}
}
