package quickjs

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	js "github.com/mcpwasm/mcpwasm/abi/js"
)

// A line server on process.stdin/stdout as a whole server writes it: it answers each line,
// and for "later" writes again from a timer with no input pending.
const lineServer = `
process.stdin.setEncoding("utf8");
let buf = "";
process.stdin.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (line === "loop") for (;;) {}
    if (line === "exit") process.exit(3);
    if (line === "later") setTimeout(() => process.stdout.write("late\n"), 30).unref();
    process.stdout.write("echo " + line + "\n");
  }
});
`

type served struct {
	in   *io.PipeWriter
	out  chan string
	done chan error
}

func serve(t *testing.T, script string, turn time.Duration) *served {
	t.Helper()
	c := &Call{}
	e := instantiate(t, c)
	r, w := io.Pipe()
	s := &served{in: w, out: make(chan string, 16), done: make(chan error, 1)}
	c.Stdout = func(b []byte) { s.out <- string(b) }
	t0 := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); w.Close() })
	go func() {
		s.done <- Serve(ctx, e, Code{Source: []byte("globalThis.__mcpwasm={process:true};\n" + js.Shim + "\n" + script)}, c,
			ServeConfig{Stdin: r, Since: func() time.Duration { return time.Since(t0) }, TurnLimit: turn})
	}()
	return s
}

func (s *served) next(t *testing.T) string {
	t.Helper()
	select {
	case l := <-s.out:
		return l
	case err := <-s.done:
		t.Fatalf("ended: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("no output")
	}
	return ""
}

func (s *served) end(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return")
		return nil
	}
}

// Stdin's lines reach the script's "data" listener; what it writes to stdout comes out in
// order; a timer set in a turn fires after it with no input pending; the end of stdin ends
// the process with exit code 0.
func TestServeLinesAndTimers(t *testing.T) {
	s := serve(t, lineServer, time.Minute)
	go s.in.Write([]byte("a\nlater\n"))
	for _, want := range []string{"echo a\n", "echo later\n", "late\n"} {
		if got := s.next(t); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	s.in.Close()
	var exit *ExitError
	if err := s.end(t); !errors.As(err, &exit) || exit.Code != 0 {
		t.Fatalf("after stdin's end: %v, want exit code 0", err)
	}
}

// process.exit(3) ends the process with its code after the turn.
func TestServeExit(t *testing.T) {
	s := serve(t, lineServer, time.Minute)
	go s.in.Write([]byte("exit\n"))
	var exit *ExitError
	if err := s.end(t); !errors.As(err, &exit) || exit.Code != 3 {
		t.Fatalf("got %v, want exit code 3", err)
	}
}

// A turn that loops is interrupted at the turn limit: ErrTurn naming the limit.
func TestServeTurnLimit(t *testing.T) {
	s := serve(t, lineServer, 200*time.Millisecond)
	go s.in.Write([]byte("loop\n"))
	err := s.end(t)
	if !errors.Is(err, ErrTurn) || !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "200ms") {
		t.Fatalf("got %v, want ErrTurn (200ms) wrapping ErrInterrupted", err)
	}
}

// A top level that throws is ErrScript with the script's message; one that rejects after an
// await is too, at the first turn after.
func TestServeTopLevelFails(t *testing.T) {
	s := serve(t, `throw new Error("no config");`, time.Minute)
	if err := s.end(t); !errors.Is(err, ErrScript) || !strings.Contains(err.Error(), "no config") {
		t.Fatalf("got %v, want ErrScript naming the throw", err)
	}
	s = serve(t, `await new Promise((r) => setTimeout(r, 10)); throw new Error("late failure");`, time.Minute)
	if err := s.end(t); !errors.Is(err, ErrScript) || !strings.Contains(err.Error(), "late failure") {
		t.Fatalf("got %v, want ErrScript naming the throw", err)
	}
}
