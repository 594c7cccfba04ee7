package runtime

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/tetratelabs/wazero"
)

// pool holds a guest's instances. tokens bounds the instances in existence (idle or busy);
// idle holds the ones ready for a call. Both are channels so waiting honours ctx, and an
// instance is never handed to two callers. sync.Pool is unsuitable: it drops objects without
// closing them.
type pool struct {
	g       *Guest
	profile sandbox.Profile
	config  wazero.ModuleConfig // built once from profile
	mounts  io.Closer           // fs grants' directories, open while the pool lives
	tokens  chan struct{}
	idle    chan *instance

	mu     sync.Mutex
	closed bool
	busy   map[*instance]uint64    // → its linear memory in bytes when the call started (Host.Stats)
	idleAt map[*instance]time.Time // when each idle instance was released (lazy.go: shrink)
}

func newPool(g *Guest, prof sandbox.Profile, size int) (*pool, error) {
	// No start functions: instance.start runs them, interruptibly.
	cfg, mounts, err := prof.ModuleConfig(wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return nil, err
	}
	return &pool{g: g, profile: prof, config: cfg, mounts: mounts, tokens: make(chan struct{}, size),
		idle: make(chan *instance, size), busy: map[*instance]uint64{}, idleAt: map[*instance]time.Time{}}, nil
}

// acquire returns an idle instance, or instantiates one if fewer than the limit exist, or
// waits for one to be released.
func (p *pool) acquire(ctx context.Context) (*instance, error) {
	if p.isClosed() {
		return nil, ErrClosed
	}
	if err := p.g.useCode(ctx); err != nil { // a lazily loaded guest may still be compiling
		return nil, err
	}
	used := false
	defer func() {
		if !used {
			p.g.doneCode()
		}
	}()
	var inst *instance
	select {
	case inst = <-p.idle:
	default:
		select {
		case inst = <-p.idle:
		case p.tokens <- struct{}{}:
			var err error
			if inst, err = p.instantiate(ctx); err != nil {
				<-p.tokens
				return nil, err
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a free instance: %w: %w", ErrCancelled, ctx.Err())
		}
	}
	if p.g.isolation == IsolationSession {
		s := sessionFrom(ctx)
		if inst.served && inst.session != s { // it served another session: a fresh one takes its slot
			p.mu.Lock()
			delete(p.idleAt, inst)
			p.mu.Unlock()
			inst.close(ctx)
			fresh, err := p.instantiate(ctx)
			if err != nil {
				<-p.tokens
				return nil, err
			}
			inst = fresh
		}
		inst.served, inst.session = true, s
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		inst.close(ctx)
		<-p.tokens
		return nil, ErrClosed
	}
	p.busy[inst] = uint64(inst.mem.Size())
	delete(p.idleAt, inst)
	inst.intr.arm(ctx)
	p.mu.Unlock()
	used = true
	if p.g.host.stopped.Load() { // Stop ran between the caller's check and arm
		inst.intr.interrupt(exitCodeStopped)
	}
	return inst, nil
}

func (p *pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// release returns inst to the pool if healthy, else closes it and frees its slot.
func (p *pool) release(inst *instance, healthy bool) {
	defer p.g.doneCode()
	if inst.intr.disarm() != 0 {
		healthy = false
	}
	p.mu.Lock()
	delete(p.busy, inst)
	closed := p.closed
	if healthy {
		p.idleAt[inst] = p.g.host.lazy.now()
	}
	p.mu.Unlock()
	if healthy && !closed && !inst.mod.IsClosed() {
		p.idle <- inst // never blocks: idle's capacity equals the token count
		return
	}
	if healthy {
		p.mu.Lock()
		delete(p.idleAt, inst)
		p.mu.Unlock()
	}
	inst.close(context.Background())
	<-p.tokens
}

func (p *pool) close(ctx context.Context) {
	p.mu.Lock()
	p.closed = true
	busy := make([]*instance, 0, len(p.busy))
	for inst := range p.busy {
		busy = append(busy, inst)
	}
	p.mu.Unlock()
	// Busy instances are stopped; their callers get ErrClosed and release them.
	for _, inst := range busy {
		inst.intr.interrupt(exitCodeClosed)
	}
	for {
		select {
		case inst := <-p.idle:
			inst.close(ctx)
			<-p.tokens
		default:
			_ = p.mounts.Close()
			return
		}
	}
}

// Exit codes the host uses to end a running call from outside: Guest.Close, Host.Stop.
const (
	exitCodeClosed  = 0xdead
	exitCodeStopped = 0xdeaf
)

// stopBusy ends the calls running in this pool's instances.
func (p *pool) stopBusy(code uint32) {
	p.mu.Lock()
	busy := make([]*instance, 0, len(p.busy))
	for inst := range p.busy {
		busy = append(busy, inst)
	}
	p.mu.Unlock()
	for _, inst := range busy {
		inst.intr.interrupt(code)
	}
}

func (p *pool) busyCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.busy)
}

// instance is one instantiation of a guest module with its exports looked up once:
// wazero's Module.ExportedFunction builds a new call engine on every lookup, so the hot path
