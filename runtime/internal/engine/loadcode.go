package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/tetratelabs/wazero"
)

// startLoad starts compiling g's code in the background. c.mu is held.
func (g *Guest) startLoad() { g.startLoadGated(nil) }

// startLoadGated is startLoad for a guest Load has not finished: the compile runs at once,
// beside the rest of the load, and ends (its outcome recorded, the code kept or dropped) only
// once gate is closed (guestCode.openGate: by afterLoad, or closeCode when the load failed).
// The compile reads only what Load set before it; its end reads the guest's name and more.
func (g *Guest) startLoadGated(gate chan struct{}) {
	c := g.code
	c.setState(codeLoading)
	c.done, c.urgent, c.waited = make(chan struct{}), make(chan struct{}), false
	g.host.lazy.loading.Add(1)
	go g.loadCode(c.done, c.urgent, gate)
}

func (g *Guest) loadCode(done, urgent, gate chan struct{}) {
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
		p := g.host.parse(wasm) // once, for every check of this compile
		sum := sha256.Sum256(wasm)
		// A rewrite kept by an earlier compile records that the caps passed for these bytes
		// and limits (rewritecache.go); without one, Load deferred them to here.
		cached := g.host.rewritten(sum, g.limits)
		if cached == nil {
			if err := p.Caps(g.limits); err != nil {
				return err
			}
		}
		if c.entry != nil { // the fingerprint or file identity found the entry; the hash proves it is this module's
			if hex.EncodeToString(sum[:]) != c.entry.SHA256 {
				return fmt.Errorf("%w: the module does not match its manifest cache entry (sha256 %x, entry %s)", ErrABI, sum, c.entry.SHA256)
			}
		}
		if cm, err = g.host.compileOnce(ctx, c.key, p, sum, cached, g.limits); err != nil {
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
	if gate != nil {
		<-gate
	}
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
	case l.unload && !c.waited && !c.kept && c.users.Load() == 0:
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

// Ready implements runtime.Guest.Ready, whose doc comment says what it does.
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

// Prewarm implements runtime.Guest.Prewarm, whose doc comment says what it does.
func (g *Guest) Prewarm(ctx context.Context) error {
	c := g.code
	c.mu.Lock()
	c.kept = true
	c.mu.Unlock()
	if err := g.Ready(ctx); err != nil {
		return err
	}
	p := g.pools[0]
	wait := callWait{parent: ctx}
	defer wait.done()
	if err := g.useCode(&wait); err != nil { // the code may have been swept meanwhile
		return err
	}
	if len(p.tokens) > 0 || p.isClosed() { // a call came first
		g.doneCode(g.host.watch.Now())
		return nil
	}
	select {
	case p.tokens <- struct{}{}:
	default:
		g.doneCode(g.host.watch.Now())
		return nil
	}
	warming := make(chan struct{})
	p.warming.Store(&warming)
	defer func() { p.warming.Store(nil); close(warming) }()
	inst, err := p.instantiate(wait.context())
	if err != nil {
		<-p.tokens
		g.doneCode(g.host.watch.Now())
		return err
	}
	p.release(inst, true, g.host.watch.Now()) // idle; closed instead if the pool closed meanwhile
	return nil
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
	c.openGate() // a load that failed: its compile ends now
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
