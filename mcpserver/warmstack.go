package mcpserver

import (
	"runtime"
	"slices"
	"sync"
	"time"
)

// The MCP SDK answers each request on a goroutine of its own, which starts with a small
// stack. A tools/call goes deep — the SDK's middleware, ours, the pool, wazero's entry into
// the guest, the guest's calls back into the host — so every call grew its new goroutine's
// stack two or three times, each growth a copy of the whole stack: 7% of a WAT echo's CPU
// over stdio and 9 µs of a JavaScript tool's (bench/HISTORY.md "Host per-call path (wave 8)"). A tool
// call's work runs instead on a goroutine kept from an earlier call, whose stack has already
// grown (onWarmStack). A warm goroutine idle for warmIdle exits, so a server without calls
// keeps none (the soak benchmark counts goroutines after idle).

// maxIdleWarm is how many warm goroutines wait for work; more exit when done. Each holds
// its stack (tens of KiB) while it waits; the garbage collector halves an idle one's.
var maxIdleWarm = 8 * runtime.GOMAXPROCS(0)

// warmIdle is how long a warm goroutine waits for work before it exits: a server answering
// less than a call a second gains nothing worth a goroutine from a warm stack.
var warmIdle = time.Second

// warmExited, if set (tests), is called when a warm goroutine exits for being idle. It and
// warmIdle are read and written under warm's lock.
var warmExited func()

// warm holds the idle warm goroutines, most recently used last.
var warm struct {
	sync.Mutex
	idle []*warmWorker
}

type warmWorker struct {
	work chan func()
	stop bool // set by idleAgain (on the worker's goroutine) when warm.idle was full
}

// onWarmStack runs fn on a warm goroutine and returns when fn has returned: as if fn were
// called here, except for the goroutine it runs on. A panic in fn is raised again here, with
// its value. Calls may run concurrently: with no warm goroutine idle, a new one is started.
// The goroutine is idle again before onWarmStack returns, so calls made one after another
// run on one goroutine.
func onWarmStack(fn func()) {
	warm.Lock()
	var w *warmWorker
	if n := len(warm.idle); n > 0 {
		w, warm.idle = warm.idle[n-1], warm.idle[:n-1]
	}
	warm.Unlock()
	if w == nil {
		w = &warmWorker{work: make(chan func())}
		go w.loop()
	}
	done := make(chan any, 1)
	w.work <- func() {
		defer func() { done <- w.idleAgain(recover()) }()
		fn()
	}
	if p := <-done; p != nil {
		panic(p)
	}
}

// idleAgain puts w back in warm.idle, or, with warm.idle full, marks it to stop; it returns p
// (the work's recovered panic) for the caller.
func (w *warmWorker) idleAgain(p any) any {
	warm.Lock()
	defer warm.Unlock()
	if len(warm.idle) >= maxIdleWarm {
		w.stop = true
		return p
	}
	warm.idle = append(warm.idle, w)
	return p
}

// loop runs the work it is given. Between runs it waits in warm.idle (idleAgain put it
// there) for at most warmIdle; it exits when warm.idle was full or its wait runs out while no
// caller has taken it.
func (w *warmWorker) loop() {
	var t *time.Timer
	for f := <-w.work; ; {
		f()
		if w.stop {
			return
		}
		warm.Lock()
		idle := warmIdle
		warm.Unlock()
		if t == nil {
			t = time.NewTimer(idle)
		} else {
			t.Reset(idle)
		}
		select {
		case f = <-w.work:
			continue
		case <-t.C:
		}
		warm.Lock()
		if i := slices.Index(warm.idle, w); i >= 0 {
			warm.idle = slices.Delete(warm.idle, i, i+1)
			exited := warmExited
			warm.Unlock()
			if exited != nil {
				exited()
			}
			return
		}
		warm.Unlock()
		f = <-w.work // a caller took it as the wait ran out: its work is on the way
	}
}
