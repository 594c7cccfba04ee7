package runtime_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// Host calls cost the host what the caps allow, not what the guest asks for; after each the
// guest still answers a normal call.

// A request whose kind is 1 MiB is TOO_LARGE without the kind being copied or quoted
// (reproducer request-kind-oom).
func TestRequestKindTooLarge(t *testing.T) {
	h, logs := newHost(t)
	g := load(t, h, wat.Hardening, nil)
	if got := text(t, call(t, g, "kind", `{}`)); got != "status 4" {
		t.Fatalf("kind: got %q, want status 4 (TOO_LARGE)", got)
	}
	if strings.Contains(logs.String(), "\\x01\\x01") {
		t.Error("the oversized kind was quoted into the log")
	}
	if got := text(t, call(t, g, "ok", `{}`)); got != "status 0" {
		t.Fatalf("ok after kind: %q", got)
	}
}

// A request body over the cap is TOO_LARGE before it is read (here it even lies outside
// linear memory: the size is checked first).
func TestRequestBodyTooLarge(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, wat.Hardening, nil)
	if got := text(t, call(t, g, "body", `{}`)); got != "status 4" {
		t.Fatalf("body: got %q, want status 4 (TOO_LARGE)", got)
	}
	if got := text(t, call(t, g, "ok", `{}`)); got != "status 0" {
		t.Fatalf("ok after body: %q", got)
	}
}

// 20,000 log calls of 64 KiB reach the log as at most the per-call budget, then one summary
// line counts what was dropped; the guest sees TOO_LARGE (reproducer log-flood).
func TestLogFloodBudget(t *testing.T) {
	h, logs := newHost(t)
	g := load(t, h, wat.Hardening, nil)
	var hooked atomic.Int64
	ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{
		Log: func(abi.Level, string) { hooked.Add(1) },
	})
	out, err := g.Call(ctx, "flood", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, string(out)); got != "status 4" {
		t.Fatalf("flood: last log status %q, want status 4 (TOO_LARGE)", got)
	}
	lines := strings.Count(logs.String(), "msg=\"guest log\"")
	// 256 KiB per call at 64 KiB a message is 4 messages.
	if lines == 0 || lines > 4 {
		t.Errorf("%d guest log lines reached the log, want 1..4", lines)
	}
	if int(hooked.Load()) != lines {
		t.Errorf("hooks saw %d reports, the log %d", hooked.Load(), lines)
	}
	if n := strings.Count(logs.String(), "reports dropped"); n != 1 {
		t.Fatalf("%d summary lines, want 1\n%s", n, tail(logs.String()))
	}
	if !strings.Contains(logs.String(), "dropped="+itoa(20000-lines)) {
		t.Errorf("summary does not count %d dropped reports:\n%s", 20000-lines, tail(logs.String()))
	}
	if got := text(t, call(t, g, "ok", `{}`)); got != "status 0" {
		t.Fatalf("ok after flood: %q", got)
	}
	if n := strings.Count(logs.String(), "reports dropped"); n != 1 {
		t.Errorf("a call that dropped nothing logged a summary (%d summaries)", n)
	}
}

// Empty progress messages are budgeted too: each report costs the host a notification.
func TestProgressFloodBudget(t *testing.T) {
	h, logs := newHost(t)
	g := load(t, h, wat.Hardening, nil)
	var hooked atomic.Int64
	ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{
		Progress: func(float64, float64, string) { hooked.Add(1) },
	})
	out, err := g.Call(ctx, "progress", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, string(out)); got != "status 4" {
		t.Fatalf("progress: last status %q, want status 4 (TOO_LARGE)", got)
	}
	if n := hooked.Load(); n == 0 || n > 1000 {
		t.Errorf("%d progress reports delivered, want 1..1000", n)
	}
	if !strings.Contains(logs.String(), "reports dropped") {
		t.Error("no summary line for dropped progress reports")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// text returns the first text content of a CallToolResult.
func text(t testing.TB, result string) string {
	t.Helper()
	var r struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal([]byte(result), &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("not a tool result: %s (%v)", result, err)
	}
	return r.Content[0].Text
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
