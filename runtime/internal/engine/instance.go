package engine

import (
	"context"
	"fmt"
	"reflect"

	"github.com/mcpwasm/mcpwasm/runtime/internal/snapstate"
	"github.com/mcpwasm/mcpwasm/runtime/internal/watchdog"

	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/memory"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
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

	memory *memory.Limited
	vars   *kind.Arena // the kind's host-side bytes, counted with memory against the limit

	call    kind.Call    // the running entry's, reset after each (one per instance: no allocation)
	budget  kind.Budget  // its log, progress and resource.updated reports (call.Report)
	started kind.Started // the kind's state of this instance

	stdout, stderr sandbox.OutputBuffer
	env            []string // the profile's environment at instantiation (Environ)
	random         bool     // the profile's random grant (Random)

	served  bool // a call ran in it: with isolation "session", session says whose
	session any  // the session of its calls (CallHooks.Session)

	intr watchdog.Interrupter // ends a running call from outside (runtime/internal/watchdog)

	initial uint32 // bytes of linear memory on instantiation, before any start (snapshot.go)

	linked   map[string]api.Module // the kind's linked modules' instances (kind.Traits.Linked), by import name
	snap     *snapstate.Snapshot   // what it was restored from or taken as; nil: it cannot be reset (reset.go)
	restored bool                  // it was restored from snap (not taken as it)
	fakes    fakeSources           // its clocks and random source when not granted (reset.go)
	globals  []api.MutableGlobal   // snap.globals' handles, looked up at the first reset
	fuel     api.MutableGlobal     // the host's $fuel (instrument.ExportSnapshot)
	fdLookup reflect.Value         // wazero's descriptor lookup, resolved at the first reset (reset.go)
	pagemap  []byte                // memory.ResetMapped's buffer (runtime/internal/memory)
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
	track := func(m *memory.Limited) { inst.memory = m }
	snap := p.snaps.get() // nil: run the start (snapshot.go)
	if snap == nil {
		snap = p.loadDiskSnapshot(ctx) // a previous process's (snapshotdisk.go)
	}
	var alloc experimental.MemoryAllocator
	switch {
	case snap != nil && snap.Image != nil:
		alloc = varsAllocator(memory.MappedAllocator(limit, snap.Image, track), inst)
	case snap != nil:
		alloc = reserveAllocator(varsAllocator(memory.NewAllocator(limit, track), inst), uint64(len(snap.Memory())))
	default:
		alloc = varsAllocator(memory.NewAllocator(limit, track), inst)
	}
	inst.snap, inst.restored = snap, snap != nil
	inst.env, inst.random = p.profile.Environ(), p.profile.Random()
	ctx = experimental.WithMemoryAllocator(ctx, alloc)
	cfg := p.config.WithStdout(&inst.stdout).WithStderr(&inst.stderr)
	if p.profile.Clock() {
		cfg = cfg.WithNanosleep(inst.intr.Sleep) // poll_oneoff's waits end with the call (runtime/internal/watchdog)
	}
	if p.g.isolation != isolationShared {
		cfg = inst.fakes.config(cfg, p.profile) // a reset in place rewinds them (reset.go)
	}
	mod, err := g.host.rt.InstantiateModule(ctx, g.compiled, cfg)
	if err != nil {
		inst.unlink(ctx)
		if m := inst.memory; m != nil && m.Mapped {
			m.Free() // wazero frees a memory only with its module; no GC unmaps it (Free is idempotent)
		}
		return nil, fmt.Errorf("instantiating: %w", inst.classify(ctx, err, g.limits.Timeout))
	}
	if m := mod.Memory(); m != nil {
		inst.initial = m.Size()
	}
	inst.intr.Init(mod, g.host.watch)
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
func (inst *instance) startKind(ctx context.Context, snap *snapstate.Snapshot) (err error) {
	c := &inst.call
	// The start runs with the guest's start grants (a script's top level reads its granted
	// environment and may fetch; such a start is not snapshotted: Call.StartRequest).
	c.Entry, c.Limits, c.Sandbox = kind.EntryDescribe, inst.g.limits, inst.g.start
	defer c.Reset()
	d, _ := ctx.Deadline()
	inst.intr.Arm(ctx, inst.g.host.watch.Reading(d), 0)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: panic during start: %v", ErrTrap, p)
		}
		inst.intr.Disarm()
	}()
	if inst.memory != nil {
		inst.memory.Hit = false
	}
	if restore := inst.g.kind.t.Restore; restore != nil && snap != nil {
		inst.started, err = restore(ctx, inst, c, snap.Kind)
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
	if lm := m.inst.memory; lm != nil && size+m.inst.vars.Used() > lm.Limit {
		lm.Hit = true
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
