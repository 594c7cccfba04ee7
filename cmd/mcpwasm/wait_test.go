package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Tests wait for events (a reply line, a log line, a process exit), never for a fixed time.
// Each wait is bounded only by the test binary's deadline (go test -timeout), less a margin
// so the failure is reported with the server's output instead of by the timeout panic. A
// slow machine makes tests slower, not flaky.

// testDeadlineMargin is how long before deadline d the tests give up waiting.
func testDeadlineMargin(d time.Time) time.Duration {
	m := time.Until(d) / 20
	return min(max(m, 100*time.Millisecond), 30*time.Second)
}

// noTestDeadline bounds waits when go test runs with -timeout 0.
const noTestDeadline = 10 * time.Minute

// waitLimit is how long a test may still wait for an event.
func waitLimit(t testing.TB) time.Duration {
	t.Helper()
	dt, ok := t.(interface{ Deadline() (time.Time, bool) }) // *testing.T has one; *testing.B not
	if !ok {
		return noTestDeadline
	}
	d, ok := dt.Deadline()
	if !ok {
		return noTestDeadline
	}
	return max(time.Until(d)-testDeadlineMargin(d), 0)
}

// waitOutput waits until buf's content satisfies ok, woken by every write to buf. It fails at
// once when buf's writer has ended (startServer's process exited) and the output does not
// satisfy ok: nothing more will come.
func waitOutput(t testing.TB, buf *lockedBuffer, what string, ok func(string) bool) {
	t.Helper()
	timeout := time.After(waitLimit(t))
	for {
		changed := buf.changed()
		ended := buf.endedWhy()
		if ok(buf.String()) {
			return
		}
		if ended != "" {
			t.Fatalf("%s before %s; output:\n%s", ended, what, buf)
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("gave up waiting (test deadline near) for %s; output:\n%s", what, buf)
			return
		}
	}
}

// waitLog waits until buf contains s.
func waitLog(t *testing.T, buf *lockedBuffer, s string) {
	t.Helper()
	waitOutput(t, buf, "the log line "+s, func(out string) bool { return strings.Contains(out, s) })
}

// fatalRecorder is a testing.TB whose Fatalf records the message and ends the goroutine, as
// t.Fatalf does, without failing the test: a test of a wait's failure.
type fatalRecorder struct {
	*testing.T
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestWaitOutputServerExited: a server that exits before printing what a test waits for fails
// the wait at once, saying so with its output — it used to wait until the test's deadline
// (minutes) and then say only "gave up waiting". The sibling case: a wait on a server that
// printed the line and then exited still succeeds.
func TestWaitOutputServerExited(t *testing.T) {
	wait := func(s *server, ok func(string) bool) string {
		f := &fatalRecorder{T: t}
		done := make(chan struct{})
		go func() { defer close(done); waitOutput(f, s.stderr, "the HTTP server to listen", ok) }()
		<-done
		return f.msg
	}
	// exits at once: a config naming a guest file that does not exist
	s := startServer(t, "--http", "127.0.0.1:0", "--config", writeConfig(t, `{"guests": [{"path": "`+filepath.Join(t.TempDir(), "missing.wasm")+`"}]}`))
	msg := wait(s, func(out string) bool { return strings.Contains(out, "transport=http") })
	if !strings.HasPrefix(msg, "the server exited (exit status 3) before the HTTP server to listen; output:") || !strings.Contains(msg, "missing.wasm") {
		t.Errorf("wait on a server that exited: %q", msg)
	}
	s = startServer(t, "--http", "127.0.0.1:0", "--config", writeConfig(t, `{"guests": [{"path": "`+filepath.Join(t.TempDir(), "missing.wasm")+`"}]}`))
	<-s.exited
	if msg := wait(s, func(out string) bool { return strings.Contains(out, "missing.wasm") }); msg != "" {
		t.Errorf("wait for output the exited server printed: %q", msg)
	}
}
