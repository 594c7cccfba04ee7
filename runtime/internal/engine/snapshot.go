package engine

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	goruntime "runtime"
	"strconv"
	"sync"

	"github.com/mcpwasm/mcpwasm/runtime/internal/snapstate"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/memory"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// attachImage gives snap, just taken or read from the cache, the image its instances map
// (runtime/internal/memory) when it is large enough and the system allows, and drops the copy on
// the Go heap: reads (a restore that could not map, a reset that copies pages back, the
// cache's encoding) come from the image's mapping. Else instances copy the heap's.
func (p *pool) attachImage(snap *snapstate.Snapshot) {
	if h := p.g.host; snap != nil && (len(snap.Heap) >= mapImageBytes || h.mapSmall) && !h.noMappedMemory {
		if img, err := memory.NewImage(snap.Heap); err == nil { // on failure: restores copy
			snap.Image, snap.Heap = img, nil
		}
	}
}

// mapImageBytes is the smallest snapshot whose instances map it copy-on-write rather than copy
// it (runtime/internal/memory). A copy costs the snapshot's size at every restore and reset, and
// keeps the whole of it in every instance's memory; a mapping costs a mmap per instance and,
// per reset, a read of pagemap and a copy of the pages written, and keeps only those. For the
// Go echo (3.4 MiB) a reset and call take 80–120 µs mapped against 430–660 µs copied; for
// the WAT echo (64 KiB) both take 6–12 µs (bench/HISTORY.md "Snapshots, reset in place (wave 7)"):
// below a megabyte the copy is kept, which needs no mapping, no memfd and no /proc.
const mapImageBytes = 1 << 20

// snapshots is a pool's snapshot: taken once, by the first instance that starts after the
// pool was made; or refused, with the reason logged once.
type snapshots struct {
	mu      sync.Mutex
	tried   bool
	snap    *snapstate.Snapshot // nil: none (not yet, or refused)
	refused string
	held    []heldNote // logged before describe named the guest: logged by logHeld
}

// heldNote is a log line about a pool's snapshots held back until its guest is named.
type heldNote struct {
	level slog.Level
	msg   string
	attrs []slog.Attr
}

// drop forgets a snapshot taken, so its memory is freed while the guest is unloaded; a
// refusal stays (its reason is the module's or the grants', and was logged).
func (s *snapshots) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap != nil {
		s.snap, s.tried = nil, false
	}
}

// get returns the pool's snapshot, or nil.
func (s *snapshots) get() *snapstate.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap
}

// wantsSnapshot reports whether p snapshots its instances: only when new instances are made
// per session or per call, where a snapshot pays for the memory it keeps (a shared pool
// starts an instance rarely), and only once.
func (p *pool) wantsSnapshot() bool {
	if p.g.isolation == isolationShared || p.g.host.noSnapshots {
		return false
	}
	p.snaps.mu.Lock()
	defer p.snaps.mu.Unlock()
	return !p.snaps.tried
}

// takeSnapshot records inst's state, just started, as the pool's snapshot, or the reason it
// cannot, logged once.
func (p *pool) takeSnapshot(ctx context.Context, inst *instance) {
	snap, why := inst.snapshot(p)
	p.snaps.mu.Lock()
	if p.snaps.tried {
		p.snaps.mu.Unlock()
		return
	}
	p.attachImage(snap)
	if snap != nil {
		inst.snap = snap // the instance it was taken from resets to it too (reset.go)
	}
	p.snaps.tried, p.snaps.snap, p.snaps.refused = true, snap, why
	p.snaps.mu.Unlock()
	if why != "" {
		p.note(ctx, inst.call.Guest, slog.LevelInfo, "instances run the guest's start each time, not from a snapshot",
			slog.String("isolation", p.g.isolation.String()), slog.String("reason", why))
		return
	}
	p.note(ctx, inst.call.Guest, slog.LevelDebug, "instances start from a snapshot",
		slog.Int("memory", len(snap.Memory())), slog.Int("globals", len(snap.Globals)))
}

// note logs msg about p's snapshots for the guest named guest. The instance that describes a
// guest starts before its name is known (the manifest names it), in the pool that goes on to
// serve its calls, so what is said about that pool's snapshot holds for the guest: with guest
// "", note holds it back until load has the name and calls logHeld.
func (p *pool) note(ctx context.Context, guest string, level slog.Level, msg string, attrs ...slog.Attr) {
	if guest == "" {
		p.snaps.mu.Lock()
		p.snaps.held = append(p.snaps.held, heldNote{level, msg, attrs})
		p.snaps.mu.Unlock()
		return
	}
	p.g.host.logger.LogAttrs(ctx, level, msg, append([]slog.Attr{slog.String("guest", guest)}, attrs...)...)
}

// logHeld logs what note held back, naming the guest; load calls it once the manifest named
// the guest, or, when the guest could not be described, naming its source.
func (p *pool) logHeld(ctx context.Context) {
	p.snaps.mu.Lock()
	held := p.snaps.held
	p.snaps.held = nil
	p.snaps.mu.Unlock()
	who := slog.String("guest", p.g.name)
	if p.g.name == "" {
		who = slog.String("source", p.g.source)
	}
	for _, n := range held {
		p.g.host.logger.LogAttrs(ctx, n.level, n.msg, append([]slog.Attr{who}, n.attrs...)...)
	}
}

// snapshot copies inst's state, or says why it must not be copied.
func (inst *instance) snapshot(p *pool) (*snapstate.Snapshot, string) {
	if why := p.profile.NoSnapshot(); why != "" {
		return nil, why
	}
	t := inst.g.kind.t
	if t.Snapshot == nil {
		return nil, "its kind (" + inst.g.kind.Name() + ") does not restore instances"
	}
	if r := inst.call.StartRequest; r != "" {
		return nil, fmt.Sprintf("its start asked for a capability (request %q)", r)
	}
	mod := inst.mod
	if mod.ExportedGlobal(instrument.ExportSnapshot) == nil {
		return nil, "the module changes a table or drops a segment (table.set, table.grow, data.drop, …)"
	}
	s := &snapstate.Snapshot{Kind: t.Snapshot(inst.started)}
	if why, ok := s.Kind.(kind.Refusal); ok {
		return nil, string(why)
	}
	for k := 0; ; k++ {
		name := instrument.ExportGlobalPrefix + strconv.Itoa(k)
		g := mod.ExportedGlobal(name)
		if g == nil {
			break
		}
		mg, ok := g.(api.MutableGlobal)
		if !ok {
			continue // a constant: the same in every instance
		}
		switch t := mg.Type(); t {
		case api.ValueTypeI32, api.ValueTypeI64, api.ValueTypeF32, api.ValueTypeF64:
		default:
			return nil, fmt.Sprintf("its global %d is a mutable %s", k, api.ValueTypeName(t))
		}
		s.Globals = append(s.Globals, snapstate.Global{Name: name, Val: mg.Get()})
	}
	if inst.mem != nil {
		b, _ := inst.mem.Read(0, inst.mem.Size())
		s.Heap = bytes.Clone(b)
		s.Spans = snapstate.CopySpans(s.Heap, int(inst.initial))
	}
	return s, ""
}

// restore gives inst, instantiated without start functions, the state of snap: memory grown
// to the snapshot's size and overwritten (its spans; or, under snap's image mapped by
// memory.MappedAllocator, what instantiation wrote dropped), globals set.
func (inst *instance) restore(mod api.Module, snap *snapstate.Snapshot) error {
	snapMem := snap.Memory()
	defer goruntime.KeepAlive(snap) // snapMem may be snap's image's mapping
	mem := mod.Memory()
	if mem == nil {
		if len(snapMem) > 0 {
			return fmt.Errorf("%w: the module has no memory to restore a snapshot into", ErrABI)
		}
	} else {
		if cur := mem.Size(); uint64(cur) < uint64(len(snapMem)) {
			if _, ok := mem.Grow(uint32((uint64(len(snapMem)) - uint64(cur)) / pageSize)); !ok {
				if inst.memory != nil && inst.memory.Hit {
					return fmt.Errorf("%w (restoring %d bytes of memory)", ErrMemoryLimit, len(snapMem))
				}
				return fmt.Errorf("%w: cannot grow memory to the snapshot's %d bytes", ErrTrap, len(snapMem))
			}
		}
		buf, ok := mem.Read(0, uint32(len(snapMem)))
		if !ok {
			return fmt.Errorf("%w: memory smaller than the snapshot", ErrTrap)
		}
		if m := inst.memory; m != nil && m.Mapped && m.Image == len(snapMem) {
			// The image is mapped under buf: dropping what instantiation wrote (the data
			// segments) leaves the snapshot.
			if err := memory.DropPages(buf); err != nil {
				return fmt.Errorf("%w: restoring the snapshot's memory: %w", ErrTrap, err)
			}
		} else {
			for _, sp := range snap.Spans {
				copy(buf[sp.From:sp.To], snapMem[sp.From:sp.To])
			}
		}
	}
	for _, sg := range snap.Globals {
		g, _ := mod.ExportedGlobal(sg.Name).(api.MutableGlobal)
		if g == nil {
			return fmt.Errorf("%w: global %s is gone", ErrABI, sg.Name)
		}
		g.Set(sg.Val)
	}
	return nil
}

// reserveAllocator makes inner allocate at least reserve bytes of capacity (within max), so
// restoring a snapshot grows memory without copying it.
func reserveAllocator(inner experimental.MemoryAllocator, reserve uint64) experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capacity, maxBytes uint64) experimental.LinearMemory {
		return inner.Allocate(min(max(capacity, reserve), maxBytes), maxBytes)
	})
}
