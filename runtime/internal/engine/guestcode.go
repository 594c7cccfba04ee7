package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/loadcheck"
	"github.com/mcpwasm/mcpwasm/runtime/internal/manifests"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

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

	// gate holds the end of a lazy Load's background compile, started early in Load, until
	// Load has finished (startLoadGated); openGate closes it once.
	gate     chan struct{}
	gateOnce sync.Once

	mu     sync.Mutex
	state  codeState     // set only through setState
	done   chan struct{} // codeLoading: closed when the load ends
	urgent chan struct{} // codeLoading: closed when a call waits, so the load skips the queue
	waited bool          // urgent is closed
	kept   bool          // Prewarm (or GuestConfig.KeepCode) wants the code: a background compile keeps it resident
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
	sum := sha256.Sum256(p.Bytes) // Load checked the caps; a cached rewrite skips the rest
	return h.compileOnce(ctx, key, p, sum, h.rewritten(sum, limits), limits)
}

// compileOnce is h.compile, one at a time per module (lazyHost.compiling).
func (h *Host) compileOnce(ctx context.Context, key string, p *loadcheck.Module, sum [32]byte, cached []byte, limits Limits) (wazero.CompiledModule, error) {
	mu, _ := h.lazy.compiling.LoadOrStore(key, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	return h.compile(ctx, p, sum, cached, limits)
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

// startEarly starts the background compile of a lazy load (a cached manifest) as soon as
// Load has set what the compile reads, so that reading, checking and compiling the module
// overlap the rest of Load (the manifest's validation) instead of following it; afterLoad
// lets it end.
func (h *Host) startEarly(g *Guest) {
	c := g.code
	if c.entry == nil {
		return
	}
	c.gate = make(chan struct{})
	c.mu.Lock()
	g.startLoadGated(c.gate)
	c.mu.Unlock()
}

// openGate lets the background compile started by startEarly end; idempotent.
func (c *guestCode) openGate() {
	c.gateOnce.Do(func() {
		if c.gate != nil {
			close(c.gate)
		}
	})
}

// afterLoad runs when Load has registered g: it caches the manifest an eager load described,
// or lets the background compile of a lazy one end.
func (h *Host) afterLoad(g *Guest, cm wazero.CompiledModule) {
	c := g.code
	if c.entry != nil {
		c.openGate()
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

const (
	pointCounted   codePoint = iota // useCode counted itself, has not looked at readiness
	pointBackedOff                  // useCode saw the code not ready and took its count back
	pointCleared                    // unloadIdle cleared readiness, has not looked at users
)
