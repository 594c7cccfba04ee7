package mcpserver

import "runtime"

// The MCP SDK answers each request on a goroutine of its own, which starts with a small
// stack. A tools/call goes deep — the SDK's middleware, ours, the pool, wazero's entry into
// the guest, the guest's calls back into the host — so every call grew its new goroutine's
// stack two or three times, each growth a copy of the whole stack: 7% of a WAT echo's CPU
// over stdio and 9 µs of a JavaScript tool's (BENCHMARKS.md "Host per-call path"). A tool
// call's work runs instead on a goroutine kept from an earlier call, whose stack has already
// grown (onWarmStack).

// maxIdleWarm is how many warm goroutines wait for work; more exit when done. Each holds
// its stack (tens of KiB) while it waits; the garbage collector halves an idle one's.
var maxIdleWarm = 8 * runtime.GOMAXPROCS(0)

// idleWarm holds the warm goroutines waiting for work.
var idleWarm = make(chan chan func(), maxIdleWarm)

// onWarmStack runs fn on a warm goroutine and returns when fn has returned: as if fn were
// called here, except for the goroutine it runs on. A panic in fn is raised again here, with
// its value. Calls may run concurrently: with no warm goroutine idle, a new one is started.
func onWarmStack(fn func()) {
	var work chan func()
	select {
	case work = <-idleWarm:
	default:
		work = make(chan func())
		go warmLoop(work)
	}
	done := make(chan any, 1)
	work <- func() {
		defer func() { done <- recover() }()
		fn()
	}
	if p := <-done; p != nil {
		panic(p)
	}
}

// warmLoop runs the work it is given, waiting in idleWarm between runs, until idleWarm is
// full.
func warmLoop(work chan func()) {
	for f := range work {
		f()
		select {
		case idleWarm <- work:
		default:
			return
		}
	}
}
