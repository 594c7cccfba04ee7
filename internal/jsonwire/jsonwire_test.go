package jsonwire

import (
	"bytes"
	"encoding/json"
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
