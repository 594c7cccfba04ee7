package main

import (
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
func waitLimit(t *testing.T) time.Duration {
	t.Helper()
	d, ok := t.Deadline()
	if !ok {
		return noTestDeadline
	}
	return max(time.Until(d)-testDeadlineMargin(d), 0)
}

// waitOutput waits until buf's content satisfies ok, woken by every write to buf.
func waitOutput(t *testing.T, buf *lockedBuffer, what string, ok func(string) bool) {
	t.Helper()
	timeout := time.After(waitLimit(t))
	for {
		changed := buf.changed()
		if ok(buf.String()) {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("gave up waiting (test deadline near) for %s; output:\n%s", what, buf)
		}
	}
}

// waitLog waits until buf contains s.
func waitLog(t *testing.T, buf *lockedBuffer, s string) {
	t.Helper()
	waitOutput(t, buf, "the log line "+s, func(out string) bool { return strings.Contains(out, s) })
}
