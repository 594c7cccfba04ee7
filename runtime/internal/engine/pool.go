package engine

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
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
	shut   atomic.Bool                 // closed, readable without mu: acquire's early refusal
	busy   map[*instance]uint64        // → its linear memory in bytes when the call started (Host.Stats)
	idleAt map[*instance]time.Duration // when each idle instance was released, on the watchdog clock (lazy.go: shrink)

	warming atomic.Pointer[chan struct{}] // set while Guest.Prewarm makes the first instance; closed when it is idle or failed

	snaps snapshots // the state new instances start from, per session or per call (snapshot.go)
	disk  diskSnap  // … and its copy in the compile cache (snapshotdisk.go)

	// testWaiting, set by tests before any use, runs when acquire is about to wait for an
	// instance (none idle), so a test can close the pool under a queued call.
	testWaiting func()
}

func newPool(g *Guest, prof sandbox.Profile, size int) (*pool, error) {
	// No start functions: instance.start runs them, interruptibly.
	cfg, mounts, err := prof.ModuleConfig(wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return nil, err
	}
	return &pool{g: g, profile: prof, config: cfg, mounts: mounts, tokens: make(chan struct{}, size),
		idle: make(chan *instance, size), busy: map[*instance]uint64{}, idleAt: map[*instance]time.Duration{}}, nil
}

// acquire returns an idle instance, or instantiates one if fewer than the limit exist, or
// waits for one to be released, and arms it for a call that ends at deadline (on the host's
// watchdog clock; 0: when ctx ends), told grace before (kind.Traits.Grace; 0: not told). Whatever it waits for (the guest's code, a free instance, a new instance's start
// functions) ends at deadline too.
func (p *pool) acquire(ctx context.Context, deadline, grace time.Duration) (*instance, error) {
	if p.isClosed() {
		return nil, p.g.host.closedErr()
	}
	inst, err := p.take(ctx, deadline, grace)
	if err != nil && p.isClosed() {
		// The guest or host closed while the call waited for its code or an instance, or
		// while one was instantiated: whatever failed (an instantiation in a closed runtime
		// reads "runtime closed with exit_code(0)", a start function the close ended an exit
		// of code 0), the call was ended by the close, as a running one is.
		return nil, p.g.host.closedErr()
	}
	return inst, err
}

// take is acquire once the pool was seen open.
func (p *pool) take(ctx context.Context, deadline, grace time.Duration) (*instance, error) {
	wait := callWait{parent: ctx}
	if deadline != 0 {
		wait.deadline = p.g.host.watch.Time(deadline)
	}
	defer wait.done()
	// A lazily loaded guest may still be compiling: its snapshot file is read meanwhile.
	p.prefetchDiskSnapshot(ctx)
	if err := p.g.useCode(&wait); err != nil {
		return nil, err
	}
	used := false
	defer func() {
		if !used {
			p.g.doneCode(p.g.host.watch.Now())
		}
	}()
	var inst *instance
	if w := p.warming.Load(); w != nil { // the first instance is being made (Guest.Prewarm): take it rather than start another
		select {
		case <-*w:
		case <-wait.context().Done():
		}
	}
	select {
	case inst = <-p.idle:
	default:
		wctx := wait.context()
		if p.testWaiting != nil {
			p.testWaiting()
		}
		select {
		case inst = <-p.idle:
		case p.tokens <- struct{}{}:
			if p.isClosed() { // a slot freed by the close's end of a running call
				<-p.tokens
				return nil, ErrClosed
			}
			var err error
			if inst, err = p.instantiate(wctx); err != nil {
				<-p.tokens
				return nil, err
			}
		case <-wctx.Done():
			return nil, fmt.Errorf("waiting for a free instance: %w: %w", ErrCancelled, wctx.Err())
		}
	}
	if iso := p.g.isolation; iso != isolationShared {
		s := sessionFrom(ctx)
		// It served another session, or (isolation call) any call: it is reset to its
		// snapshot in place, or a fresh one takes its slot (reset.go).
		if inst.served && (iso == isolationCall || inst.session != s) {
			p.mu.Lock()
			delete(p.idleAt, inst)
			p.mu.Unlock()
			if !p.reset(wait.context(), inst) {
				inst.close(ctx)
				fresh, err := p.instantiate(wait.context())
				if err != nil {
					<-p.tokens
					return nil, err
				}
				inst = fresh
			}
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
	inst.intr.Arm(ctx, deadline, grace)
	p.mu.Unlock()
	used = true
	if p.g.host.stopped.Load() { // Stop ran between the caller's check and arm
		inst.intr.Interrupt(exitCodeStopped)
	}
	return inst, nil
}

// callWait gives the waits of a call's setup its deadline. The context is derived on the
// first wait: a warm call, which waits for nothing, derives none.
type callWait struct {
	parent   context.Context
	deadline time.Time // zero: none beyond parent's
	ctx      context.Context
	cancel   context.CancelFunc
}

func (w *callWait) context() context.Context {
	if w.ctx == nil {
		if w.deadline.IsZero() {
			w.ctx = w.parent
		} else {
			w.ctx, w.cancel = context.WithDeadline(w.parent, w.deadline)
		}
	}
	return w.ctx
}

func (w *callWait) done() {
	if w.cancel != nil {
		w.cancel()
	}
}

func (p *pool) isClosed() bool { return p.shut.Load() }

// release returns inst to the pool if healthy, else closes it and frees its slot. now (on the
// host's watchdog clock) stamps the instance's and the code's last use: the caller passes the
// reading it took when the call started, so a warm call reads the clock once (runtime/internal/watchdog); a
// call longer than the idle timeout may then see its instance swept a sweep early.
func (p *pool) release(inst *instance, healthy bool, now time.Duration) {
	defer p.g.doneCode(now)
	if inst.intr.Disarm() != 0 || inst.mod.IsClosed() {
		healthy = false
	}
	p.mu.Lock()
	delete(p.busy, inst)
	if healthy && !p.closed {
		// Parked under mu, as shrink does: close sets closed under mu and then drains idle,
		// so an instance parked here is either drained by it or never parked at all.
		p.idleAt[inst] = now
		p.idle <- inst // never blocks: idle's capacity equals the token count
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	inst.close(context.Background())
	<-p.tokens
}

func (p *pool) close(ctx context.Context) {
	p.mu.Lock()
	p.closed = true
	p.shut.Store(true)
	busy := make([]*instance, 0, len(p.busy))
	for inst := range p.busy {
		busy = append(busy, inst)
	}
	p.mu.Unlock()
	// Busy instances are stopped; their callers get ErrClosed and release them.
	for _, inst := range busy {
		inst.intr.Interrupt(exitCodeClosed)
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
		inst.intr.Interrupt(code)
	}
}

// instance is one instantiation of a guest module with its exports looked up once:
// wazero's Module.ExportedFunction builds a new call engine on every lookup, so the hot path
