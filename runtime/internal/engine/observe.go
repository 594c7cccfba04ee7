package engine

import (
	"cmp"
	"context"
	"encoding/hex"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
)

// OutcomeOf implements runtime.OutcomeOf, whose doc comment says what it does.
func OutcomeOf(err error) string { return fault.Outcome(err) }

// Observer is runtime.Observer, documented there (the same methods).
type Observer interface {
	CallDone(guest, tool, outcome string, d time.Duration)
	RequestStart(ctx context.Context, guest, tool, kind string) func(abi.Status)
	CacheLookup(hit bool)
}

// ReportCall implements runtime.Guest.ReportCall, whose doc comment says what it does.
func (g *Guest) ReportCall(tool string, err error, isError bool, d time.Duration) (outcome string) {
	outcome = fault.Outcome(err)
	if err == nil && isError {
		outcome = fault.ToolError
	}
	if _, ok := g.lists().tools[tool]; !ok {
		tool = "other"
	}
	g.stats.calls.Add(1)
	if outcome != fault.OK {
		g.stats.errors.Add(1)
	}
	if o := g.host.observer; o != nil {
		o.CallDone(g.name, tool, outcome, d)
	}
	return outcome
}

// guestCounters are a guest's call counts since it was loaded.
type guestCounters struct {
	calls, errors atomic.Uint64
	resets        atomic.Uint64 // instances reset in place (reset.go)
}

// SHA256 returns the lowercase hex SHA-256 of the guest's module.
func (g *Guest) SHA256() string {
	if e := g.code.entry; e != nil {
		return strings.ToLower(e.SHA256)
	}
	return hex.EncodeToString(g.code.sum[:])
}

// GuestStats is runtime.GuestStats, documented there: the same fields, converted by the
// root's Host.Stats.
type GuestStats struct {
	Name          string
	Kind          string
	Version       string
	Source        string
	SHA256        string
	Tools         []string
	Busy, Idle    int
	MemoryBytes   uint64
	Calls, Errors uint64
	Resets        uint64
}

// Stats implements runtime.Host.Stats, whose doc comment says what it does.
func (h *Host) Stats() []GuestStats {
	h.mu.Lock()
	guests := make([]*Guest, 0, len(h.guests))
	for g := range h.guests {
		guests = append(guests, g)
	}
	h.mu.Unlock()
	out := make([]GuestStats, 0, len(guests))
	for _, g := range guests {
		l := g.lists()
		s := GuestStats{Name: g.name, Kind: g.kind.Name(), Version: l.manifest.Version, Source: g.source, SHA256: g.SHA256(),
			Calls: g.stats.calls.Load(), Errors: g.stats.errors.Load(), Resets: g.stats.resets.Load()}
		for name := range l.tools {
			s.Tools = append(s.Tools, name)
		}
		slices.Sort(s.Tools)
		for _, p := range g.pools {
			p.mu.Lock()
			s.Busy += len(p.busy)
			s.Idle += len(p.idleAt)
			for _, size := range p.busy {
				s.MemoryBytes += size
			}
			for inst := range p.idleAt {
				s.MemoryBytes += uint64(inst.mem.Size())
			}
			p.mu.Unlock()
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b GuestStats) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Source, b.Source))
	})
	return out
}

// observeRequest wraps one capability request with the observer's start and end.
func (h *Host) observeRequest(ctx context.Context, c *kind.Call, rkind string) func(abi.Status) {
	if h.observer == nil {
		return nil
	}
	return h.observer.RequestStart(ctx, c.Guest, c.Tool, rkind)
}
