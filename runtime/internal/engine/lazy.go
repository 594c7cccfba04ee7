package engine

import (
	"context"
	goruntime "runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/manifests"
)

// Start fast, stay small (RATIONALE.md, "Why serve tools/list from a manifest cache?", "Why
// does a guest that fails to load in the background answer with tool errors …?" and "Why close
// idle instances, and drop idle compiled code?"):
//
//   - With Options.Lazy, Load of a module whose manifest is cached (runtime/internal/manifests) builds
//     the Guest from that manifest — the same validation of names, schemas and grants — and
//     compiles the module in the background, a few guests at a time. A call waits for its own
//     guest's code, within its context and time limit.
//   - No instance is kept for describe; pools grow on demand, and a timer-driven sweep closes
//     instances idle longer than Options.IdleTimeout. With Lazy and an on-disk cache, the sweep
//     also drops the compiled code of a guest with no instance left; its next call compiles it
//     again (a compilation-cache hit).

// defaultIdleTimeout is how long an instance may stay idle before it is closed, when
// Options.IdleTimeout is zero.
const defaultIdleTimeout = 60 * time.Second

// lazyHost is the Host's share of this file.
type lazyHost struct {
	h         *Host
	enabled   bool // Options.Lazy
	manifests *manifests.Cache
	idle      time.Duration // < 0: never sweep
	unload    bool          // the sweep may drop compiled code (Lazy and a disk cache)
	sem       chan struct{} // bounds background compiles running at once
	loading   atomic.Int32  // background compiles started and not ended

	sweepMu sync.Mutex // held by a running sweep; stop waits for it

	// compiling serializes compiles of the same module (by manifest key): wazero v1.12 makes a
	// module compiled from its file cache visible to a concurrent compile of the same bytes
	// before its entry preambles exist, and an instance of it then panics.
	compiling sync.Map // key → *sync.Mutex

	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
	onSweep func(released int) // test hook, called after every timer-driven sweep

	testHold chan struct{} // test hook: background loads wait for it to close; set before Load
}

func newLazyHost(h *Host, o Options) *lazyHost {
	l := &lazyHost{
		h:         h,
		enabled:   o.Lazy,
		manifests: manifests.NewCache(h.auth, h.logger),
		idle:      o.IdleTimeout,
		// Leave a core to the server: background compiles must not starve tools/list.
		sem: make(chan struct{}, max(1, goruntime.GOMAXPROCS(0)-1)),
	}
	if l.idle == 0 {
		l.idle = defaultIdleTimeout
	}
	l.unload = l.enabled && l.manifests.OnDisk()
	if l.idle > 0 {
		l.mu.Lock()
		l.timer = time.AfterFunc(l.interval(), l.sweepTick)
		l.mu.Unlock()
	}
	return l
}

// interval is the sweep period: an instance is closed between idle and 1.5×idle after its
// last call.
func (l *lazyHost) interval() time.Duration { return max(l.idle/2, time.Millisecond) }

// stop stops the sweep timer and waits for a sweep in progress. It is idempotent.
func (l *lazyHost) stop() {
	l.mu.Lock()
	l.stopped = true
	if l.timer != nil {
		l.timer.Stop()
	}
	l.mu.Unlock()
	l.sweepMu.Lock()
	l.sweepMu.Unlock() //nolint:staticcheck // an empty critical section: wait for the sweep
}

func (l *lazyHost) sweepTick() {
	l.sweepMu.Lock()
	defer l.sweepMu.Unlock()
	l.mu.Lock()
	stopped := l.stopped
	l.mu.Unlock()
	if stopped {
		return
	}
	n := l.sweep(l.h.watch.Now())
	l.mu.Lock()
	if !l.stopped {
		l.timer.Reset(l.interval())
	}
	hook := l.onSweep
	l.mu.Unlock()
	if hook != nil {
		hook(n)
	}
}

// sweep closes the instances idle since before now-idle and, where allowed, the compiled code
// of guests left without instances. It returns how many instances and modules it closed.
func (l *lazyHost) sweep(now time.Duration) int {
	h := l.h
	h.mu.Lock()
	guests := make([]*Guest, 0, len(h.guests))
	for g := range h.guests {
		guests = append(guests, g)
	}
	h.mu.Unlock()
	released := 0
	for _, g := range guests {
		for _, p := range g.pools {
			released += p.shrink(now, l.idle)
		}
		if l.unload && g.unloadIdle(now, l.idle) {
			released++
		}
	}
	if released > 0 {
		h.logger.Debug("idle instances closed", "released", released)
		// Linear memories are Go heap: hand them back to the OS now rather than when the
		// scavenger gets to them.
		debug.FreeOSMemory()
	}
	return released
}

// shrink closes the idle instances released before now-idle.
func (p *pool) shrink(now, idle time.Duration) int {
	closed := 0
	for range len(p.idle) {
		var inst *instance
		select {
		case inst = <-p.idle:
		default:
			return closed
		}
		p.mu.Lock()
		if !p.closed && now-p.idleAt[inst] < idle {
			p.idle <- inst // never blocks: we took it out; the lock orders this before close's drain
			p.mu.Unlock()
			continue
		}
		delete(p.idleAt, inst)
		p.mu.Unlock()
		inst.close(context.Background())
		<-p.tokens
		closed++
	}
	return closed
}
