package engine

import (
	"context"
	"log/slog"
	"math"
	"math/rand"
	"reflect"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/snapstate"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/memory"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// Reset in place: an instance of a session or call pool that has served a session (isolation
// session) or a call (isolation call) is not closed for a fresh one when the next session or
// call needs it: it is reset to the state of the snapshot it was restored from (or taken as)
// and reused. A fresh instance pays wazero's instantiation (for a Go guest, an element
// segment of thousands of function references and the memory's allocation); a reset pays for
// what the last session or call changed. See RATIONALE.md "Pristine instances: reset in
// place".
//
// What a reset restores, and what makes an instance unfit for one (it is then closed and a
// fresh instance takes its slot, as before):
//   - Linear memory: the pages written since are dropped under the snapshot's image mapped
//     copy-on-write (runtime/internal/memory), or the snapshot is copied over it. A memory grown
//     past the snapshot's size is unfit: wazero cannot shrink a memory.
//   - Mutable globals: set from the snapshot; the host's $fuel refilled; $flag is 0 (an
//     instance whose call was interrupted is never released healthy).
//   - WASI: clocks and the random source, when not granted, are the instance's own fakes
//     (the sources wazero would give), rewound; with the clock grant they are the host's and
//     nothing is kept. A guest that closed stdin, stdout or stderr, or holds any other
//     descriptor, is unfit (stdioIntact).
//   - The kind's state: rebuilt by kind.Traits.Restore, with a fresh Vars arena.
//   - Tables: a module that can change one has no snapshot, so it is never reset.
// Only an instance whose last call ended without error is reset: a trap, a limit, an
// interruption or a grown call stack discards it on release (Guest.run, pool.release).

// reset returns inst to the state of its snapshot, or reports false if it cannot: the caller
// closes it. ctx bounds the kind's Restore.
func (p *pool) reset(ctx context.Context, inst *instance) bool {
	snap := inst.snap
	if snap == nil || p.g.host.noReset || inst.mem == nil {
		return false
	}
	snapMem := snap.Memory() // snap stays reachable: inst holds it
	if len(snapMem) > math.MaxUint32 {
		return false
	}
	if int(inst.mem.Size()) != len(snapMem) {
		return false // grown past the snapshot: a memory does not shrink
	}
	if snap.Image != nil && !inst.restored {
		// The instance the snapshot was taken from has its memory on the Go heap: it is
		// replaced, once, by one restored onto the image, whose resets cost the pages a
		// session or call wrote instead of a copy of the whole memory.
		return false
	}
	if !inst.stdioIntact() {
		p.g.host.logger.LogAttrs(ctx, slog.LevelDebug, "instance not reset: the guest changed its WASI descriptors",
			slog.String("guest", p.g.name))
		return false
	}
	buf, _ := inst.mem.Read(0, uint32(len(snapMem)))
	if m := inst.memory; m != nil && m.Mapped && m.Image == len(snapMem) {
		if _, err := memory.ResetMapped(buf, snapMem, &inst.pagemap); err != nil {
			p.g.host.logger.LogAttrs(ctx, slog.LevelDebug, "instance not reset", slog.String("guest", p.g.name),
				slog.String("error", err.Error()))
			return false
		}
	} else {
		copy(buf, snapMem)
	}
	if !inst.resetGlobals(snap) {
		return false
	}
	inst.fakes.reset()
	limit := p.profile.MemoryBytes()
	inst.vars = kind.NewArena(limit, func() uint64 { return uint64(inst.mem.Size()) })
	inst.call.Vars = inst.vars
	if err := inst.startKind(ctx, snap); err != nil {
		p.g.host.logger.LogAttrs(ctx, slog.LevelDebug, "instance not reset: restoring the kind's state failed",
			slog.String("guest", p.g.name), slog.String("error", err.Error()))
		return false
	}
	p.g.stats.resets.Add(1)
	return true
}

// resetGlobals sets inst's mutable globals to snap's and refills the host's $fuel, looking the
// globals up once per instance.
func (inst *instance) resetGlobals(snap *snapstate.Snapshot) bool {
	if inst.globals == nil {
		inst.globals = make([]api.MutableGlobal, len(snap.Globals))
		for i, sg := range snap.Globals {
			g, _ := inst.mod.ExportedGlobal(sg.Name).(api.MutableGlobal)
			if g == nil {
				inst.globals = nil
				return false
			}
			inst.globals[i] = g
		}
		inst.fuel, _ = inst.mod.ExportedGlobal(instrument.ExportSnapshot).(api.MutableGlobal)
	}
	for i, sg := range snap.Globals {
		inst.globals[i].Set(sg.Val)
	}
	if inst.fuel != nil {
		inst.fuel.Set(api.EncodeI32(instrument.FuelInterval))
	}
	return true
}

// fakeSources are an instance's clocks and random source when its grants give it none: the
// sources wazero gives such an instance (wall time from 2022-01-01T00:00:00Z and monotonic
// time from 0, each reading 1 ms later than the one before; math/rand seeded with 42), but
// rewound by a reset, so a reset instance reads what a fresh one would — not where the last
// session's calls left the stream.
type fakeSources struct {
	wall, mono int64      // readings so far
	rng        *rand.Rand // nil until the first read since the start or the last reset
}

const fakeEpoch = 1640995200 * int64(time.Second)

// config gives cfg f's sources for what prof does not grant.
func (f *fakeSources) config(cfg wazero.ModuleConfig, prof sandbox.Profile) wazero.ModuleConfig {
	if !prof.Clock() {
		cfg = cfg.WithWalltime(f.walltime, sys.ClockResolution(time.Microsecond)).
			WithNanotime(f.nanotime, sys.ClockResolution(time.Nanosecond))
	}
	if !prof.Random() {
		cfg = cfg.WithRandSource(f)
	}
	return cfg
}

func (f *fakeSources) walltime() (int64, int32) {
	t := fakeEpoch + f.wall*int64(time.Millisecond)
	f.wall++
	return t / 1e9, int32(t % 1e9)
}

func (f *fakeSources) nanotime() int64 {
	t := f.mono * int64(time.Millisecond)
	f.mono++
	return t
}

// Read is the random source: deterministic, as wazero's default.
func (f *fakeSources) Read(b []byte) (int, error) {
	if f.rng == nil {
		f.rng = rand.New(rand.NewSource(42))
	}
	return f.rng.Read(b)
}

func (f *fakeSources) reset() { f.wall, f.mono, f.rng = 0, 0, nil }

// stdioIntact reports whether inst's WASI descriptors are those of a fresh instance: 0, 1 and
// 2 open (a guest may close them with fd_close; fd_renumber refuses them) and 3 not (an
// instance with a snapshot has no fs mount, so it cannot open a file; checked anyway).
// wazero has no API for a module's descriptor table: it is read by reflection (fdLookup),
// resolved once per instance. If a wazero upgrade changes what it reads, the answer is false
// — instances are then never reset, only replaced — and TestResetStdioReadable fails.
func (inst *instance) stdioIntact() bool {
	if !inst.fdLookup.IsValid() {
		if inst.fdLookup = fdLookup(inst.mod); !inst.fdLookup.IsValid() {
			return false
		}
	}
	for fd := int32(0); fd <= 3; fd++ {
		if open := inst.fdLookup.Call([]reflect.Value{reflect.ValueOf(fd)})[1].Bool(); open != (fd < 3) {
			return false
		}
	}
	return true
}

// fdLookup returns wazero's LookupFile(fd int32) (*FileEntry, bool) of mod's descriptor table
// (the module instance's Sys context's FS), or the zero Value if mod does not have it.
func fdLookup(mod api.Module) reflect.Value {
	v := reflect.ValueOf(mod)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	sysCtx := v.Elem().FieldByName("Sys")
	if !sysCtx.IsValid() || sysCtx.Kind() != reflect.Pointer || sysCtx.IsNil() {
		return reflect.Value{}
	}
	fsFn := sysCtx.MethodByName("FS")
	if !fsFn.IsValid() || fsFn.Type().NumIn() != 0 || fsFn.Type().NumOut() != 1 {
		return reflect.Value{}
	}
	fs := fsFn.Call(nil)[0]
	if fs.Kind() != reflect.Pointer || fs.IsNil() {
		return reflect.Value{}
	}
	lookup := fs.MethodByName("LookupFile")
	if !lookup.IsValid() {
		return reflect.Value{}
	}
	if t := lookup.Type(); t.NumIn() != 1 || t.In(0) != reflect.TypeFor[int32]() || t.NumOut() != 2 || t.Out(1).Kind() != reflect.Bool {
		return reflect.Value{}
	}
	return lookup
}
