// Package watchdog owns how a running call is ended from outside: a Host's one Watchdog
// goroutine and clock, and each instance's Interrupter, which sets the instrumented module's
// interrupt global (instrument.ExportInterrupt) at the call's deadline, its cancellation,
// Host.Stop or Guest.Close, tells a graceful call it is ending, and cancels the request or
// sleep in flight. It may import runtime/internal/instrument and wazero's api; nothing else
// of ours (it knows no instance, pool or guest).
package watchdog

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// Interrupter ends a running call from outside: the call's deadline or cancellation (seen by
// the host's Watchdog, below), Host.Stop or Guest.Close. It sets the instance's
// instrument.ExportInterrupt global, which the checks instrument.Calls injected look at (runtime/internal/instrument);
// the guest then traps at its next look, within instrument.FuelInterval units of work. It also cancels
// the context of a request import in flight, so a host function blocked on I/O returns.
//
// A call costs no context, no timer and no goroutine of its own: arm records the deadline and
// links the Interrupter into the Watchdog's list, disarm unlinks it (RATIONALE.md, "Why a
// watchdog and not a context per call?"). Its state is guarded by the Watchdog's one mutex:
// arming, disarming and the look after a call each take it once.
//
// Every write to the global happens under that mutex while a call is armed, so a late look of
// the Watchdog can never touch a later call, and Go never reads the global: no data race.
type Interrupter struct {
	flag api.MutableGlobal // nil only for a module that fails checkModule anyway
	w    *Watchdog

	// Written under w.mu. ctx is written only by the goroutine running the call (arm,
	// disarm), which may therefore read it without the mutex; reason is atomic so that it can
	// read that one too (interrupted's fast path).
	ctx        context.Context // the armed call's; nil when no call runs
	deadline   time.Duration   // the armed call's, on the Watchdog's clock; 0 means none
	reason     atomic.Uint32   // why the call was interrupted (an exit code), 0 if it was not
	cancelReq  context.CancelFunc
	prev, next *Interrupter // links in w's list of armed calls
	linked     bool

	// A graceful call (kind.Traits.Grace) is told it is ending grace before it is interrupted:
	// at a cancellation (interrupted at hardAt, grace later), and grace before the earlier of
	// its deadline and ctx's (softAt). ending is why it was told (an exit code), 0 if not.
	grace, softAt, hardAt time.Duration
	ending                atomic.Uint32
}

func (in *Interrupter) Init(mod api.Module, w *Watchdog) {
	in.flag, _ = mod.ExportedGlobal(instrument.ExportInterrupt).(api.MutableGlobal)
	in.w = w
}

// Check interrupts the armed call if its context is done or, unless now is 0, its deadline
// has passed at now (the Watchdog's clock). Called with w.mu held.
func (in *Interrupter) Check(now time.Duration) {
	if in.ctx == nil || in.reason.Load() != 0 {
		return
	}
	switch err := in.ctx.Err(); {
	case errors.Is(err, context.DeadlineExceeded):
		in.Set(sys.ExitCodeDeadlineExceeded)
	case err != nil && in.grace == 0:
		in.Set(sys.ExitCodeContextCanceled)
	case err != nil && in.ending.Load() != sys.ExitCodeContextCanceled:
		// Cancelled, graceful: told now, interrupted a grace later (or at the deadline).
		if now == 0 {
			now = in.w.Now()
		}
		in.hardAt = now + in.grace
		in.Tell(sys.ExitCodeContextCanceled)
	case err != nil && now != 0 && now >= in.hardAt:
		in.Set(sys.ExitCodeContextCanceled)
	case in.deadline != 0 && now != 0 && now >= in.deadline:
		in.Set(sys.ExitCodeDeadlineExceeded)
	case in.softAt != 0 && now != 0 && now >= in.softAt && in.ending.Load() == 0:
		in.Tell(sys.ExitCodeDeadlineExceeded)
	}
}

// Tell records that the graceful call is ending (code: why) and ends the request in flight,
// so a script waiting on one hears of it. Called with w.mu held.
func (in *Interrupter) Tell(code uint32) {
	in.ending.Store(code)
	if in.cancelReq != nil {
		in.cancelReq()
	}
}

// Arm starts watching the call about to run: ctx's cancellation and deadline (on the
// Watchdog's clock; 0: none). A grace above 0 makes the call graceful (see Interrupter).
func (in *Interrupter) Arm(ctx context.Context, deadline, grace time.Duration) {
	w := in.w
	w.mu.Lock()
	defer w.mu.Unlock()
	in.ctx, in.deadline, in.grace, in.softAt, in.hardAt = ctx, deadline, grace, 0, 0
	in.reason.Store(0)
	in.ending.Store(0)
	if grace > 0 {
		end := deadline
		if d, ok := ctx.Deadline(); ok && (end == 0 || w.Reading(d) < end) {
			end = w.Reading(d)
		}
		if end != 0 {
			in.softAt = max(end-grace, 1)
		}
	}
	if deadline != 0 || ctx.Done() != nil { // else there is nothing to watch
		w.link(in)
	}
}

// Disarm ends the watch and returns the reason the call was interrupted, or 0.
func (in *Interrupter) Disarm() uint32 {
	w := in.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.unlink(in)
	in.ctx, in.deadline, in.grace = nil, 0, 0
	return in.reason.Load()
}

// EndingReason returns why the armed call was told it is ending, or was interrupted (an exit
// code), or 0 while it runs on. Like interrupted, a done context counts before the Watchdog
// looks. Only the goroutine running the call calls it.
func (in *Interrupter) EndingReason() uint32 {
	if r := in.reason.Load(); r != 0 {
		return r
	}
	if r := in.ending.Load(); r != 0 {
		return r
	}
	if in.ctx == nil || in.ctx.Err() == nil {
		return 0
	}
	in.w.mu.Lock()
	defer in.w.mu.Unlock()
	in.Check(in.w.Now())
	return max(in.reason.Load(), in.ending.Load())
}

// Interrupted returns the reason the armed call was interrupted, or 0. A call whose context
// is done counts as interrupted even if the Watchdog has not looked yet, and a request import
// that ended at the deadline has already recorded it (requestContext): a guest that returns
// because a host call saw the end must not race the Watchdog. Only the goroutine running the
// call calls it. It reads no clock, and takes the mutex only when the context is done.
func (in *Interrupter) Interrupted() uint32 {
	if r := in.reason.Load(); r != 0 {
		return r
	}
	if in.ctx == nil || in.ctx.Err() == nil {
		return 0
	}
	in.w.mu.Lock()
	defer in.w.mu.Unlock()
	if in.grace > 0 {
		in.Check(in.w.Now()) // a cancellation is hard a grace after it is seen
	} else {
		in.Check(0)
	}
	return in.reason.Load()
}

// Interrupt ends the armed call, if any, with exit code code (exitCodeStopped, exitCodeClosed).
func (in *Interrupter) Interrupt(code uint32) {
	in.w.mu.Lock()
	defer in.w.mu.Unlock()
	if in.ctx != nil {
		in.Set(code)
	}
}

// Set records code and stops the guest. Called with w.mu held.
func (in *Interrupter) Set(code uint32) {
	if in.reason.Load() != 0 {
		return
	}
	in.reason.Store(code)
	if in.flag != nil {
		in.flag.Set(1)
	}
	if in.cancelReq != nil {
		in.cancelReq()
	}
}

// RequestContext derives the context a request import runs under: it ends at the armed
// call's deadline and is cancelled when the call is interrupted. Call done when the request
// returns. Only request imports pay for a derived context.
func (in *Interrupter) RequestContext(ctx context.Context) (_ context.Context, done func()) {
	w := in.w
	w.mu.Lock()
	deadline := in.deadline
	w.mu.Unlock()
	var cancel context.CancelFunc
	if deadline == 0 {
		ctx, cancel = context.WithCancel(ctx)
	} else {
		ctx, cancel = context.WithDeadline(ctx, w.Time(deadline))
	}
	w.mu.Lock()
	if in.reason.Load() != 0 {
		cancel()
	}
	in.cancelReq = cancel
	w.mu.Unlock()
	return ctx, func() {
		w.mu.Lock()
		in.cancelReq = nil
		in.Check(w.Now()) // a request that ran into the deadline interrupts the call now
		w.mu.Unlock()
		cancel()
	}
}

// watchTick is how often the Watchdog looks at the armed calls: the most a deadline or a
// cancellation is overshot by before the guest's next look at its flag (B17 allows 100 ms).
const watchTick = 5 * time.Millisecond

// watchIdleTicks is how many ticks with no call armed (now or since the previous tick) the
// Watchdog waits before its goroutine ends: a steady stream of calls keeps one goroutine
// instead of starting one per call.
const watchIdleTicks = 40

// Watchdog is a Host's one goroutine that ends calls past their deadline or whose context is
// done. It runs only while calls are armed (and watchIdleTicks ticks after), so an idle host
// has no timer and no goroutine of it. Its list is intrusive: arming allocates nothing.
//
// Its clock is monotonic time since epoch (now): one clock read, where time.Now makes two
// (wall and monotonic) — the warm call path reads the clock twice, and on a VM each read is
// a noticeable share of a call.
type Watchdog struct {
	epoch time.Time

	mu      sync.Mutex
	head    *Interrupter
	recent  bool // a call was armed since the last tick
	running bool
	closed  bool
	quit    chan struct{}
	loops   sync.WaitGroup // the goroutine, for close to wait on
}

func New() *Watchdog { return &Watchdog{epoch: time.Now(), quit: make(chan struct{})} }

// Now reads the Watchdog's clock: time since epoch, never 0.
func (w *Watchdog) Now() time.Duration { return max(time.Since(w.epoch), 1) }

// Time converts a reading of the Watchdog's clock to a time.Time (with its monotonic reading).
func (w *Watchdog) Time(d time.Duration) time.Time { return w.epoch.Add(d) }

// Reading converts t to the Watchdog's clock; the zero Time gives 0 (none).
func (w *Watchdog) Reading(t time.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	return max(t.Sub(w.epoch), 1)
}

// link adds in to the armed calls and starts the goroutine if it is not running. Called with
// mu held.
func (w *Watchdog) link(in *Interrupter) {
	if in.linked {
		return
	}
	in.prev, in.next, in.linked = nil, w.head, true
	if w.head != nil {
		w.head.prev = in
	}
	w.head = in
	w.recent = true
	if !w.running && !w.closed {
		w.running = true
		w.loops.Go(w.loop)
	}
}

// unlink removes in from the armed calls. Called with mu held.
func (w *Watchdog) unlink(in *Interrupter) {
	if !in.linked {
		return
	}
	if in.prev != nil {
		in.prev.next = in.next
	} else {
		w.head = in.next
	}
	if in.next != nil {
		in.next.prev = in.prev
	}
	in.prev, in.next, in.linked = nil, nil, false
}

func (w *Watchdog) loop() {
	t := time.NewTicker(watchTick)
	defer t.Stop()
	idle := 0
	for {
		select {
		case <-t.C:
		case <-w.quit:
			w.mu.Lock()
			w.running = false
			w.mu.Unlock()
			return
		}
		now := w.Now()
		w.mu.Lock()
		if w.head != nil || w.recent {
			idle = 0
		} else if idle++; idle >= watchIdleTicks {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.recent = false
		for in := w.head; in != nil; in = in.next {
			in.Check(now)
		}
		w.mu.Unlock()
	}
}

// Close ends the goroutine, waits for it, and keeps it from starting again. Idempotent.
func (w *Watchdog) Close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.quit)
	}
	w.mu.Unlock()
	w.loops.Wait()
}

// State reports whether any call is armed and whether the goroutine runs (for tests: a host
// that is idle, or closed, has neither).
func (w *Watchdog) State() (armed, running bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.head != nil, w.running
}
