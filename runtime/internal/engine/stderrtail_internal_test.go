package engine

import (
	"io"
	"log/slog"
	"testing"
)

// TestStderrTail: a whole server's exit error quotes what names the cause. A Go program given
// a flag it does not define writes the cause first and then a usage of one line per flag; a
// panic after the server has logged for a while writes "panic: …" and then its goroutine
// dump. Both used to be quoted by their last three lines only, which leave the cause out.
func TestStderrTail(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"a bad flag", "flag provided but not defined: -nope\nUsage of hello:\n  -name string\n    \twho to greet\n  -verbose\n    \tlog each call to stderr\n",
			"; it wrote: flag provided but not defined: -nope | Usage of hello: |   -name string |     \twho to greet |   -verbose |     \tlog each call to stderr"},
		{"a panic after logging", "serving\ncall 1\ncall 2\ncall 3\npanic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x2\ncreated by x\n\t/src/x.go:3\nexit status 2\n",
			"; it wrote: panic: boom | goroutine 1 [running]: | main.main() | … (1 lines) … | created by x | \t/src/x.go:3 | exit status 2"},
		{"three lines", "a\nb\nc", "; it wrote: a | b | c"},
		{"nothing", "", ""},
	} {
		l := &stderrLog{logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		_, _ = l.Write([]byte(c.in))
		l.flush()
		if got := l.tail(); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
