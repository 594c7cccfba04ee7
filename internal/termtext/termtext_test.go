package termtext_test

import (
	"bytes"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/termtext"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\n\ttab, ünïcödé, 👩\u200d💻, فارسی\u200cها", "plain text\n\ttab, ünïcödé, 👩\u200d💻, فارسی\u200cها"},
		{"before\x1b[2J\x1b]0;PWNED\x07\x1b[31mred\u202eevil", `before\x1b[2J\x1b]0;PWNED\x07\x1b[31mred\u202eevil`},
		{"a\rb\x00c\x7fd", `a\x0db\x00c\x7fd`},
		{"\u009b31m \u0085", `\u009b31m \u0085`},
		{"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069", `\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069`},
		{"\u200e\u2029\u2065\u206a", "\u200e\u2029\u2065\u206a"}, // around the ranges: not controls
		{"bad \xff\x9b byte", `bad \xff\x9b byte`},
		{`back\slash`, `back\slash`},
	} {
		if got := termtext.Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := termtext.Writer{W: &b}
	in := "x\x1b[2Jy\n"
	n, err := w.Write([]byte(in))
	if err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(in))
	}
	if got, want := b.String(), `x\x1b[2Jy`+"\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
