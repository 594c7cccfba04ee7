package guests_test

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/guests"
	"github.com/mcpwasm/mcpwasm/runtime"
)

// TestBundledCalcAnswers checks, byte for byte, what the bundled calc module answers to
// calls, a resource read and prompts — including argument escapes and the errors users see.
// calc is built with -tags mcpwasm_nojson (build.sh), so this is the SDK's own JSON code at
// work in a real module; every expected text is what the module built with encoding/json
// answered.
func TestBundledCalcAnswers(t *testing.T) {
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	g, err := h.Load(ctx, guests.Default()[0].Wasm, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ kind, name, args, want string }{
		{"call", "calc", `{"expression":"2*(3+4)^2"}`, `{"content":[{"type":"text","text":"{\"value\":98}"}],"structuredContent":{"value":98}}`},
		{"call", "calc", `{"expression":"1\u002b2"}`, `{"content":[{"type":"text","text":"{\"value\":3}"}],"structuredContent":{"value":3}}`},
		{"call", "calc", ` { "expression" : "0.1+0.2" } `, `{"content":[{"type":"text","text":"{\"value\":0.30000000000000004}"}],"structuredContent":{"value":0.30000000000000004}}`},
		{"call", "calc", `{"expression":"1/0"}`, `{"content":[{"type":"text","text":"division by zero"}],"isError":true}`},
		{"call", "calc", `{"expression":"\u00e9"}`, `{"content":[{"type":"text","text":"unexpected 'é' at offset 0"}],"isError":true}`},
		{"call", "calc", `{"expression":"1e308*10"}`, `{"content":[{"type":"text","text":"result of \"*\" at offset 5 is not a finite number"}],"isError":true}`},
		{"read", "calc://nope", "", `{"error":"resource not found: calc://nope","code":-32002}`},
		{"prompt", "explain", `{"expression":"2^10","x":"y"}`, `{"messages":[{"role":"user","content":{"type":"text","text":"Explain step by step, following operator precedence, how 2^10 evaluates. The calculator's result is 1024."}}]}`},
		{"prompt", "explain", `{"expression":"1<2"}`, `{"error":"invalid arguments: unexpected '<' at offset 1","code":-32602}`},
		{"prompt", "explain", `{}`, `{"error":"invalid arguments: expression is empty","code":-32602}`},
		{"prompt", "nope", `{}`, `{"error":"invalid arguments: unknown prompt \"nope\"","code":-32602}`},
	} {
		var got []byte
		switch c.kind {
		case "call":
			got, err = g.Call(ctx, c.name, []byte(c.args))
		case "read":
			got, err = g.ReadResource(ctx, c.name)
		case "prompt":
			got, err = g.GetPrompt(ctx, c.name, []byte(c.args))
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s %s %s =\n%s, %v\nwant\n%s", c.kind, c.name, c.args, got, err, c.want)
		}
	}
	got, err := g.ReadResource(ctx, "calc://reference")
	if want := `{"contents":[{"uri":"calc://reference","mimeType":"text/markdown","text":"# calc expression language\n\nnumbers      42, 3.5, 1e3, .5\n`; err != nil || len(got) < len(want) || string(got[:len(want)]) != want {
		t.Errorf("read calc://reference = %.120s, %v", got, err)
	}
}

// TestBundledTextAnswers checks, byte for byte, what the bundled text module answers —
// built with -tags mcpwasm_nojson, its own SHA-256 and its own JSON reader and encoders —
// against what the module built with encoding/json and crypto/sha256 answered.
func TestBundledTextAnswers(t *testing.T) {
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	g, err := h.Load(ctx, guests.Default()[1].Wasm, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ kind, name, args, want string }{
		{"call", "sha256", `{"text":"héllo"}`, `{"content":[{"type":"text","text":"{\"hex\":\"3c48591d8d098a4538f5e013dfcf406e948eac4d3277b10bf614e295d6068179\"}"}],"structuredContent":{"hex":"3c48591d8d098a4538f5e013dfcf406e948eac4d3277b10bf614e295d6068179"}}`},
		{"call", "sha256", `{"text":""}`, `{"content":[{"type":"text","text":"{\"hex\":\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}"}],"structuredContent":{"hex":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}}`},
		{"call", "sha256", `{"text":"a\u0000b\ud800x"}`, `{"content":[{"type":"text","text":"{\"hex\":\"0b689be3967f09bc453927aabdf29020d84f246224060072a0a45ca60111b9f9\"}"}],"structuredContent":{"hex":"0b689be3967f09bc453927aabdf29020d84f246224060072a0a45ca60111b9f9"}}`},
		{"call", "base64_encode", `{"text":"<a&b>","url":true}`, `{"content":[{"type":"text","text":"{\"base64\":\"PGEmYj4=\"}"}],"structuredContent":{"base64":"PGEmYj4="}}`},
		{"call", "base64_decode", `{"base64":"PGEmYj4"}`, `{"content":[{"type":"text","text":"{\"text\":\"<a&b>\"}"}],"structuredContent":{"text":"<a&b>"}}`},
		{"call", "base64_decode", `{"base64":"!!"}`, `{"content":[{"type":"text","text":"invalid base64 at byte 0"}],"isError":true}`},
		{"call", "base64_decode", `{"base64":"/w=="}`, `{"content":[{"type":"text","text":"decoded bytes are not valid UTF-8"}],"isError":true}`},
		{"call", "regex_match", `{"pattern":"(a)(x)?","text":"<a> a","all":true}`, `{"content":[{"type":"text","text":"{\"matched\":true,\"matches\":[{\"match\":\"a\",\"index\":1,\"groups\":[\"a\",null]},{\"match\":\"a\",\"index\":4,\"groups\":[\"a\",null]}],\"truncated\":false}"}],"structuredContent":{"matched":true,"matches":[{"match":"a","index":1,"groups":["a",null]},{"match":"a","index":4,"groups":["a",null]}],"truncated":false}}`},
		{"call", "regex_match", `{"pattern":"(","text":"x"}`, "{\"content\":[{\"type\":\"text\",\"text\":\"invalid pattern \\\"(\\\": missing closing ): `(`\"}],\"isError\":true}"},
		{"call", "regex_match", `{"pattern":"z","text":"x"}`, `{"content":[{"type":"text","text":"{\"matched\":false,\"matches\":[],\"truncated\":false}"}],"structuredContent":{"matched":false,"matches":[],"truncated":false}}`},
		{"call", "regex_match", `{"pattern":"\\p{Greek}+","text":"abc αβγ"}`, `{"content":[{"type":"text","text":"{\"matched\":true,\"matches\":[{\"match\":\"αβγ\",\"index\":4,\"groups\":[]}],\"truncated\":false}"}],"structuredContent":{"matched":true,"matches":[{"match":"αβγ","index":4,"groups":[]}],"truncated":false}}`},
		{"call", "count", `{"text":"a b\nc\u2028 d\n"}`, `{"content":[{"type":"text","text":"{\"bytes\":11,\"runes\":9,\"words\":4,\"lines\":2}"}],"structuredContent":{"bytes":11,"runes":9,"words":4,"lines":2}}`},
		{"call", "json_query", `{"json":"{\"a\":[1,{\"b\":\"<x>\"}],\"c\":1e400}","path":"a[1]"}`, `{"content":[{"type":"text","text":"{\"value\":{\"b\":\"<x>\"}}"}],"structuredContent":{"value":{"b":"<x>"}}}`},
		{"call", "json_query", `{"json":"{\"a\":[1,{\"b\":\"<x>\"}],\"c\":12345678901234567890}","path":"$"}`, `{"content":[{"type":"text","text":"{\"value\":{\"a\":[1,{\"b\":\"<x>\"}],\"c\":12345678901234567890}}"}],"structuredContent":{"value":{"a":[1,{"b":"<x>"}],"c":12345678901234567890}}}`},
		{"call", "json_query", `{"json":"{\"a\":1","path":"a"}`, `{"content":[{"type":"text","text":"invalid JSON: unexpected EOF"}],"isError":true}`},
		{"call", "json_query", `{"json":"","path":"a"}`, `{"content":[{"type":"text","text":"invalid JSON: EOF"}],"isError":true}`},
		{"call", "json_query", `{"json":"{a:1}","path":"a"}`, `{"content":[{"type":"text","text":"invalid JSON: invalid character 'a' looking for beginning of object key string"}],"isError":true}`},
		{"call", "json_query", `{"json":"{\"a\":1} x","path":"a"}`, `{"content":[{"type":"text","text":"invalid JSON: data after the top-level value"}],"isError":true}`},
		{"call", "json_query", `{"json":"[1]","path":"[5]"}`, `{"content":[{"type":"text","text":"path segment [5]: index out of range at $ (length 1)"}],"isError":true}`},
		{"call", "json_query", `{"json":"{\"x.y\":{\"z\":null}}","path":"$[\"x.y\"].z"}`, `{"content":[{"type":"text","text":"{\"value\":null}"}],"structuredContent":{"value":null}}`},
		{"call", "json_query", `{"json":"{}","path":"$[\"x"}`, `{"content":[{"type":"text","text":"invalid path \"$[\\\"x\" at offset 2: invalid quoted key"}],"isError":true}`},
		{"call", "json_query", `{"json":"{}","path":"a..b"}`, `{"content":[{"type":"text","text":"invalid path \"a..b\" at offset 2: expected a key after \".\""}],"isError":true}`},
		{"call", "json_query", `{"json":"{}","path":"[+1]"}`, `{"content":[{"type":"text","text":"invalid path \"[+1]\" at offset 1: invalid index \"+1\" (want an integer or a quoted key)"}],"isError":true}`},
		{"call", "json_query", `{"json":"1","path":"a"}`, `{"content":[{"type":"text","text":"path segment .a: $ is a number, not an object"}],"isError":true}`},
		{"call", "json_query", `{"json":"{\"a\":\"\\ud800\"}","path":"a"}`, `{"content":[{"type":"text","text":"{\"value\":\"�\"}"}],"structuredContent":{"value":"�"}}`},
		{"call", "json_query", `{"json":"[tru]","path":"$"}`, `{"content":[{"type":"text","text":"invalid JSON: invalid character ']' in literal true (expecting 'e')"}],"isError":true}`},
		{"call", "echo", `{"text":"<>&\u2028"}`, `{"content":[{"type":"text","text":"<>&\u2028"}]}`},
	} {
		got, err := g.Call(ctx, c.name, []byte(c.args))
		if err != nil || string(got) != c.want {
			t.Errorf("%s %s =\n%s, %v\nwant\n%s", c.name, c.args, got, err, c.want)
		}
	}
}
