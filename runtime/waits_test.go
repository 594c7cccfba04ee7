package runtime_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
)

// h3Fixture reads runtime/testdata/h3/NAME.wasm, after checking it matches NAME.wat when
// wat2wasm is installed.
func h3Fixture(t *testing.T, name string) []byte {
	t.Helper()
	wasmPath := filepath.Join("testdata", "h3", name+".wasm")
	got, err := os.ReadFile(wasmPath)
	if err != nil {
		t.Fatal(err)
	}
	if wat2wasm, err := exec.LookPath("wat2wasm"); err == nil {
		out := filepath.Join(t.TempDir(), name+".wasm")
		if b, err := exec.Command(wat2wasm, filepath.Join("testdata", "h3", name+".wat"), "-o", out).CombinedOutput(); err != nil {
			t.Fatalf("wat2wasm %s.wat: %v\n%s", name, err, b)
		}
		if want, _ := os.ReadFile(out); string(want) != string(got) {
			t.Fatalf("%s is stale: run wat2wasm runtime/testdata/h3/%s.wat -o %s", wasmPath, name, wasmPath)
		}
	}
	return got
}

// loadSleeper loads sleep.wasm with the clock granted and the given time limit.
func loadSleeper(t *testing.T, h *runtime.Host, timeout time.Duration) *runtime.Guest {
	t.Helper()
	return load(t, h, h3Fixture(t, "sleep"), &runtime.GuestConfig{
		Limits: runtime.Limits{Timeout: timeout},
		Grants: runtime.Grants{Clock: true},
	})
}

// startSleep calls tool in the background and returns once the guest has logged "entered"
// (just before it calls poll_oneoff), with the channel the call's error arrives on.
func startSleep(t *testing.T, ctx context.Context, g *runtime.Guest, tool string) <-chan error {
	t.Helper()
	entered := make(chan struct{}, 1)
	ctx = runtime.WithCallHooks(ctx, &runtime.CallHooks{Log: func(_ abi.Level, msg string) {
		if msg == "entered" {
			entered <- struct{}{}
		}
	}})
	done := make(chan error, 1)
	go func() {
		_, err := g.Call(ctx, tool, []byte(`{}`))
		done <- err
	}()
	select {
	case <-entered:
	case err := <-done:
		t.Fatalf("%s ended before sleeping: %v", tool, err)
	case <-time.After(30 * time.Second): // a failure deadline only
		t.Fatalf("%s never started", tool)
	}
	return done
}

// waitEnd returns the call's error, failing if it has not ended within a generous bound (the
// event under test is a deadline or an interruption: a second is expected, 20 s fails).
func waitEnd(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: the call asleep in poll_oneoff (an hour) did not end", what)
		return nil
	}
}

// A guest granted the clock that sleeps an hour in poll_oneoff is ended at its time limit,
// like a guest that loops (reproducer: WASI sleeps survived the limit, the kill switch, stdin
// EOF and SIGTERM). Sibling: two relative subscriptions (the wait is the shorter one's).
func TestPollOneoffEndsAtTimeLimit(t *testing.T) {
	h, _ := newHost(t)
	g := loadSleeper(t, h, time.Second)
	for _, tool := range []string{"sleep", "pair"} {
		start := time.Now()
		err := waitEnd(t, startSleep(t, context.Background(), g, tool), tool)
		if !errors.Is(err, runtime.ErrTimeLimit) || !strings.Contains(err.Error(), "1s") {
			t.Errorf("%s: %v, want the time limit (1s)", tool, err)
		}
		// Generous: the deadline is 1 s after the call started.
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s ended after %v at a 1 s limit", tool, d)
		}
	}
	if got := text(t, call(t, g, "ok", `{}`)); got != "errno 00" {
		t.Errorf("ok after the sleeps: %q", got)
	}
}

// The kill switch (Host.Stop), Guest.Close (what a server does after its grace when stdin
// ends or a signal comes) and the caller's cancellation end a call asleep in poll_oneoff.
func TestPollOneoffEndsOnInterrupt(t *testing.T) {
	t.Run("stop", func(t *testing.T) {
		h, _ := newHost(t)
		g := loadSleeper(t, h, time.Hour)
		done := startSleep(t, context.Background(), g, "sleep")
		h.Stop()
		if err := waitEnd(t, done, "Stop"); !errors.Is(err, runtime.ErrStopped) {
			t.Errorf("after Stop: %v, want ErrStopped", err)
		}
		h.Resume()
		if got := text(t, call(t, g, "ok", `{}`)); got != "errno 00" {
			t.Errorf("ok after Resume: %q", got)
		}
	})
	t.Run("close", func(t *testing.T) {
		h, _ := newHost(t)
		g := loadSleeper(t, h, time.Hour)
		done := startSleep(t, context.Background(), g, "pair")
		closed := make(chan error, 1)
		go func() { closed <- g.Close(context.Background()) }()
		if err := waitEnd(t, done, "Close"); !errors.Is(err, runtime.ErrClosed) {
			t.Errorf("after Close: %v, want ErrClosed", err)
		}
		<-closed
	})
	t.Run("cancel", func(t *testing.T) {
		h, _ := newHost(t)
		g := loadSleeper(t, h, time.Hour)
		ctx, cancel := context.WithCancel(context.Background())
		done := startSleep(t, ctx, g, "sleep")
		cancel()
		if err := waitEnd(t, done, "cancel"); !errors.Is(err, runtime.ErrCancelled) {
			t.Errorf("after cancel: %v, want ErrCancelled", err)
		}
	})
}

// An absolute clock subscription beside a relative one: wazero answers ENOTSUP (58) at once
// rather than waiting, so it cannot outlive the call either.
func TestPollOneoffAbsoluteClock(t *testing.T) {
	h, _ := newHost(t)
	g := loadSleeper(t, h, time.Second)
	out, err := g.Call(context.Background(), "mixed", []byte(`{}`))
	if err != nil {
		t.Fatalf("mixed: %v", err)
	}
	if got := text(t, string(out)); got != "errno 58" {
		t.Errorf("mixed: %q, want errno 58 (ENOTSUP)", got)
	}
}
