package watchdog

import (
	"context"
	"time"
)

// Sleep is an instance's WASI nanosleep when the clock is granted: what poll_oneoff waits
// with on a clock subscription (wazero's own, time.Sleep, would outlive the call: a guest
// asking for an hour got it, past the time limit, Host.Stop and Guest.Close). It waits under
// the same derived context as a request import (requestContext), so it returns at the call's
// deadline, its cancellation and whatever interrupts the call; the guest then traps at its
// next check, and the call ends with the reason recorded. Without the clock grant wazero's
// Sleep returns at once and this is not installed.
func (in *Interrupter) Sleep(ns int64) {
	if ns <= 0 {
		return
	}
	parent := in.ctx // written only by the goroutine running the call: this one
	if parent == nil {
		parent = context.Background()
	}
	ctx, done := in.RequestContext(parent)
	defer done()
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
