package runtime

import (
	"context"
	"errors"
	"sync"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// interrupter ends a running call from outside: the call's deadline or cancellation (through
// context.AfterFunc: no goroutine until it fires), Host.Stop or Guest.Close. It sets the
// instance's exportInterrupt global, which the checks instrumentCalls injected look at
// (interrupt.go); the guest then traps at its next look, within checkInterval checks. It also
// cancels the context of a request import in flight, so a host function blocked on I/O
// returns.
//
// Every write to the global happens under mu while a call is armed, so a late AfterFunc of an
// earlier call can never touch a later one, and Go never reads the global: no data race.
type interrupter struct {
	flag api.MutableGlobal // nil only for a module that fails checkModule anyway

	mu        sync.Mutex
	ctx       context.Context // the armed call's; nil when no call runs
	reason    uint32          // why the call was interrupted (an exit code), 0 if it was not
	stop      func() bool     // unregisters the AfterFunc
	fire      func()          // built once: the AfterFunc callback
	cancelReq context.CancelFunc
}

func (in *interrupter) init(mod api.Module) {
	in.flag, _ = mod.ExportedGlobal(exportInterrupt).(api.MutableGlobal)
	in.fire = func() {
		in.mu.Lock()
		defer in.mu.Unlock()
		in.fromContext()
	}
}

// fromContext interrupts the armed call if its context is done. Called with mu held.
func (in *interrupter) fromContext() {
	if in.ctx == nil {
		return
	}
	switch err := in.ctx.Err(); {
	case err == nil: // e.g. a late AfterFunc callback of an earlier call: not ours
	case errors.Is(err, context.DeadlineExceeded):
		in.set(sys.ExitCodeDeadlineExceeded)
	default:
		in.set(sys.ExitCodeContextCanceled)
	}
}

// arm starts watching ctx for the call about to run.
func (in *interrupter) arm(ctx context.Context) {
	in.mu.Lock()
	in.ctx, in.reason = ctx, 0
	in.mu.Unlock()
	if in.fire != nil && ctx.Done() != nil { // a context that is never done needs no watch
		in.stop = context.AfterFunc(ctx, in.fire)
	}
}

// disarm ends the watch and returns the reason the call was interrupted, or 0.
func (in *interrupter) disarm() uint32 {
	if in.stop != nil {
		in.stop()
		in.stop = nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.ctx = nil
	return in.reason
}

// interrupted returns the reason the armed call was interrupted, or 0. A call whose context
// is done counts as interrupted even if the AfterFunc has not run yet: a guest that returns
// because a host call saw the deadline must not race the callback.
func (in *interrupter) interrupted() uint32 {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.reason == 0 {
		in.fromContext()
	}
	return in.reason
}

// interrupt ends the armed call, if any, with exit code code (exitCodeStopped, exitCodeClosed).
func (in *interrupter) interrupt(code uint32) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ctx != nil {
		in.set(code)
	}
}

func (in *interrupter) set(code uint32) {
	if in.reason != 0 {
		return
	}
	in.reason = code
	if in.flag != nil {
		in.flag.Set(1)
	}
	if in.cancelReq != nil {
		in.cancelReq()
	}
}

// requestContext derives the context a request import runs under: it is also cancelled when
// the call is interrupted. Call done when the request returns.
func (in *interrupter) requestContext(ctx context.Context) (_ context.Context, done func()) {
	ctx, cancel := context.WithCancel(ctx)
	in.mu.Lock()
	if in.reason != 0 {
		cancel()
	}
	in.cancelReq = cancel
	in.mu.Unlock()
	return ctx, func() {
		in.mu.Lock()
		in.cancelReq = nil
		in.mu.Unlock()
		cancel()
	}
}

// start runs what wazero's WithStartFunctions(abi.ExportInitialize) would, plus a start
// section instrumentCalls turned into the exportStart export, but armed: a deadline during
// them stops them. As in wazero, exiting with code 0 ends initialization successfully.
func (inst *instance) start(ctx context.Context, mod api.Module) error {
	for _, name := range [...]string{exportStart, abi.ExportInitialize} {
		fn := mod.ExportedFunction(name)
		if fn == nil {
			continue
		}
		inst.intr.arm(ctx)
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
