package engine

import (
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
)

// trapLine picks the line that explains a trap from a Rust panic, a Go panic and plain text.
func TestTrapLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"working\n\n", "working"},
		{"thread 'main' panicked at src/lib.rs:12:9:\ncalled `Option::unwrap()` on a `None` value\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
			"thread 'main' panicked at src/lib.rs:12:9: called `Option::unwrap()` on a `None` value"},
		{"thread '<unnamed>' panicked at 'boom', src/lib.rs:3:5\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
			"thread '<unnamed>' panicked at 'boom', src/lib.rs:3:5"},
		{"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:9 +0x2\n", "panic: boom"},
	} {
		if got := trapLine(c.in); got != c.want {
			t.Errorf("trapLine(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

// An output buffer that dropped bytes still has the end of what was written: a panic after
// 64 KiB of chatter is not lost.
func TestOutputBufferSinceAfterTruncation(t *testing.T) {
	b := &sandbox.OutputBuffer{Limit: 16}
	b.Write([]byte("start\n"))
	mark := b.Written()
	b.Write([]byte(strings.Repeat("x", 5000) + "\n"))
	b.Write([]byte("panic: late\n"))
	if got := trapLine(b.Since(mark)); got != "panic: late" {
		t.Errorf("after truncation: %q; want %q", got, "panic: late")
	}
	b.Reset()
	b.Write([]byte("a\n"))
	mark = b.Written()
	if got := b.Since(mark); got != "" {
		t.Errorf("Since(now) = %q; want empty", got)
	}
	b.Write([]byte("b\n"))
	if got := b.Since(mark); got != "b\n" {
		t.Errorf("Since = %q; want %q", got, "b\n")
	}
}
