package runtime_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// A call's deadline ends with the call: the next call on the same instance runs to its own
// limit, not to one an earlier call left behind — the error TestInterruptHammer looks for
// among many, here in order. block returns at once (its request is refused: no grant) under
// a short limit; once that limit has passed, spin on the same instance must still run its
// own, and not overshoot it by more than prompt (the bound TestInterruptDeadline sets). The
// waits are on deadlines, which are times: the bounds are the limits themselves.
func TestNoStaleDeadline(t *testing.T) {
	h := interruptHost(t, nil)
	const blockLimit, spinLimit = 50 * time.Millisecond, 500 * time.Millisecond
	g := load(t, h, wat.Interrupt, &runtime.GuestConfig{Limits: runtime.Limits{Timeout: 10 * time.Second, Instances: 1},
		ToolLimits: map[string]runtime.Limits{"block": {Timeout: blockLimit}, "spin": {Timeout: spinLimit}}})
	ctx := context.Background()
	if got := call(t, g, "ok", ""); got != `{"content":[]}` { // the instance exists before block's clock starts
		t.Fatalf("ok: %s", got)
	}
	blockStart := time.Now()
	if _, err := g.Call(ctx, "block", nil); err != nil {
		t.Fatalf("block: %v", err)
	}
	time.Sleep(time.Until(blockStart.Add(2 * blockLimit))) // block's deadline is now past
	start := time.Now()
	_, err := g.Call(ctx, "spin", nil)
	took := time.Since(start)
	if !errors.Is(err, runtime.ErrTimeLimit) || took < spinLimit || took > spinLimit+prompt {
		t.Errorf("spin after block: %v after %v; want its own time limit (%v), not an earlier call's", err, took, spinLimit)
	}
	if got := call(t, g, "ok", ""); got != `{"content":[]}` {
		t.Errorf("ok after: %s", got)
	}
}
