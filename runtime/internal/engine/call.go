package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/memory"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
)

// CallError is runtime.CallError, documented there: the same fields; the root returns a
// call's *CallError as a *runtime.CallError.
type CallError struct {
	Guest string
	Op    string
	Name  string
	Err   error
}

func (e *CallError) Error() string {
	if e.Op == "" {
		return fmt.Sprintf("guest %q: %v", e.Guest, e.Err)
	}
	return fmt.Sprintf("guest %q %s %q: %v", e.Guest, e.Op, e.Name, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// ReadResource implements runtime.Guest.ReadResource, whose doc comment says what it does.
func (g *Guest) ReadResource(ctx context.Context, uri string) ([]byte, error) {
	v := g.hold()
	defer v.running.Add(-1)
	if v != g {
		return v.ReadResource(ctx, uri)
	}
	l := g.lists()
	return g.run(ctx, l.guestPool, kind.EntryRead, uri, nil, g.limits, l.guest)
}

// GetPrompt implements runtime.Guest.GetPrompt, whose doc comment says what it does.
func (g *Guest) GetPrompt(ctx context.Context, name string, args []byte) ([]byte, error) {
	v := g.hold()
	defer v.running.Add(-1)
	if v != g {
		return v.GetPrompt(ctx, name, args)
	}
	if len(args) == 0 {
		args = emptyObject
	}
	l := g.lists()
	return g.run(ctx, l.guestPool, kind.EntryPrompt, l.ownPrompt(name), args, g.limits, l.guest)
}

// Call implements runtime.Guest.Call, whose doc comment says what it does.
func (g *Guest) Call(ctx context.Context, toolName string, args []byte) ([]byte, error) {
	v := g.hold()
	defer v.running.Add(-1)
	if v != g { // replaced before the call reached g: the newest version answers
		return v.Call(ctx, toolName, args)
	}
	t, ok := g.lists().tools[toolName]
	if !ok {
		return nil, &CallError{Guest: g.name, Name: toolName, Err: fmt.Errorf("%w %q", ErrUnknownTool, toolName)}
	}
	if len(args) == 0 {
		args = emptyObject
	}
	if g.host.stopped.Load() {
		return nil, &CallError{g.name, "tool", toolName, ErrStopped}
	}
	if err := t.validate(args); err != nil {
		return nil, &CallError{g.name, "tool", toolName, fmt.Errorf("%w: %s", ErrInvalidArguments, err)}
	}
	out, err := g.run(ctx, t.pool, kind.EntryTool, t.own, args, t.limits, t.sandbox)
	if err == nil && t.deniedFS != nil {
		out = g.noteDeniedFS(ctx, t, out) // fsdenied.go
	}
	return out, err
}

// run is the one path of every entry into a guest: take an instance from p, run entry e of
// its kind under limits with sandbox sb (nil: no capability), log what the guest printed, and
// give the instance back (discarding it on error). The captured output belongs to the
// instance, so it is read before the instance is released: after release another call may
// already be writing to it.
func (g *Guest) run(ctx context.Context, p *pool, e kind.Entry, name string, args []byte, limits Limits, sb *sandbox.Tool) ([]byte, error) {
	op := entryOp(e)
	if g.host.stopped.Load() {
		return nil, &CallError{g.name, op, name, ErrStopped}
	}
	g.running.Add(1) // Drain
	defer g.running.Add(-1)
	// No context.WithTimeout: the deadline goes to the watchdog.Interrupter and to whatever waits
	// (runtime/internal/watchdog); a warm call derives no context at all.
	start := g.host.watch.Now()
	var grace time.Duration
	if g.kind.t.Grace != nil {
		grace = g.kind.t.Grace(limits.Timeout)
	}
	inst, err := p.acquire(ctx, start+limits.Timeout, grace)
	if err != nil {
		return nil, &CallError{g.name, op, name, err}
	}
	mark := inst.stderr.Written() // what the instance's start wrote is not this call's
	out, err := inst.enter(ctx, e, name, args, limits, sb)
	if err != nil && errors.Is(err, ErrTrap) {
		if line := trapLine(inst.stderr.Since(mark)); line != "" {
			// The guest's panic text ("panicked at …") is the part a model can act on.
			err = fmt.Errorf("%w (last stderr: %q)", err, line)
		}
	}
	relisted, relistOK := false, true
	if err == nil && e != kind.EntryDescribe && inst.call.ListsChanged != 0 {
		relisted, relistOK = g.relistAfter(ctx, inst) // relist.go
	}
	g.logStdio(ctx, inst, name)
	g.logDropped(ctx, inst, name)
	healthy := err == nil && relistOK // isolation call: the next call resets it first (pool.acquire)
	if err == nil && ctx.Err() != nil {
		// A graceful guest ended cleanly within its grace after the cancellation: its
		// instance is healthy, the call is still cancelled.
		err = fmt.Errorf("%w: %w", ErrCancelled, context.Cause(ctx))
	}
	if n := inst.stackBytes(); healthy && n > memory.RetainStackBytes {
		// The call's recursion grew the native stack; wazero never shrinks it (stackmem.go).
		g.host.logger.LogAttrs(ctx, slog.LevelDebug, "instance discarded: its call stack grew",
			slog.String("guest", g.name), slog.String("tool", name), slog.String("stack", size.Format(uint64(n))))
		healthy = false
		defer memory.ReturnStackMemory()
	}
	p.release(inst, healthy, start)
	if err != nil {
		return nil, &CallError{g.name, op, name, err}
	}
	if relisted {
		if hk := hooksFrom(ctx); hk != nil && hk.ListsChanged != nil {
			hk.ListsChanged()
		}
	}
	return out, nil
}

var emptyObject = []byte("{}")

// entryOp is CallError.Op of an entry: "tool", or the mcpwasm export name that has always
// named the others (abi.ExportRead, …), whatever the guest's kind.
func entryOp(e kind.Entry) string {
	switch e {
	case kind.EntryTool:
		return "tool"
	case kind.EntryRead:
		return abi.ExportRead
	case kind.EntryPrompt:
		return abi.ExportPrompt
	case kind.EntryComplete:
		return abi.ExportComplete
	}
	return abi.ExportDescribe
}

// trapLineBytes bounds the stderr line a trap's error quotes (trapLine).
const trapLineBytes = 512

// trapLine picks from what a guest wrote to stderr during one call the line that explains its
// trap: the last Go panic line ("panic: …"), else the last Rust panic line ("thread 'main'
// panicked at src/lib.rs:3:5:") joined with the message line after it, else the last
// non-empty line that is not a hint to set RUST_BACKTRACE. At most trapLineBytes bytes (cut at
// a rune boundary, "…" added); "" if the call wrote nothing. The caller quotes it with %q, so
// control and format characters show escaped, never raw.
func trapLine(stderr string) string {
	var lines []string
	for l := range strings.Lines(stderr) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	pick := ""
	for i := len(lines) - 1; i >= 0 && pick == ""; i-- {
		if strings.HasPrefix(lines[i], "panic: ") {
			pick = lines[i]
		}
	}
	for i := len(lines) - 1; i >= 0 && pick == ""; i-- {
		if strings.Contains(lines[i], " panicked at ") {
			pick = lines[i]
			if strings.HasSuffix(pick, ":") && i+1 < len(lines) {
				pick += " " + lines[i+1] // Rust ≥ 1.73 prints the message on the next line
			}
		}
	}
	for i := len(lines) - 1; i >= 0 && pick == ""; i-- {
		if !strings.HasPrefix(lines[i], "note: run with `RUST_BACKTRACE") {
			pick = lines[i]
		}
	}
	if len(pick) > trapLineBytes {
		cut := trapLineBytes
		for cut > 0 && !utf8.RuneStart(pick[cut]) {
			cut--
		}
		pick = pick[:cut] + "…"
	}
	return pick
}

// logStdio logs and clears what the guest wrote to stdout and stderr during one call. The
// caller must hold inst.
func (g *Guest) logStdio(ctx context.Context, inst *instance, name string) {
	for _, s := range [...]struct {
		name string
		buf  *sandbox.OutputBuffer
	}{{"stdout", &inst.stdout}, {"stderr", &inst.stderr}} {
		if s.buf.Len() == 0 {
			continue
		}
		g.host.logger.LogAttrs(ctx, slog.LevelInfo, "guest output", slog.String("guest", g.name),
			slog.String("tool", name), slog.String("stream", s.name), slog.String("text", s.buf.String()),
			slog.Bool("truncated", s.buf.Truncated))
		s.buf.Reset()
	}
}
