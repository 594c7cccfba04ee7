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

// OutcomeOf names how a tool call ended, for an embedder's metrics, traces and status: a
// small fixed set of labels, safe as a metric label. It classifies an error of Guest.Call by
// the sentinel it wraps (errors.Is), never by its text:
//
//	"ok"                 nil
//	"invalid_arguments"  ErrInvalidArguments (the guest was not entered)
//	"unknown_tool"       ErrUnknownTool
//	"timeout"            ErrTimeLimit
//	"memory_limit"       ErrMemoryLimit
//	"output_limit"       ErrOutputLimit
//	"trap"               ErrTrap
//	"abi_error"          ErrABI
//	"cancelled"          ErrCancelled
//	"stopped"            ErrStopped (the kill switch)
//	"closed"             ErrClosed
//	"error"              anything else (a guest whose code failed to load, …)
//
// Stopped and closed are tried first: a stop or close ends the call through its context
// too. One more label comes from the result, not an error: "tool_error", a result with
// isError (MCP "Tools › Error Handling") or one that broke its outputSchema; ReportCall
// decides it.
func OutcomeOf(err error) string { return fault.Outcome(err) }

// Observer receives what a Host does, for metrics and traces (package telemetry implements
// it with Prometheus and OpenTelemetry; the runtime imports neither). Set it in
// Options.Observer. Its methods are called synchronously from many goroutines at once, on the
// call path: they must be safe for concurrent use and return quickly.
type Observer interface {
	// CallDone reports one finished tool call of guest: its outcome (a label of OutcomeOf, or
	// "tool_error") and its duration (from the request reaching the binding to its answer).
	// The binding that finishes the call reports it through Guest.ReportCall, since only it
	// knows whether the result was a tool error.
	CallDone(guest, tool, outcome string, d time.Duration)
	// RequestStart reports that tool of guest made a capability request of kind (abi.KindHTTP,
	// abi.KindExec, abi.KindMCPCall, …; any string the guest sent, so bound it before using it
	// as a label). ctx is the call's context (it carries the caller's trace). The returned
	// func, if not nil, is called once when the request is answered, with the status the
	// guest gets: abi.StatusDenied when no grant allows it.
	RequestStart(ctx context.Context, guest, tool, kind string) func(abi.Status)
	// CacheLookup reports one look-up of a module in the manifest cache at Load, which lets
	// a lazy load skip compiling and describing (Options.Lazy): hit or miss. Loads without
	// Options.Lazy do not look.
	CacheLookup(hit bool)
}

// ReportCall reports one finished tool call to the host's Observer (a no-op without one) and
// counts it in Stats, and returns the outcome label it reported. Bindings call it once per
// tools/call with the error of Call (nil for a result), whether the result had isError set
// (or broke its outputSchema), and the call's duration. The label is OutcomeOf(err) for an
// error, "tool_error" for a result with isError, else "ok".
//
// A tool the guest does not declare is reported as "other", so callers cannot grow the label
// set of a metric.
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

// GuestStats is a snapshot of one loaded guest, for gauges and status.
type GuestStats struct {
	Name    string
	Kind    string   // Guest.Kind: the guest's ABI ("mcpwasm")
	Version string   // from the manifest
	Source  string   // GuestConfig.Source
	SHA256  string   // lowercase hex digest of the module
	Tools   []string // tool names, sorted
	// Busy and Idle count its instances running a call and waiting for one.
	Busy, Idle int
	// MemoryBytes is the linear memory of its instances, in bytes: idle ones as they are,
	// busy ones as they were when their call started (a running guest's memory is not read).
	MemoryBytes uint64
	// Calls and Errors count its tool calls reported with ReportCall, and those whose outcome
	// was not "ok".
	Calls, Errors uint64
	// Resets counts the instances reset in place to the state right after the guest's start
	// and reused for another session (isolation session) or call (isolation call), instead
	// of being discarded for a fresh one.
	Resets uint64
}

// Stats returns a snapshot of every loaded guest, sorted by name (then source). It takes each
// pool's lock briefly and never waits for a call.
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
