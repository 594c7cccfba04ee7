package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// OutcomeOf classifies by the wrapped sentinel, however deep, never by the message.
func TestOutcomeOf(t *testing.T) {
	wrap := func(err error) error {
		return fmt.Errorf("outer: %w", &runtime.CallError{Guest: "g", Op: "tool", Name: "t", Err: err})
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, "ok"},
		{"timeout", wrap(fmt.Errorf("%w (1s)", runtime.ErrTimeLimit)), "timeout"},
		{"memory", wrap(runtime.ErrMemoryLimit), "memory_limit"},
		{"output", wrap(runtime.ErrOutputLimit), "output_limit"},
		{"trap", wrap(runtime.ErrTrap), "trap"},
		{"abi", wrap(runtime.ErrABI), "abi_error"},
		{"invalid", wrap(runtime.ErrInvalidArguments), "invalid_arguments"},
		{"unknown tool", wrap(runtime.ErrUnknownTool), "unknown_tool"},
		{"cancelled", wrap(fmt.Errorf("%w: %w", runtime.ErrCancelled, context.Canceled)), "cancelled"},
		{"stopped", wrap(runtime.ErrStopped), "stopped"},
		{"closed", wrap(runtime.ErrClosed), "closed"},
		// A message that reads like a timeout but wraps none of the sentinels.
		{"other", errors.New("time limit exceeded"), "error"},
	} {
		if got := runtime.OutcomeOf(tc.err); got != tc.want {
			t.Errorf("%s: OutcomeOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Stats may be read while calls run (scrapes do); under -race this checks it reads no
// instance a call is using. At rest it counts the reported calls and the idle instances.
func TestStatsDuringCalls(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, wat.Fixture, &runtime.GuestConfig{Name: "fx", Limits: runtime.Limits{Instances: 3}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				for range 20 {
					_, err := g.Call(context.Background(), "echo", []byte(`{"n":1}`))
					g.ReportCall("echo", err, false, time.Millisecond)
				}
			})
		}
		wg.Wait()
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		for _, s := range h.Stats() {
			if s.Busy > 3 || s.Idle > 3 {
				t.Fatalf("busy %d idle %d: more than the 3 instances allowed", s.Busy, s.Idle)
			}
		}
	}
	st := h.Stats()
	if len(st) != 1 {
		t.Fatalf("%d guests, want 1", len(st))
	}
	s := st[0]
	if s.Name != "fx" || s.Calls != 120 || s.Errors != 0 || s.Busy != 0 || s.Idle == 0 {
		t.Errorf("stats %+v: want fx, 120 calls, 0 errors, 0 busy, some idle", s)
	}
	// fixture.wat starts with 2 pages and echo does not grow them.
	if s.MemoryBytes != uint64(s.Idle)*131072 {
		t.Errorf("memory %d bytes for %d idle instances, want %d", s.MemoryBytes, s.Idle, s.Idle*131072)
	}
	if o := g.ReportCall("no-such-tool", runtime.ErrUnknownTool, false, 0); o != "unknown_tool" {
		t.Errorf("ReportCall(ErrUnknownTool) = %q, want unknown_tool", o)
	}
	if s := h.Stats()[0]; s.Calls != 121 || s.Errors != 1 {
		t.Errorf("after an unknown tool: calls %d errors %d, want 121, 1", s.Calls, s.Errors)
	}
	// A result with isError is a tool error, and an error; a plain result is ok.
	if o := g.ReportCall("echo", nil, true, 0); o != "tool_error" {
		t.Errorf("ReportCall(isError) = %q, want tool_error", o)
	}
	if o := g.ReportCall("echo", nil, false, 0); o != "ok" {
		t.Errorf("ReportCall(result) = %q, want ok", o)
	}
	if s := h.Stats()[0]; s.Calls != 123 || s.Errors != 2 {
		t.Errorf("after a tool error and a result: calls %d errors %d, want 123, 2", s.Calls, s.Errors)
	}
}
