package guest

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/abi"
)

// reference encodes v as the SDK always did: encoding/json without HTML escaping.
func reference(t testing.TB, v any) string {
	t.Helper()
	b, err := marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var stringCases = []string{
	"", "a", "hello, world", `"`, `\`, `a"b\c`, "<>&", "\x00", "\x1f", "\x7f", " ~",
	"\b\f\n\r\t", "\u2028\u2029", "x\u2028y\u2029z", "é", "日本語", "🙂", "\U0010FFFF", "\uFFFD",
	"\xff", "\xc3", "\xc3(", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf",
	"abcdefgh", "abcdefg\"", "abcdefghi\x01", "0123456789abcdef\\", "\x80abcdefgh",
	strings.Repeat("a", 1000), strings.Repeat("ab\"cd\\ef\n", 50), strings.Repeat("é\xff", 20),
}

// TestAppendString compares appendString with encoding/json byte for byte.
func TestAppendString(t *testing.T) {
	for _, s := range stringCases {
		if got, want := string(appendString(nil, s)), reference(t, s); got != want {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
	// Every byte value, alone and at every position within an 8-byte word.
	for c := range 256 {
		for pos := range 9 {
			s := strings.Repeat("a", pos) + string(rune(c)) + strings.Repeat("b", 9-pos)
			s2 := strings.Repeat("a", pos) + string([]byte{byte(c)}) + strings.Repeat("b", 9-pos)
			for _, s := range []string{s, s2} {
				if got, want := string(appendString(nil, s)), reference(t, s); got != want {
					t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
				}
			}
		}
	}
	// It appends: what dst held stays.
	if got := string(appendString([]byte("x:"), "y")); got != `x:"y"` {
		t.Errorf(`appendString("x:", "y") = %s, want x:"y"`, got)
	}
}

// FuzzAppendString: appendString and encoding/json agree on every input, valid UTF-8 or not.
func FuzzAppendString(f *testing.F) {
	for _, s := range stringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		if want := reference(t, s); string(got) != want {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
		if !utf8.Valid(got) || !json.Valid(got) {
			t.Fatalf("appendString(%q) = %q: not valid UTF-8 JSON", s, got)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("appendString(%q) does not decode: %v", s, err)
		}
	})
}

// TestPlain8 checks the word-at-a-time test against the byte table for every byte at every
// position.
func TestPlain8(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			w := []byte("abcdefgh")
			w[pos] = byte(c)
			want := c < utf8.RuneSelf && plain[c]
			if got := plain8(load8(string(w), 0)); got != want {
				t.Errorf("plain8(%q) = %v, want %v", w, got, want)
			}
		}
	}
}

// TestContentFields fails when abi.Content gains a field appendContent does not encode.
func TestContentFields(t *testing.T) {
	var names []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[abi.Content]()) {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "Type,Text,Data,MIMEType,URI,Name,Resource" {
		t.Errorf("abi.Content fields are %s: update appendContent (encode.go) and this test", got)
	}
}

// TestAppendResult compares appendResult with encoding/json on results of every shape.
func TestAppendResult(t *testing.T) {
	results := []*abi.Result{
		{Content: []abi.Content{}},
		abi.TextResult(""),
		abi.TextResult("98"),
		abi.TextResult("a <b> & \"c\"\n\x01\xff\u2028"),
		abi.ErrorResult("division by zero"),
		{Content: []abi.Content{{Type: "resource", Resource: &abi.ResourceContents{URI: "test://x", MIMEType: "text/plain", Text: "a <b>"}}}},
		{Content: []abi.Content{}, StructuredContent: json.RawMessage(`{"text":"x"}`)},
		{Content: []abi.Content{{Type: "text", Text: `{"value":98}`}}, StructuredContent: json.RawMessage(`{"value":98}`), IsError: true},
		{Content: []abi.Content{
			{Type: "image", Data: []byte{0, 1, 2, 250, 251, 252, 253}, MIMEType: "image/png"},
			{Type: "audio", Data: []byte("x"), MIMEType: "audio/wav"},
			{Type: "image", Data: []byte{}},
			{Type: "resource_link", URI: "file:///a\"b", Name: "a<b>", MIMEType: "text/plain"},
			{Type: "text"},
			{Type: "other", Text: "t"},
			{Type: "\x00\xff"},
		}},
	}
	for _, r := range results {
		got := string(appendResult(nil, r))
		if want := reference(t, r); !sameJSON(t, got, want) {
			t.Errorf("appendResult(%+v) =\n%s\nwant (as JSON)\n%s", r, got, want)
		}
	}
}

// sameJSON reports whether got encodes the same value as want, byte for byte unless want
// holds HTML escapes: abi.Content's MarshalJSON escapes <, > and & in text blocks (it calls
// json.Marshal), appendResult does not, as the SDK's marshal always intended.
func sameJSON(t *testing.T, got, want string) bool {
	t.Helper()
	if !strings.Contains(want, `\u003c`) && !strings.Contains(want, `\u003e`) && !strings.Contains(want, `\u0026`) {
		return got == want
	}
	var x, y any
	if err := json.Unmarshal([]byte(got), &x); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &y); err != nil {
		t.Fatalf("%s: %v", want, err)
	}
	return reflect.DeepEqual(x, y)
}

var sink []byte

func BenchmarkAppendString(b *testing.B) {
	for _, n := range []int{100, 10 << 10, 1 << 20} {
		s := strings.Repeat("a", n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				sink = appendString(sink[:0], s)
			}
		})
	}
}
