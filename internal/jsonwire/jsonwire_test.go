package jsonwire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// FuzzWalk holds the in-place reading to encoding/json: for valid JSON, ForEachMember gives
// the members json.Unmarshal finds (keys decoded by DecodeString, values byte for byte, in
// order) and ForEachElement the elements.
func FuzzWalk(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[1,{"c":"}"}],"\u0064":"\"","e":{}}`, ` { "a" : [ ] , "b" : null } `, `{}`, `[]`,
		`[1, "two", {"3":[4]}, [], null, true, -0.5e3]`, `["\\", "\"]"]`, `{"é":"ü","":""}`, `"s"`, `7`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var got []json.RawMessage
		switch Kind(TrimWS(b)) {
		case '{':
			var want []json.RawMessage
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			dec.Token()
			for dec.More() {
				k, _ := dec.Token()
				var v json.RawMessage
				dec.Decode(&v)
				kb, _ := json.Marshal(k)
				want = append(want, kb, v)
			}
			ForEachMember(b, func(key []byte, vs, ve int) {
				s, ok := DecodeString(key)
				if !ok {
					t.Fatalf("key %s does not decode", key)
				}
				kb, _ := json.Marshal(s)
				got = append(got, kb, json.RawMessage(b[vs:ve]))
			})
			compare(t, b, got, want)
		case '[':
			var want []json.RawMessage
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			ForEachElement(b, func(vs, ve int) { got = append(got, json.RawMessage(b[vs:ve])) })
			compare(t, b, got, want)
		}
	})
}

func compare(t *testing.T, b []byte, got, want []json.RawMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: read %d parts %q, encoding/json %d %q", b, len(got), got, len(want), want)
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s: part %d is %s, encoding/json's %s", b, i, got[i], want[i])
		}
	}
}

// DuplicateKey names the first repeated key at any depth with its path; keys compare decoded.
func TestDuplicateKey(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"b":2}`:                                         "",
		`{"a":{"a":1},"b":[{"a":1},{"a":2}]}`:                   "",
		`{"isError":true,"isError":false}`:                      `isError: "isError"`,
		`{"structuredContent":{"n":"x","n":1}}`:                 `structuredContent.n: "n"`,
		`{"content":[{"type":"text"},{"text":"a","text":"b"}]}`: `content[1].text: "text"`,
		`[[1],[{"a":{"b":1,"\u0062":2}}]]`:                      `[1][0].a.b: "b"`,
		`{"a":{},"b":1,"b":2}`:                                  `b: "b"`,
		`{"k01":0,"k02":0,"k03":0,"k04":0,"k05":0,"k06":0,"k07":0,"k08":0,"k09":0,"k10":0,"k11":0,"k12":0,"k13":0,"k14":0,"k15":0,"k16":0,"k17":0,"k03":1}`: `k03: "k03"`,
		"{\"\xff\":1,\"\xfe\":2}": "\ufffd: \"\ufffd\"",
		` { "a" : [ 1 , { "x" : 1 , "y" : { } } ] , "b" : "}" , "c" : 0 } `: "",
	} {
		path, key, found := DuplicateKey([]byte(in))
		got := ""
		if found {
			got = fmt.Sprintf("%s: %q", path, key)
		}
		if got != want {
			t.Errorf("DuplicateKey(%s) = %s, want %s", in, got, want)
		}
	}
}

// FuzzDuplicateKey holds DuplicateKey to a reference built on encoding/json's tokenizer: for
// valid JSON, it finds a duplicate exactly when some object repeats a decoded key, and then the
// first one in document order.
func FuzzDuplicateKey(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[{"c":1,"c":2}]}}`, `{"a":1,"\u0061":2}`, `[{"a":1},{"a":1}]`,
		`{"a":{},"b":1,"b":2}`, `{"a":{"x":[]},"b":[{"b":1}],"c":{"c":{"c":1}}}`,
		`{"k01":0,"k02":0,"k03":0,"k04":0,"k05":0,"k06":0,"k07":0,"k08":0,"k09":0,"k10":0,"k11":0,"k12":0,"k13":0,"k14":0,"k15":0,"k16":0,"k17":0,"k17":1}`,
		"{\"\xff\":1,\"\xfe\":2}", `"s"`, `1`, `{}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		_, key, found := DuplicateKey(data)
		wantKey, wantFound := refDuplicate(data)
		if found != wantFound || key != wantKey {
			t.Errorf("DuplicateKey(%q) = %q %v, want %q %v", data, key, found, wantKey, wantFound)
		}
	})
}

// refDuplicate is the first repeated key in document order, by encoding/json's tokens.
func refDuplicate(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj    bool
		keys   map[string]bool
		expect bool // the next token in this object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.expect {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return "", false
				}
				if stack[len(stack)-1].obj {
					stack[len(stack)-1].expect = true
				}
				continue
			}
			k := tok.(string)
			if top.keys[k] {
				return k, true
			}
			top.keys[k] = true
			top.expect = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, expect: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// a value ended: the enclosing object (if any) expects a key next
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].expect = true
		}
		if len(stack) == 0 {
			return "", false
		}
	}
}

// Compacted holds to json.Compact: true exactly when Compact leaves valid JSON unchanged.
func FuzzCompacted(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a": 1}`, `"a b"`, `["\" ",1]`, "[1,\n2]", `"\\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var b bytes.Buffer
		if err := json.Compact(&b, data); err != nil {
			t.Fatal(err)
		}
		if want := bytes.Equal(b.Bytes(), data); Compacted(data) != want {
			t.Errorf("Compacted(%q) = %v, want %v", data, !want, want)
		}
	})
}
