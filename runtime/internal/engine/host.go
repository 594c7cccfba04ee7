// Package engine is the machinery behind package runtime, which only exposes it: runtime's
// Host, Guest and Server are handles over this package's, and what a user sets (Options,
// GuestConfig, CallHooks, CallError, GuestStats) is declared there with its documentation and
// here with the same fields, so one converts to the other. An exported method behind a handle's
// has a one-line comment naming runtime's method: its documentation is written there, once.
//
// It owns the wazero runtime and compilation cache (host.go, cache.go, compile.go), the kinds
// and what they link (kinds.go, links.go), the load and lazy start (load*.go, lazy.go,
// guestcode.go, describe.go), the instance pools, reset in place and isolation (pool.go,
// reset.go, instance.go, isolation.go), snapshots in memory and on disk (snapshot*.go), the
// call path (call.go, enter.go, imports.go, validate.go) and whole-server guests
// (wasiserver.go, jsserver.go).
//
// It may import abi, the module's internal/ helpers, runtime/peer, runtime/policy and the
// other runtime/internal packages (which never import it), and wazero; never package runtime.
// A Host is safe for concurrent use. An instance never runs two calls at once.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/watchdog"

	"github.com/mcpwasm/mcpwasm/runtime/internal/cacheauth"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"

	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Options is runtime.Options, documented there; the root's NewHost copies its fields one by
// one (TestOptionsParity in the root keeps the two alike).
type Options struct {
	CacheDir    string
	NoDiskCache bool
	Logger      *slog.Logger
	Net         peer.Net
	Upstreams   peer.Upstreams
	Lazy        bool
	IdleTimeout time.Duration
	Observer    Observer

	// testKinds (tests only) are kinds detected after the registered ones (kinds.go). A
	// pointer, so Options stays comparable.
	testKinds *[]kind.Kind
}

// Host owns a wazero runtime shared by every guest it loads.
type Host struct {
	rt        wazero.Runtime
	cache     wazero.CompilationCache
	auth      *cacheauth.Dir // nil: compiled code cached in memory
	logger    *slog.Logger
	net       peer.Net
	upstreams peer.Upstreams // Options.Upstreams; may be nil
	observer  Observer       // Options.Observer; may be nil

	mu     sync.Mutex
	guests map[*Guest]struct{}
	closed bool

	kinds []*kindEntry // the guest kinds Load detects (kinds.go), in registration order, with their traits
	// links are the compiled modules each kind (kind.Traits.Linked) links to every instance of its guests,
	// by kind name, compiled on first use (linksOf).
	linkMu sync.Mutex
	links  map[string][]linkedModule

	stopped      atomic.Bool // Stop was called and Resume was not
	shuttingDown atomic.Bool // Shutdown was called: calls it ends say so (fault.ErrShuttingDown)

	lazy *lazyHost // manifest cache, background compiles, idle sweep (lazy.go)

	watch *watchdog.Watchdog // ends calls past their deadline or cancelled (runtime/internal/watchdog)

	noSnapshots bool // tests and benchmarks: every instance runs its start (snapshot.go)
	// Tests and benchmarks: noReset closes every instance a session or call is done with
	// instead of resetting it in place (reset.go); noMappedMemory keeps snapshots in Go memory
	// only, so restores and resets copy (runtime/internal/memory).
	noReset, noMappedMemory bool
	mapSmall                bool              // tests: map a snapshot's image however small it is (mapImageBytes)
	onParse                 func(wasm []byte) // tests: sees each guest module the load parses (Host.parse)
	onRewrite               func(wasm []byte) // tests: sees each module the compile rewrites (instrument.Module)

	snapWrites sync.WaitGroup // snapshot files being written or read ahead (snapshotdisk.go); Close waits

	servers serverRuntime // whole-server guests' runtime, made on first LoadServer (wasiserver.go)
}

// Stop implements runtime.Host.Stop, whose doc comment says what it does.
func (h *Host) Stop() {
	h.stopped.Store(true)
	h.mu.Lock()
	guests := make([]*Guest, 0, len(h.guests))
	for g := range h.guests {
		guests = append(guests, g)
	}
	h.mu.Unlock()
	for _, g := range guests {
		for _, p := range g.pools {
			p.stopBusy(exitCodeStopped)
		}
	}
	h.servers.stopAll(ErrStopped) // whole-server guests' instances (wasiserver.go)
}

// Resume lets calls run again after Stop.
func (h *Host) Resume() { h.stopped.Store(false) }

// Stopped reports whether the host is stopped (see Stop).
func (h *Host) Stopped() bool { return h.stopped.Load() }

// NewHost creates a Host. Close it to release compiled code and instances.
func NewHost(ctx context.Context, opts *Options) (*Host, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cache, auth, err := newCache(o, logger)
	if err != nil {
		return nil, err
	}
	// No WithCloseOnContextDone: instrument.Calls and the watchdog.Interrupter stop runaway calls
	// (runtime/internal/watchdog).
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCompilationCache(cache))
	h := &Host{rt: rt, cache: cache, auth: auth, logger: logger, net: o.Net, upstreams: o.Upstreams, observer: o.Observer, guests: map[*Guest]struct{}{}, watch: watchdog.New()}
	ks := slices.Clip(kinds)
	if o.testKinds != nil {
		ks = append(ks, *o.testKinds...)
	}
	if h.kinds, err = newKinds(ks); err != nil {
		_ = rt.Close(ctx)
		return nil, err
	}
	h.lazy = newLazyHost(h, o)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = h.Close(ctx)
		return nil, fmt.Errorf("instantiating WASI: %w", err)
	}
	if err := h.instantiateHostModules(ctx); err != nil {
		_ = h.Close(ctx)
		return nil, err
	}
	return h, nil
}

// Close implements runtime.Host.Close, whose doc comment says what it does.
func (h *Host) Close(ctx context.Context) error {
	return h.close(ctx)
}

// Shutdown implements runtime.Host.Shutdown, whose doc comment says what it does.
func (h *Host) Shutdown(ctx context.Context) error {
	h.shuttingDown.Store(true)
	return h.close(ctx)
}

// closedErr is the error of a call the host or its guest's closing ends or refuses: the bare
// ErrClosed, or after Shutdown the ErrClosed that names it.
func (h *Host) closedErr() error {
	if h.shuttingDown.Load() {
		return fault.ErrShuttingDown
	}
	return ErrClosed
}

func (h *Host) close(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	guests := make([]*Guest, 0, len(h.guests))
	for g := range h.guests {
		guests = append(guests, g)
	}
	h.mu.Unlock()
	h.lazy.stop()
	var errs []error
	for _, g := range guests {
		errs = append(errs, g.Close(ctx))
	}
	h.watch.Close()
	h.snapWrites.Wait()
	// Whole servers' instances end by their interrupt global, not by the runtime closing
	// under them: an instance instantiated while the runtime closed would be missed by it.
	h.servers.stopAll(h.closedErr())
	errs = append(errs, h.servers.close(ctx), h.rt.Close(ctx), h.cache.Close(ctx))
	return errors.Join(errs...)
}

// register adds g to the guests the host closes and stops. Tool names are not the host's
// concern: the server binding owns them (mcpserver.NameSet), since guests of one host may
// serve different servers.
func (h *Host) register(g *Guest) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return ErrClosed
	}
	h.guests[g] = struct{}{}
	return nil
}

func (h *Host) unregister(g *Guest) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.guests, g)
}
