package runtime

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/mcpwasm/mcpwasm/abi"
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
	busy   map[*instance]struct{}
}

func newPool(g *Guest, prof sandbox.Profile, size int) (*pool, error) {
	cfg, mounts, err := prof.ModuleConfig(wazero.NewModuleConfig().WithName("").WithStartFunctions(abi.ExportInitialize))
	if err != nil {
		return nil, err
	}
	return &pool{g: g, profile: prof, config: cfg, mounts: mounts, tokens: make(chan struct{}, size),
		idle: make(chan *instance, size), busy: map[*instance]struct{}{}}, nil
}

// acquire returns an idle instance, or instantiates one if fewer than the limit exist, or
// waits for one to be released.
func (p *pool) acquire(ctx context.Context) (*instance, error) {
	if p.isClosed() {
		return nil, ErrClosed
	}
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
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		inst.close(ctx)
		<-p.tokens
		return nil, ErrClosed
	}
	p.busy[inst] = struct{}{}
	p.mu.Unlock()
	return inst, nil
}

func (p *pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// release returns inst to the pool if healthy, else closes it and frees its slot.
func (p *pool) release(inst *instance, healthy bool) {
	p.mu.Lock()
	delete(p.busy, inst)
	closed := p.closed
	p.mu.Unlock()
	if healthy && !closed && !inst.mod.IsClosed() {
		p.idle <- inst // never blocks: idle's capacity equals the token count
		return
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
	// Busy instances are stopped; their callers see the module closed and release them.
	for _, inst := range busy {
		_ = inst.mod.CloseWithExitCode(ctx, exitCodeClosed)
		inst.hostOps.fire() // after the exit code is set, so the call reports ErrClosed
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
		_ = inst.mod.CloseWithExitCode(context.Background(), code)
		inst.hostOps.fire() // after the exit code is set, so the call reports it
	}
}

func (p *pool) busyCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.busy)
}

// instance is one instantiation of a guest module with its exports looked up once:
// wazero's Module.ExportedFunction builds a new call engine on every lookup, so the hot path
