package runtime

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// interrupter ends a running call from outside: the call's deadline or cancellation (seen by
// the host's watchdog, below), Host.Stop or Guest.Close. It sets the instance's
// instrument.ExportInterrupt global, which the checks instrument.Calls injected look at (interrupt.go);
// the guest then traps at its next look, within instrument.FuelInterval units of work. It also cancels
// the context of a request import in flight, so a host function blocked on I/O returns.
//
// A call costs no context, no timer and no goroutine of its own: arm records the deadline and
// links the interrupter into the watchdog's list, disarm unlinks it (RATIONALE.md, "Why a
// watchdog and not a context per call?"). Its state is guarded by the watchdog's one mutex:
// arming, disarming and the look after a call each take it once.
//
// Every write to the global happens under that mutex while a call is armed, so a late look of
// the watchdog can never touch a later call, and Go never reads the global: no data race.
type interrupter struct {
	flag api.MutableGlobal // nil only for a module that fails checkModule anyway
	w    *watchdog

	// Written under w.mu. ctx is written only by the goroutine running the call (arm,
	// disarm), which may therefore read it without the mutex; reason is atomic so that it can
	// read that one too (interrupted's fast path).
	ctx        context.Context // the armed call's; nil when no call runs
	deadline   time.Duration   // the armed call's, on the watchdog's clock; 0 means none
	reason     atomic.Uint32   // why the call was interrupted (an exit code), 0 if it was not
	cancelReq  context.CancelFunc
	prev, next *interrupter // links in w's list of armed calls
	linked     bool

	// A graceful call (kind.Traits.Grace) is told it is ending grace before it is interrupted:
	// at a cancellation (interrupted at hardAt, grace later), and grace before the earlier of
	// its deadline and ctx's (softAt). ending is why it was told (an exit code), 0 if not.
	grace, softAt, hardAt time.Duration
	ending                atomic.Uint32
}

func (in *interrupter) init(mod api.Module, w *watchdog) {
	in.flag, _ = mod.ExportedGlobal(instrument.ExportInterrupt).(api.MutableGlobal)
	in.w = w
}

// check interrupts the armed call if its context is done or, unless now is 0, its deadline
// has passed at now (the watchdog's clock). Called with w.mu held.
func (in *interrupter) check(now time.Duration) {
	if in.ctx == nil || in.reason.Load() != 0 {
		return
	}
	switch err := in.ctx.Err(); {
	case errors.Is(err, context.DeadlineExceeded):
		in.set(sys.ExitCodeDeadlineExceeded)
	case err != nil && in.grace == 0:
		in.set(sys.ExitCodeContextCanceled)
	case err != nil && in.ending.Load() != sys.ExitCodeContextCanceled:
		// Cancelled, graceful: told now, interrupted a grace later (or at the deadline).
		if now == 0 {
			now = in.w.now()
		}
		in.hardAt = now + in.grace
		in.tell(sys.ExitCodeContextCanceled)
	case err != nil && now != 0 && now >= in.hardAt:
		in.set(sys.ExitCodeContextCanceled)
	case in.deadline != 0 && now != 0 && now >= in.deadline:
		in.set(sys.ExitCodeDeadlineExceeded)
	case in.softAt != 0 && now != 0 && now >= in.softAt && in.ending.Load() == 0:
		in.tell(sys.ExitCodeDeadlineExceeded)
	}
}

// tell records that the graceful call is ending (code: why) and ends the request in flight,
// so a script waiting on one hears of it. Called with w.mu held.
func (in *interrupter) tell(code uint32) {
	in.ending.Store(code)
	if in.cancelReq != nil {
		in.cancelReq()
	}
}

// arm starts watching the call about to run: ctx's cancellation and deadline (on the
// watchdog's clock; 0: none). A grace above 0 makes the call graceful (see interrupter).
func (in *interrupter) arm(ctx context.Context, deadline, grace time.Duration) {
	w := in.w
	w.mu.Lock()
	defer w.mu.Unlock()
	in.ctx, in.deadline, in.grace, in.softAt, in.hardAt = ctx, deadline, grace, 0, 0
	in.reason.Store(0)
	in.ending.Store(0)
	if grace > 0 {
		end := deadline
		if d, ok := ctx.Deadline(); ok && (end == 0 || w.reading(d) < end) {
			end = w.reading(d)
		}
		if end != 0 {
			in.softAt = max(end-grace, 1)
		}
	}
	if deadline != 0 || ctx.Done() != nil { // else there is nothing to watch
		w.link(in)
	}
}

// disarm ends the watch and returns the reason the call was interrupted, or 0.
func (in *interrupter) disarm() uint32 {
	w := in.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.unlink(in)
	in.ctx, in.deadline, in.grace = nil, 0, 0
	return in.reason.Load()
}

// endingReason returns why the armed call was told it is ending, or was interrupted (an exit
// code), or 0 while it runs on. Like interrupted, a done context counts before the watchdog
// looks. Only the goroutine running the call calls it.
func (in *interrupter) endingReason() uint32 {
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
	in.check(in.w.now())
	return max(in.reason.Load(), in.ending.Load())
}

// interrupted returns the reason the armed call was interrupted, or 0. A call whose context
// is done counts as interrupted even if the watchdog has not looked yet, and a request import
// that ended at the deadline has already recorded it (requestContext): a guest that returns
// because a host call saw the end must not race the watchdog. Only the goroutine running the
// call calls it. It reads no clock, and takes the mutex only when the context is done.
func (in *interrupter) interrupted() uint32 {
	if r := in.reason.Load(); r != 0 {
		return r
	}
	if in.ctx == nil || in.ctx.Err() == nil {
		return 0
	}
	in.w.mu.Lock()
	defer in.w.mu.Unlock()
	if in.grace > 0 {
		in.check(in.w.now()) // a cancellation is hard a grace after it is seen
	} else {
		in.check(0)
	}
	return in.reason.Load()
}

// interrupt ends the armed call, if any, with exit code code (exitCodeStopped, exitCodeClosed).
func (in *interrupter) interrupt(code uint32) {
	in.w.mu.Lock()
	defer in.w.mu.Unlock()
	if in.ctx != nil {
		in.set(code)
	}
}

// set records code and stops the guest. Called with w.mu held.
func (in *interrupter) set(code uint32) {
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

// requestContext derives the context a request import runs under: it ends at the armed
// call's deadline and is cancelled when the call is interrupted. Call done when the request
// returns. Only request imports pay for a derived context.
func (in *interrupter) requestContext(ctx context.Context) (_ context.Context, done func()) {
	w := in.w
	w.mu.Lock()
	deadline := in.deadline
	w.mu.Unlock()
	var cancel context.CancelFunc
	if deadline == 0 {
		ctx, cancel = context.WithCancel(ctx)
	} else {
		ctx, cancel = context.WithDeadline(ctx, w.time(deadline))
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
		in.check(w.now()) // a request that ran into the deadline interrupts the call now
		w.mu.Unlock()
		cancel()
	}
}

// watchTick is how often the watchdog looks at the armed calls: the most a deadline or a
// cancellation is overshot by before the guest's next look at its flag (B17 allows 100 ms).
const watchTick = 5 * time.Millisecond

// watchIdleTicks is how many ticks with no call armed (now or since the previous tick) the
// watchdog waits before its goroutine ends: a steady stream of calls keeps one goroutine
// instead of starting one per call.
const watchIdleTicks = 40

// watchdog is a Host's one goroutine that ends calls past their deadline or whose context is
// done. It runs only while calls are armed (and watchIdleTicks ticks after), so an idle host
// has no timer and no goroutine of it. Its list is intrusive: arming allocates nothing.
//
// Its clock is monotonic time since epoch (now): one clock read, where time.Now makes two
// (wall and monotonic) — the warm call path reads the clock twice, and on a VM each read is
// a noticeable share of a call.
type watchdog struct {
	epoch time.Time

	mu      sync.Mutex
	head    *interrupter
	recent  bool // a call was armed since the last tick
	running bool
	closed  bool
	quit    chan struct{}
	loops   sync.WaitGroup // the goroutine, for close to wait on
}

func newWatchdog() *watchdog { return &watchdog{epoch: time.Now(), quit: make(chan struct{})} }

// now reads the watchdog's clock: time since epoch, never 0.
func (w *watchdog) now() time.Duration { return max(time.Since(w.epoch), 1) }

// time converts a reading of the watchdog's clock to a time.Time (with its monotonic reading).
func (w *watchdog) time(d time.Duration) time.Time { return w.epoch.Add(d) }

// reading converts t to the watchdog's clock; the zero Time gives 0 (none).
func (w *watchdog) reading(t time.Time) time.Duration {
	if t.IsZero() {
		return 0
	}
	return max(t.Sub(w.epoch), 1)
}

// link adds in to the armed calls and starts the goroutine if it is not running. Called with
// mu held.
func (w *watchdog) link(in *interrupter) {
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
func (w *watchdog) unlink(in *interrupter) {
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

func (w *watchdog) loop() {
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
		now := w.now()
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
			in.check(now)
		}
		w.mu.Unlock()
	}
}

// close ends the goroutine, waits for it, and keeps it from starting again. Idempotent.
func (w *watchdog) close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.quit)
	}
	w.mu.Unlock()
	w.loops.Wait()
}

// start runs what wazero's WithStartFunctions(abi.ExportInitialize) would, plus a start
// section instrument.Calls turned into the instrument.ExportStart export, but armed: ctx's deadline or
// cancellation during them stops them. As in wazero, exiting with code 0 ends initialization
// successfully.
func (inst *instance) start(ctx context.Context, mod api.Module) error {
	d, _ := ctx.Deadline()
	deadline := inst.g.host.watch.reading(d)
	for _, name := range [...]string{instrument.ExportStart, abi.ExportInitialize} {
		fn := mod.ExportedFunction(name)
		if fn == nil {
			continue
		}
		inst.intr.arm(ctx, deadline, 0)
		_, err := fn.Call(ctx)
		if inst.intr.disarm() != 0 {
			return errInterrupted // classify reports why
		}
		var exit *sys.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var errInterrupted = errors.New("interrupted")
