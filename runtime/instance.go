package runtime

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// must never call it. It knows no guest kind: the kind's Started drives it through the
// kind.Instance methods below, the one way into guest code.
type instance struct {
	g   *Guest
	mod api.Module
	mem api.Memory
	// fns are the exports the kind resolved (Func), stacks where they keep their native call
	// stacks (stackmem.go).
	fns    map[string]api.Function
	stacks []*[]byte

	memory *limitedMemory
	vars   *kind.Arena // the kind's host-side bytes, counted with memory against the limit

	call    kind.Call    // the running entry's, reset after each (one per instance: no allocation)
	budget  kind.Budget  // its log, progress and resource.updated reports (call.Report)
	started kind.Started // the kind's state of this instance

	stdout, stderr sandbox.OutputBuffer
	env            []string // the profile's environment at instantiation (Environ)
	random         bool     // the profile's random grant (Random)

	served  bool // a call ran in it: with isolation "session", session says whose
	session any  // the session of its calls (CallHooks.Session)

	intr interrupter // ends a running call from outside (epoch.go)

	initial uint32 // bytes of linear memory on instantiation, before any start (snapshot.go)

	linked   map[string]api.Module // the kind's linked modules' instances (kind.Traits.Linked), by import name
	snap     *snapshot             // what it was restored from or taken as; nil: it cannot be reset (reset.go)
	restored bool                  // it was restored from snap (not taken as it)
	fakes    fakeSources           // its clocks and random source when not granted (reset.go)
	globals  []api.MutableGlobal   // snap.globals' handles, looked up at the first reset
	fuel     api.MutableGlobal     // the host's $fuel (exportSnapshot)
	fdLookup reflect.Value         // wazero's descriptor lookup, resolved at the first reset (reset.go)
	pagemap  []byte                // resetMapped's buffer (memimage_linux.go)
}

var _ kind.Instance = (*instance)(nil)

func (p *pool) instantiate(ctx context.Context) (inst *instance, err error) {
	g := p.g
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic while instantiating: %v", p)
		}
	}()
	inst = &instance{g: g, fns: make(map[string]api.Function, 8)}
	inst.stdout.Limit, inst.stderr.Limit = stdioCaptureBytes, stdioCaptureBytes
	limit := p.profile.MemoryBytes()
	inst.vars = kind.NewArena(limit, func() uint64 {
		if inst.mem == nil {
			return 0
		}
		return uint64(inst.mem.Size())
	})
	if err := inst.link(ctx); err != nil {
		return nil, err
	}
	if inst.linked != nil {
		// The guest's imports of a linked module's name resolve to this instance's.
		ctx = experimental.WithImportResolver(ctx, func(name string) api.Module { return inst.linked[name] })
	}
	track := func(m *limitedMemory) { inst.memory = m }
	snap := p.snaps.get() // nil: run the start (snapshot.go)
	if snap == nil {
		snap = p.loadDiskSnapshot(ctx) // a previous process's (snapshotdisk.go)
	}
	var alloc experimental.MemoryAllocator
	switch {
	case snap != nil && snap.image != nil:
		alloc = varsAllocator(mappedAllocator(limit, snap.image, track), inst)
	case snap != nil:
		alloc = reserveAllocator(varsAllocator(newMemoryAllocator(limit, track), inst), uint64(len(snap.memory())))
	default:
		alloc = varsAllocator(newMemoryAllocator(limit, track), inst)
	}
	inst.snap, inst.restored = snap, snap != nil
	inst.env, inst.random = p.profile.Environ(), p.profile.Random()
	ctx = experimental.WithMemoryAllocator(ctx, alloc)
	cfg := p.config.WithStdout(&inst.stdout).WithStderr(&inst.stderr)
	if p.profile.Clock() {
		cfg = cfg.WithNanosleep(inst.intr.sleep) // poll_oneoff's waits end with the call (sleep.go)
	}
	if p.g.isolation != isolationShared {
		cfg = inst.fakes.config(cfg, p.profile) // a reset in place rewinds them (reset.go)
	}
	mod, err := g.host.rt.InstantiateModule(ctx, g.compiled, cfg)
	if err != nil {
		inst.unlink(ctx)
		if m := inst.memory; m != nil && m.mapped {
			m.Free() // wazero frees a memory only with its module; no GC unmaps it (Free is idempotent)
		}
		return nil, fmt.Errorf("instantiating: %w", inst.classify(ctx, err, g.limits.Timeout))
	}
	if m := mod.Memory(); m != nil {
		inst.initial = m.Size()
	}
	inst.intr.init(mod, g.host.watch)
	inst.budget.Rate = &g.logRate
	// Bound before the start runs, so what a start asks of the host is known (StartRequest).
	inst.call = kind.Call{Guest: g.name, Config: g.config, Args: g.args, Host: guestHost{g}, Instance: inst, Report: &inst.budget, Vars: inst.vars}
	kind.Bind(mod, &inst.call)
	if snap != nil {
		err = inst.restore(mod, snap)
	} else {
		err = inst.start(ctx, mod)
	}
	if err != nil {
		kind.Unbind(mod)
		_ = mod.Close(ctx)
		inst.unlink(ctx)
		err = inst.classify(ctx, err, g.limits.Timeout)
		if why := startOutput(&inst.stderr); why != "" {
			// A Go guest that panics in init (no generated schemas, a bad tool definition)
			// traps with "unreachable": what it printed is the only useful part.
			return nil, fmt.Errorf("instantiating: %w; the guest wrote: %s", err, why)
		}
		return nil, fmt.Errorf("instantiating: %w", err)
	}
	inst.mod, inst.mem = mod, mod.Memory()
	if err := inst.startKind(ctx, snap); err != nil {
		inst.close(ctx)
		return nil, fmt.Errorf("instantiating: %s: %w", g.kind.Name(), err)
	}
	if snap == nil && p.wantsSnapshot() {
		p.takeSnapshot(ctx, inst)
		p.saveDiskSnapshot()
	}
	return inst, nil
}

// startKind runs the kind's Start (or, for an instance restored from snap, its Restore),
// armed like the start functions.
func (inst *instance) startKind(ctx context.Context, snap *snapshot) (err error) {
	c := &inst.call
	// The start runs with the guest's start grants (a script's top level reads its granted
	// environment and may fetch; such a start is not snapshotted: Call.StartRequest).
	c.Entry, c.Limits, c.Sandbox = kind.EntryDescribe, inst.g.limits, inst.g.start
	defer c.Reset()
	d, _ := ctx.Deadline()
	inst.intr.arm(ctx, inst.g.host.watch.reading(d), 0)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: panic during start: %v", ErrTrap, p)
		}
		inst.intr.disarm()
	}()
	if inst.memory != nil {
		inst.memory.hit = false
	}
	if restore := inst.g.kind.t.Restore; restore != nil && snap != nil {
		inst.started, err = restore(ctx, inst, c, snap.kind)
	} else {
		inst.started, err = inst.g.kind.Start(ctx, inst, c)
	}
	c.Started = inst.started
	return err
}

// varsAllocator wraps inner so that linear memory and the instance's Vars together stay
// within the memory limit.
func varsAllocator(inner experimental.MemoryAllocator, inst *instance) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		return &varsMemory{LinearMemory: inner.Allocate(capacity, max), inst: inst}
	})
}

// varsMemory refuses a memory.grow that would leave no room for the Vars in use.
type varsMemory struct {
	experimental.LinearMemory
	inst *instance
}

func (m *varsMemory) Reallocate(size uint64) []byte {
	if lm := m.inst.memory; lm != nil && size+m.inst.vars.Used() > lm.limit {
		lm.hit = true
		return nil
	}
	return m.LinearMemory.Reallocate(size)
}

func (inst *instance) close(ctx context.Context) {
	if inst.mod == nil {
		return
	}
	kind.Unbind(inst.mod)
	_ = inst.mod.Close(ctx)
	inst.unlink(ctx)
}

// link instantiates the modules the guest's kind links to each instance (kind.Traits.Linked), with
// the caller's ctx: their memory is not the guest's linear memory, and the kind accounts it.
func (inst *instance) link(ctx context.Context) error {
	links, err := inst.g.host.linksOf(ctx, inst.g.kind)
	if err != nil || len(links) == 0 {
		return err
	}
	inst.linked = make(map[string]api.Module, len(links))
	for _, l := range links {
		mod, err := inst.g.host.rt.InstantiateModule(ctx, l.cm, linkedConfig)
		if err != nil {
			inst.unlink(ctx)
			return fmt.Errorf("instantiating the %s module %s: %w", inst.g.kind.Name(), l.name, err)
		}
		inst.linked[l.name] = mod
	}
	return nil
}

// linkedConfig instantiates a linked module: anonymous, no start functions, and a random
// source it cannot read (a linked module imports no WASI), so wazero does not seed a
// math/rand source (5 KB) for each instance.
var linkedConfig = wazero.NewModuleConfig().WithName("").WithStartFunctions().WithRandSource(strings.NewReader(""))

// unlink closes the instance's linked modules.
func (inst *instance) unlink(ctx context.Context) {
	for name, mod := range inst.linked {
		_ = mod.Close(ctx)
		delete(inst.linked, name)
	}
}

// Linked implements kind.Instance.
func (inst *instance) Linked(name string) api.Module { return inst.linked[name] }

// Func implements kind.Instance.
func (inst *instance) Func(name string) api.Function {
	if fn, ok := inst.fns[name]; ok {
		return fn
	}
	fn := inst.mod.ExportedFunction(name)
	inst.fns[name] = fn
	if fn != nil {
		if s := nativeStack(fn); s != nil {
			inst.stacks = append(inst.stacks, s)
		}
	}
	return fn
}

// Invoke implements kind.Instance: the pool armed the call's deadline (acquire).
func (inst *instance) Invoke(ctx context.Context, fn api.Function, stack []uint64) error {
	if fn == nil {
		return fmt.Errorf("%w: call of a function the module does not export", ErrABI)
	}
	err := fn.CallWithStack(ctx, stack)
	if err != nil || inst.intr.interrupted() != 0 {
		return inst.classify(ctx, err, inst.call.Limits.Timeout)
	}
	return nil
}

// Interrupted implements kind.Instance.
func (inst *instance) Interrupted() bool { return inst.intr.interrupted() != 0 }

// Ending implements kind.Instance.
func (inst *instance) Ending() error {
	switch inst.intr.endingReason() {
	case 0:
		return nil
	case sys.ExitCodeDeadlineExceeded:
		return ErrTimeLimit
	case sys.ExitCodeContextCanceled:
		return ErrCancelled
	case exitCodeStopped:
		return ErrStopped
	}
	return ErrClosed
}

// Custom implements kind.Instance: the script sections the guest kept when its module was
// compiled (kinds.go); other custom sections are not kept.
func (inst *instance) Custom(name string) []byte { return inst.g.customs[name] }

// Environ implements kind.Instance.
func (inst *instance) Environ() []string { return inst.env }

// Random implements kind.Instance.
func (inst *instance) Random() bool { return inst.random }

// Memory implements kind.Instance.
func (inst *instance) Memory() api.Memory { return inst.mem }

// Module implements kind.Instance.
func (inst *instance) Module() *kind.Module { return moduleOf(inst.g.compiled, inst.g.customs) }

// Region implements kind.Instance.
func (inst *instance) Region(ptr, n uint32) ([]byte, error) {
	b, ok := inst.mem.Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("%w: guest returned region %#x+%d outside linear memory (%d bytes)", ErrABI, ptr, n, inst.mem.Size())
	}
	return b, nil
}

// enter runs one entry point of the instance's kind with c installed, and resets c after.
// A panic (a bug in wazero or in host code) loses the instance, not the server.
func (inst *instance) enter(ctx context.Context, e kind.Entry, name string, args []byte, limits Limits, sb *sandbox.Tool) (out []byte, err error) {
	c := &inst.call
	c.Guest, c.Entry, c.Limits, c.Sandbox = inst.g.name, e, limits, sb
	c.ListsChanged = 0
	c.Output.Reset(limits.OutputBytes)
	if e == kind.EntryTool {
		c.Tool = name // only tool calls may use capabilities…
	}
	if hk := hooksFrom(ctx); hk != nil {
		c.RequestID, c.Meta = hk.RequestID, hk.Meta
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w: panic during %s: %v", ErrTrap, entryName(e), p)
		}
		c.Reset()
	}()
	if inst.memory != nil {
		inst.memory.hit = false
	}
	s := inst.started
	switch e {
	case kind.EntryTool:
		return s.CallTool(ctx, c, args)
	case kind.EntryPrompt:
		return s.GetPrompt(ctx, c, name, args)
	case kind.EntryRead:
		return s.ReadResource(ctx, c, name)
	case kind.EntryComplete:
		return s.Complete(ctx, c, args)
	}
	return s.Describe(ctx, c)
}

// entryName names an entry point in errors (CallError.Op keeps the ABI's export names).
func entryName(e kind.Entry) string {
	switch e {
	case kind.EntryTool:
		return "tool call"
	case kind.EntryPrompt:
		return "prompt"
	case kind.EntryRead:
		return "resource read"
	case kind.EntryComplete:
		return "completion"
	}
	return "describe"
}

// classify turns a wazero call error into one of the package's sentinel errors.
// timeout is the limit in force, for the message.
func (inst *instance) classify(ctx context.Context, err error, timeout time.Duration) error {
	if code := inst.intr.interrupted(); code != 0 {
		err = sys.NewExitError(code) // err may be nil: interrupted as the guest returned
	}
	if errors.Is(err, peer.ErrInputRequired) { // a host function stopped the guest for a later round
		return peer.ErrInputRequired
	}
	if a := (*kind.Aborted)(nil); errors.As(err, &a) { // a host function ended the call (kind.Abort)
		return a.Err
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		switch exit.ExitCode() {
		case sys.ExitCodeDeadlineExceeded:
			return fmt.Errorf("%w (%v)", ErrTimeLimit, timeout)
		case sys.ExitCodeContextCanceled:
			return fmt.Errorf("%w: %w", ErrCancelled, context.Canceled)
		case exitCodeClosed:
			return inst.g.host.closedErr()
		case exitCodeStopped:
			return ErrStopped
		}
		return fmt.Errorf("%w: guest exited with code %d", ErrTrap, exit.ExitCode())
	}
	msg := firstLine(err.Error())
	if inst.memory != nil && inst.memory.hit {
		return fmt.Errorf("%w (%s): %s", ErrMemoryLimit, size.Format(inst.memory.limit), msg)
	}
	return fmt.Errorf("%w: %s", ErrTrap, msg)
}

// startOutput picks what a guest that failed to start wrote to stderr: the line of a Go
// panic ("panic: …") if there is one, else the first non-empty line; at most 512 bytes, or ""
// if it wrote nothing.
func startOutput(stderr *sandbox.OutputBuffer) string {
	var first string
	for line := range strings.Lines(stderr.String()) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "panic: ") {
			first = line
			break
		}
		if first == "" {
			first = line
		}
	}
	if len(first) > 512 {
		first = first[:512] + "…"
	}
	return first
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}
