package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
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

// resource.updated spends the same per-call report budget as log and progress (reproducer
// resource-updated-flood: one 3 s call of a guest with no grants sent 70,000+
// notifications): of 20,000 requests at most 1,000 reach the hook, the guest sees
// TOO_LARGE, and the summary line counts the rest.
func TestResourceUpdatedBudget(t *testing.T) {
	h, logs := newHost(t)
	g := load(t, h, wat.Updated, nil)
	var hooked atomic.Int64
	ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{
		ResourceUpdated: func(uri string) {
			if uri == "test://a" {
				hooked.Add(1)
			}
		},
	})
	out, err := g.Call(ctx, "flood", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, string(out)); got != "status 4" {
		t.Fatalf("flood: last resource.updated status %q, want status 4 (TOO_LARGE)", got)
	}
	n := hooked.Load()
	if n == 0 || n > 1000 {
		t.Errorf("%d resource.updated announced, want 1..1000", n)
	}
	if !strings.Contains(logs.String(), `msg="guest log, progress and resource.updated reports dropped"`) ||
		!strings.Contains(logs.String(), "dropped="+itoa(20000-int(n))) {
		t.Errorf("no summary line counting %d dropped reports:\n%s", 20000-n, tail(logs.String()))
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

// The kill switch ends a call blocked in a host operation (here an exec of sleep with a 60 s
// cap), not only guest code: the call returns ErrStopped at once, and after Resume the guest
// answers again.
func TestStopEndsHostOperation(t *testing.T) {
	h, _ := newHost(t)
	g := loadProbe(t, h, runtime.GuestConfig{Grants: runtime.Grants{Exec: []policy.Exec{
		{Name: "sleep", Path: "/usr/bin/env", Args: []string{"/bin/sleep", "60"}, Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Minute},
	}}})
	started := make(chan struct{})
	done := make(chan error, 1)
	ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{})
	go func() {
		close(started)
		_, err := g.Call(ctx, "exec", []byte(`{"program":"sleep"}`))
		done <- err
	}()
	<-started
	// Wait until the call is inside the exec: a sleep 60 child of ours exists.
	deadline := time.Now().Add(30 * time.Second)
	for !sleeping() {
		if time.Now().After(deadline) {
			t.Fatal("the exec never started")
		}
		time.Sleep(5 * time.Millisecond) // polling the process table: there is no event to wait on
	}
	start := time.Now()
	h.Stop()
	select {
	case err := <-done:
		if !errors.Is(err, runtime.ErrStopped) {
			t.Errorf("call ended with %v, want ErrStopped", err)
		}
	case <-time.After(20 * time.Second): // a failure deadline: Stop must end the exec at once
		t.Fatal("Stop did not end the call blocked in exec")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Stop took %v to end the call", d)
	}
	h.Resume()
	if _, err := g.Call(context.Background(), "exec", []byte(`{"program":"nope"}`)); err != nil {
		t.Fatalf("call after Resume: %v", err)
	}
}

// sleeping reports whether a "sleep 60" process whose parent is a child of this test exists.
func sleeping() bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && string(b) == "/bin/sleep\x0060\x00" {
			return true
		}
	}
	return false
}

// A guest that panics while it starts fails to load with what it wrote, not only "wasm
// error: unreachable" (a newcomer's Go guest without its generated schemas did exactly that).
func TestStartFailureNamesGuestOutput(t *testing.T) {
	h, err := runtime.NewHost(context.Background(), &runtime.Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	_, err = h.Load(context.Background(), guestWasm(t, "testdata/guests/initpanic"), &runtime.GuestConfig{Source: "initpanic.wasm"})
	const want = `the guest wrote: panic: guest: tool "greet": no generated schema: run go generate`
	if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, runtime.ErrTrap) {
		t.Fatalf("Load = %v; want ErrTrap and %q", err, want)
	}
}
