package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	goruntime "runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/manifests"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/loadcheck"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Start fast, stay small (RATIONALE.md, "Why serve tools/list from a manifest cache?", "Why
// does a guest that fails to load in the background answer with tool errors …?" and "Why close
// idle instances, and drop idle compiled code?"):
//
//   - With Options.Lazy, Load of a module whose manifest is cached (manifestcache.go) builds
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

type codeState int

const (
	codeReady    codeState = iota // g.compiled is set
	codeLoading                   // a background compile runs; done closes when it ends
	codeUnloaded                  // no code: the next call compiles it
	codeFailed                    // the background compile failed: err
	codeClosed                    // the guest is closed
)

// guestCode is the state of a guest's compiled code. g.compiled is written under mu, and read
// without it only by holders of a use (useCode … doneCode), which keeps it from being dropped.
type guestCode struct {
	key   string           // manifest cache key
	sum   [32]byte         // SHA-256 of an eagerly loaded module, for its cache entry
	entry *manifests.Entry // the cached manifest a lazy Load used, or nil
	raw   []byte           // the manifest describe returned, to cache
	wasm  []byte           // the module, to compile in the background or again after an unload
	path  string           // or, for LoadFile's cache hit, its file: read and checked at each compile
	// startRequests is what the kind read off the module for its start (kind.StartRequests),
	// cached with the manifest.
	startRequests abi.Requests

	mu     sync.Mutex
	state  codeState     // set only through setState
	done   chan struct{} // codeLoading: closed when the load ends
	urgent chan struct{} // codeLoading: closed when a call waits, so the load skips the queue
	waited bool          // urgent is closed
	err    error         // codeFailed

	// The warm call's fast path (useCode, doneCode) takes no mutex: notReady mirrors
	// state != codeReady, users counts the uses, lastUsed is the watchdog-clock reading of the
	// last doneCode. unloadIdle clears readiness before it looks at users, and useCode counts
	// itself before it looks at readiness, so one of the two always sees the other (Go's
	// atomics are sequentially consistent): code in use is never dropped.
	notReady atomic.Bool
	users    atomic.Int64
	lastUsed atomic.Int64

	// testHook, set by tests before any use, runs at the points of that handshake so a test
	// can force each interleaving of a use with an unload instead of hoping for it.
	testHook func(codePoint)
}

// codePoint names a point of the useCode/unloadIdle handshake (guestCode.testHook).
type codePoint int

const (
	pointCounted   codePoint = iota // useCode counted itself, has not looked at readiness
	pointBackedOff                  // useCode saw the code not ready and took its count back
	pointCleared                    // unloadIdle cleared readiness, has not looked at users
)

// setState sets state and its lock-free mirror. Called with mu held.
func (c *guestCode) setState(s codeState) {
	c.state = s
	c.notReady.Store(s != codeReady)
}

// cachedManifest returns wasm's manifest cache key and, with Options.Lazy, its entry if the
// entry can stand in for compiling and describing it under limits. A nil entry means: load it
// the eager way (whose errors are the precise ones).
func (h *Host) cachedManifest(wasm []byte, limits Limits) (string, *manifests.Entry) {
	key := manifests.Key(wasm)
	if !h.lazy.enabled {
		return key, nil
	}
	e := h.lazy.manifests.Get(key)
	if e == nil || uint64(e.MinMemoryPages)*pageSize > limits.MemoryBytes || len(e.Manifest) > limits.OutputBytes || h.kindByName(e.Kind) == nil {
		e = nil
	}
	if h.observer != nil {
		h.observer.CacheLookup(e != nil)
	}
	return key, e
}

// compileUnlessCached compiles wasm, unless a cached manifest defers that to the background.
func (h *Host) compileUnlessCached(ctx context.Context, key string, p *loadcheck.Module, e *manifests.Entry, limits Limits) (wazero.CompiledModule, error) {
	if e != nil {
		return nil, nil
	}
	if p == nil { // LoadFile passes no bytes only with an entry
		return nil, fmt.Errorf("%w: no module bytes and no manifest cache entry", ErrABI)
	}
	return h.compileOnce(ctx, key, p, limits)
}

// compileOnce is h.compile, one at a time per module (lazyHost.compiling).
func (h *Host) compileOnce(ctx context.Context, key string, p *loadcheck.Module, limits Limits) (wazero.CompiledModule, error) {
	mu, _ := h.lazy.compiling.LoadOrStore(key, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	return h.compile(ctx, p, limits)
}

func (h *Host) newGuestCode(key string, e *manifests.Entry, wasm []byte, cm wazero.CompiledModule) *guestCode {
	c := &guestCode{key: key, entry: e}
	c.lastUsed.Store(int64(h.watch.Now()))
	if e == nil {
		c.sum = sha256.Sum256(wasm)
	}
	if e != nil || h.lazy.unload {
		c.wasm = wasm
	}
	if cm == nil {
		c.setState(codeUnloaded)
	}
	return c
}

// exports returns the module's exported functions: from cm, or (a lazy load) the names the
// cache entry recorded.
func (c *guestCode) exports(cm wazero.CompiledModule) map[string]api.FunctionDefinition {
	if cm != nil {
		return cm.ExportedFunctions()
	}
	m := map[string]api.FunctionDefinition{}
	if c.entry != nil {
		for _, name := range c.entry.Exports {
			m[name] = nil
		}
	}
	return m
}

// afterLoad runs when Load has registered g: it caches the manifest an eager load described,
// or starts the background compile of a lazy one.
func (h *Host) afterLoad(g *Guest, cm wazero.CompiledModule) {
	c := g.code
	if c.entry != nil {
		c.mu.Lock()
		g.startLoad()
		c.mu.Unlock()
		return
	}
	if c.raw == nil || cm == nil {
		return
	}
	e := &manifests.Entry{Manifest: c.raw}
	if mem, ok := cm.ExportedMemories()[abi.ExportMemory]; ok {
		e.MinMemoryPages = mem.Min()
	}
	e.Kind = g.kind.Name()
	e.StartRequests = c.startRequests
	e.Exports = exportNames(cm)
	h.lazy.manifests.Put(c.key, c.sum, e)
	c.raw = nil
}

// startLoad starts compiling g's code in the background. c.mu is held.
func (g *Guest) startLoad() {
	c := g.code
	c.setState(codeLoading)
	c.done, c.urgent, c.waited = make(chan struct{}), make(chan struct{}), false
	g.host.lazy.loading.Add(1)
	go g.loadCode(c.done, c.urgent)
}

func (g *Guest) loadCode(done, urgent chan struct{}) {
	c, l := g.code, g.host.lazy
	ctx := context.Background()
	var cm wazero.CompiledModule
	var customs map[string][]byte // its script sections (kinds.go)
	dropped := false
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic while compiling: %v", p)
			}
		}()
		if l.testHold != nil {
			<-l.testHold
		}
		select { // wait for a compile slot, unless a call is waiting for this guest
		case l.sem <- struct{}{}:
			defer func() { <-l.sem }()
		case <-urgent:
		}
		c.mu.Lock()
		closed := c.state == codeClosed
		c.mu.Unlock()
		if closed {
			return ErrClosed
		}
		wasm := c.wasm
		if wasm == nil && c.path != "" {
			if wasm, err = c.read(); err != nil {
				return err
			}
		}
		p := g.host.parse(wasm)                  // once, for every check of this compile
		if err := p.Caps(g.limits); err != nil { // Load deferred them
			return err
		}
		if c.entry != nil { // the fingerprint or file identity found the entry; the hash proves it is this module's
			if sum := sha256.Sum256(wasm); hex.EncodeToString(sum[:]) != c.entry.SHA256 {
				return fmt.Errorf("%w: the module does not match its manifest cache entry (sha256 %x, entry %s)", ErrABI, sum, c.entry.SHA256)
			}
		}
		if cm, err = g.host.compileOnce(ctx, c.key, p, g.limits); err != nil {
			return err
		}
		customs = scriptSectionsOf(p.Whole())
		if err = c.checkKind(cm, customs, g.kind, g.limits); err == nil {
			err = c.checkExports(cm)
		}
		if err != nil {
			_ = cm.Close(ctx)
			cm = nil
		}
		return err
	}()
	c.mu.Lock()
	switch {
	case c.state == codeClosed:
		if cm != nil {
			_ = cm.Close(ctx)
		}
	case err != nil:
		c.setState(codeFailed)
		c.err = fmt.Errorf("%s: loading in the background: %w", g.source, err)
		g.host.logger.Error("guest failed to load; its tools return errors", "guest", g.name, "source", g.source, "err", err)
	case l.unload && !c.waited && c.users.Load() == 0:
		// Nobody has called the guest yet: the compile has filled the on-disk cache and
		// checked the module; its code need not stay resident until the first call, which
		// loads it back from the cache (RATIONALE.md, "Why drop a guest's code after the
		// background compile?").
		_ = cm.Close(ctx)
		c.setState(codeUnloaded)
		dropped = true
		g.host.logger.Debug("guest compiled into the cache; code dropped until its first call", "guest", g.name)
	default:
		g.compiled, g.customs = cm, customs
		c.lastUsed.Store(int64(l.h.watch.Now()))
		c.setState(codeReady) // last: the fast path of useCode may now take it
		if !l.unload {
			c.wasm = nil
		}
		g.host.logger.Debug("guest compiled", "guest", g.name)
	}
	close(done)
	c.mu.Unlock()
	if l.loading.Add(-1) == 0 && dropped {
		// The last background compile: hand the decoded modules' memory back to the OS now.
		debug.FreeOSMemory()
	}
}

// checkKind checks that the module compiled in the background is of the kind Load gave the
// guest (its cache entry's) and passes checkModule.
func (c *guestCode) checkKind(cm wazero.CompiledModule, customs map[string][]byte, k kind.Kind, limits Limits) error {
	got, err := kind.Detect(moduleOf(cm, customs), []kind.Kind{k})
	if err != nil || got != k {
		return fmt.Errorf("%w: the module does not match its manifest cache entry (not a %s guest: %v)", ErrABI, k.Name(), err)
	}
	return checkModule(cm, limits, k)
}

// checkExports checks that a lazily loaded guest's module exports the functions its cache
// entry recorded, which Load checked the manifest against.
func (c *guestCode) checkExports(cm wazero.CompiledModule) error {
	if c.entry == nil {
		return nil
	}
	if got := exportNames(cm); !slices.Equal(got, c.entry.Exports) {
		return fmt.Errorf("%w: the module does not match its manifest cache entry (exports %s, entry %s)", ErrABI,
			strings.Join(got, ","), strings.Join(c.entry.Exports, ","))
	}
	return nil
}

// exportNames returns the names of cm's exported functions, sorted.
func exportNames(cm wazero.CompiledModule) []string {
	return slices.Sorted(maps.Keys(cm.ExportedFunctions()))
}

// useCode waits until g's code is compiled (starting a compile if it was unloaded) and keeps
// it from being unloaded until doneCode. It fails when the call's wait ends (ErrCancelled),
// with ErrClosed, or with the background load's error.
func (g *Guest) useCode(wait *callWait) error {
	c := g.code
	c.users.Add(1)
	if c.testHook != nil {
		c.testHook(pointCounted)
	}
	if !c.notReady.Load() {
		return nil
	}
	c.users.Add(-1)
	if c.testHook != nil {
		c.testHook(pointBackedOff)
	}
	for {
		c.mu.Lock()
		switch c.state {
		case codeReady:
			c.users.Add(1)
			c.mu.Unlock()
			return nil
		case codeFailed:
			err := c.err
			c.mu.Unlock()
			return err
		case codeClosed:
			c.mu.Unlock()
			return ErrClosed
		case codeUnloaded:
			g.startLoad()
		}
		if !c.waited {
			c.waited = true
			close(c.urgent)
		}
		done := c.done
		c.mu.Unlock()
		ctx := wait.context()
		select {
		case <-done:
		case <-ctx.Done():
			return fmt.Errorf("waiting for the guest's code to compile: %w: %w", ErrCancelled, ctx.Err())
		}
	}
}

func (g *Guest) doneCode(now time.Duration) {
	c := g.code
	c.lastUsed.Store(int64(now))
	c.users.Add(-1)
}

// Ready waits until the guest's code is compiled and returns nil, or returns why it could not
// be: the error of a background compile (Options.Lazy), ErrClosed, or ctx's error. A guest
// loaded eagerly is always ready. (With Lazy and an on-disk cache, the code of a guest not
// called yet is compiled into the cache and then dropped until its first call.)
func (g *Guest) Ready(ctx context.Context) error {
	c := g.code
	for {
		c.mu.Lock()
		state, done, err := c.state, c.done, c.err
		c.mu.Unlock()
		switch state {
		case codeFailed:
			return err
		case codeClosed:
			return ErrClosed
		case codeLoading:
			select {
			case <-done:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
}

// unloadIdle drops g's compiled code if it has been unused since before now-idle and no
// instance of it exists. It reports whether it did.
func (g *Guest) unloadIdle(now, idle time.Duration) bool {
	c := g.code
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wasm == nil && c.path == "" || c.state != codeReady || now-time.Duration(c.lastUsed.Load()) < idle {
		return false
	}
	c.setState(codeUnloaded) // before looking at users: see guestCode
	if c.testHook != nil {
		c.testHook(pointCleared)
	}
	if c.users.Load() > 0 {
		c.setState(codeReady)
		return false
	}
	for _, p := range g.pools {
		if len(p.tokens) > 0 { // instances exist only between useCode and doneCode, or idle
			c.setState(codeReady)
			return false
		}
	}
	_ = g.compiled.Close(context.Background())
	g.compiled = nil
	for _, p := range g.pools {
		p.snaps.drop() // with the code: the next first instance runs its start and takes another
	}
	c.setState(codeUnloaded)
	return true
}

// closeCode closes g's compiled code, waiting for a background compile to end first.
func (g *Guest) closeCode(ctx context.Context) error {
	c := g.code
	if c == nil { // Load failed before the guest had code
		if g.compiled != nil {
			return g.compiled.Close(ctx)
		}
		return nil
	}
	c.mu.Lock()
	prev, done := c.state, c.done
	c.setState(codeClosed)
	c.mu.Unlock()
	switch prev {
	case codeLoading:
		<-done // the loader sees codeClosed and closes what it compiled
	case codeReady:
		return g.compiled.Close(ctx)
	}
	return nil
}
