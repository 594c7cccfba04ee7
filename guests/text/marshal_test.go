package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// reflectJSON encodes v as the SDK's encoding/json fallback does: no HTML escaping.
func reflectJSON(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// TestMarshalJSON: RegexOut and JSONQueryOut encode themselves exactly as encoding/json
// encoded them by reflection before they had the methods.
func TestMarshalJSON(t *testing.T) {
	type plainRegexOut struct {
		Matched   bool    `json:"matched"`
		Matches   []Match `json:"matches"`
		Truncated bool    `json:"truncated"`
	}
	type plainJSONQueryOut struct {
		Value any `json:"value"`
	}
	odd := "a<b>&\"\\\n\u2028é\xff"
	for _, o := range []RegexOut{{}, {Matches: []Match{}}, {Matched: true, Truncated: true,
		Matches: []Match{{Match: odd, Index: 3, Groups: []*string{nil, &odd}}, {Groups: []*string{}}, {}}}} {
		got, err := o.MarshalJSON()
		if want := reflectJSON(t, plainRegexOut(o)); err != nil || string(got) != want {
			t.Errorf("RegexOut.MarshalJSON = %s, %v; want %s", got, err, want)
		}
	}
	for _, doc := range []string{`null`, `true`, `1.50e3`, `"` + odd + `"`, `[]`, `{}`, `[1,[2,{"b":1,"a":[null,false]}]]`,
		`{"z":1,"é":2,"A":3,"a":{"y":"<","x":"\u2029"},"":0}`} {
		v, _, err := decodeDoc(doc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := JSONQueryOut{Value: v}.MarshalJSON()
		if want := reflectJSON(t, plainJSONQueryOut{Value: v}); err != nil || string(got) != want {
			t.Errorf("JSONQueryOut.MarshalJSON of %s = %s, %v; want %s", doc, got, err, want)
		}
	}
}

// decodeDoc decodes doc as json_query did before it had its own reader.
func decodeDoc(doc string) (any, int64, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, dec.InputOffset(), err
}
