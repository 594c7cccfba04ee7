package guest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/mcpwasm/mcpwasm/abi"
)

var jsonCases = []string{
	``, ` `, `{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1`, `-`, `01`, `1.`, `.5`, `1e`, `1e+`, `1E-2`, `1.5e3`,
	`"x"`, `"\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"\x01\"", `"a`, `{"a":1}`,
	`{"a" 1}`, `{"a":1,}`, `{,}`, `{"a":1 "b":2}`, `[1,]`, `[1 2]`, `[,1]`, `{"a":[1,{"b":null}],"c":"<>&\u2028"}`,
	`tru`, `trUe`, `fals`, `falsy`, `nul`, `nulL`, `{}x`, `{} x`, `1 2`, `"x"y`, `{"a":1}}`, `]`, `}`, `:`, `'a'`,
	" \t\r\n{ \"a\" : [ 1 , 2 ] }\n ", "{\"é\":\"\xff\"}", `{"a":"b"} `, "\xef\xbb\xbf{}", `[[[[]]]]`, `[[[[]]]`,
	`{"a":tx}`, `{"a":-x}`, `{"a":1.x}`, `{"a":1ex}`, `"\/\b\f\n\r\t\"\\"`, `{"<":"\u2029"}`, "\"\xe2\x80\xa8\"",
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// checkScan holds checkValid and appendCompact to encoding/json on data.
func checkScan(t *testing.T, data []byte) {
	t.Helper()
	var raw json.RawMessage
	if got, want := errText(checkValid(data)), errText(json.Unmarshal(data, &raw)); got != want {
		t.Fatalf("checkValid(%q) = %s, encoding/json says %s", data, got, want)
	}
	var buf bytes.Buffer
	wantErr := json.Compact(&buf, data)
	got, err := appendCompact([]byte("x"), data, false)
	if errText(err) != errText(wantErr) || err == nil && string(got) != "x"+buf.String() {
		t.Fatalf("appendCompact(%q) = %s, %v; json.Compact %s, %v", data, got, err, buf.String(), wantErr)
	}
	want, wantErr := json.Marshal(json.RawMessage(data))
	got, err = appendRaw(nil, data)
	if errText(err) != errText(wantErr) || err == nil && string(got) != string(want) {
		t.Fatalf("appendRaw(%q) = %s, %v; json.Marshal %s, %v", data, got, err, want, wantErr)
	}
}

func TestScan(t *testing.T) {
	for _, c := range jsonCases {
		checkScan(t, []byte(c))
	}
}

// FuzzScan: checkValid, appendCompact and appendRaw agree with encoding/json on every input.
func FuzzScan(f *testing.F) {
	for _, c := range jsonCases[:len(jsonCases)-2] {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkScan(t, data) })
}

var completeCases = []string{
	`{}`, `null`, `[]`, `"x"`, `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"v"}}`,
	`{"ref":{"type":"ref/resource","uri":"x://{y}"},"argument":{"name":"y","value":""},"context":{"arguments":{"a":"b","c":null}}}`,
	`{"ref":1}`, `{"ref":{"type":1}}`, `{"argument":{"value":true}}`, `{"context":{"arguments":{"a":1}}}`,
	`{"context":{"arguments":[]}}`, `{"context":null}`, `{"context":{"arguments":null}}`, `{"context":"x"}`,
	`{"REF":{"TYPE":"t","ſame":"x"}}`, `{"ref":{"type":"a\u0000b\ud800"}}`, `{"ref":{"type":"x"},"ref":{"name":"y"}}`,
	`{"unknown":[{"a":[1,"]"]}],"ref":{"type":"t"}}`, `{"ref":{"type":"t"}`, `{"argument":{"name":1.5,"value":2}}`,
}

// checkComplete decodes data as an abi.CompleteRequest and as map[string]string with
// decodeInto and with encoding/json.
func checkComplete(t *testing.T, data []byte) {
	t.Helper()
	var got, want abi.CompleteRequest
	gotErr, wantErr := decodeInto(data, completeRequestNode(), unsafe.Pointer(&got)), json.Unmarshal(data, &want)
	if errText(gotErr) != errText(wantErr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("decoding %q: %#v, %v; encoding/json %#v, %v", data, got, gotErr, want, wantErr)
	}
	var gm, wm map[string]string
	gotErr, wantErr = decodeInto(data, stringMapNode(), unsafe.Pointer(&gm)), json.Unmarshal(data, &wm)
	if errText(gotErr) != errText(wantErr) || !reflect.DeepEqual(gm, wm) {
		t.Fatalf("decoding %q into a map: %#v, %v; encoding/json %#v, %v", data, gm, gotErr, wm, wantErr)
	}
}

func TestDecodeRequests(t *testing.T) {
	for _, c := range append(completeCases, jsonCases[:len(jsonCases)-2]...) {
		checkComplete(t, []byte(c))
	}
	for _, c := range []string{`{"a":"b","c":"\u00e9"}`, `{"a":1}`, `{"a":{"b":"c"}}`, `{"a":null}`, `{"a":"x","a":"y"}`} {
		checkComplete(t, []byte(c))
	}
}

// FuzzDecodeRequests: decodeInto agrees with encoding/json on abi.CompleteRequest and on
// map[string]string (prompt arguments) for every input.
func FuzzDecodeRequests(f *testing.F) {
	for _, c := range completeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkComplete(t, data) })
}

// checkDecodeValue holds DecodeJSONValue to a json.Decoder with UseNumber: the same value,
// the same offset, and the same error text.
func checkDecodeValue(t *testing.T, data []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var want any
	wantErr := dec.Decode(&want)
	got, n, err := DecodeJSONValue(data)
	if errText(err) != errText(wantErr) {
		t.Fatalf("DecodeJSONValue(%q) error %v, json.Decoder %v", data, err, wantErr)
	}
	if wantErr == nil && (!reflect.DeepEqual(got, want) || int64(n) != dec.InputOffset()) {
		t.Fatalf("DecodeJSONValue(%q) = %#v, %d; json.Decoder %#v, %d", data, got, n, want, dec.InputOffset())
	}
}

func TestDecodeJSONValue(t *testing.T) {
	for _, c := range append(jsonCases, completeCases...) {
		checkDecodeValue(t, []byte(c))
	}
	for _, c := range []string{`"a"]`, `"a\"b"x`, `1]`, `{}}`, `[] `, ` 12 `, `-1.5e3,`, `true false`, `nullx`, `{"a":1,"a":2}`} {
		checkDecodeValue(t, []byte(c))
	}
}

// FuzzDecodeJSONValue: DecodeJSONValue and json.Decoder agree on every input.
func FuzzDecodeJSONValue(f *testing.F) {
	for _, c := range jsonCases[:len(jsonCases)-2] {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkDecodeValue(t, data) })
}
