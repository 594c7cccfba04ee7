package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/tetratelabs/wazero/sys"
)

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
		inst.memory.Hit = false
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
	if code := inst.intr.Interrupted(); code != 0 {
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
	if inst.memory != nil && inst.memory.Hit {
		return fmt.Errorf("%w (%s): %s", ErrMemoryLimit, size.Format(inst.memory.Limit), msg)
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
