package runtime

import (
	"context"
	"fmt"
	"log/slog"
)

// ReadResource reads uri through the guest's mcpwasm_read (ABI.md §2.4) and returns its
// JSON answer: an MCP ReadResourceResult, or an abi.ErrorBody the caller maps to a JSON-RPC
// error. It runs without capability grants, under the guest's limits.
func (g *Guest) ReadResource(ctx context.Context, uri string) ([]byte, error) {
	return g.invoke(ctx, fnRead, uri, nil)
}

// GetPrompt renders prompt name with args (a JSON object of strings) through the guest's
// mcpwasm_prompt (ABI.md §2.4): an MCP GetPromptResult, or an abi.ErrorBody.
func (g *Guest) GetPrompt(ctx context.Context, name string, args []byte) ([]byte, error) {
	if len(args) == 0 {
		args = emptyObject
	}
	return g.invoke(ctx, fnPrompt, name, args)
}

func (g *Guest) invoke(ctx context.Context, fn int, name string, args []byte) ([]byte, error) {
	if g.host.stopped.Load() {
		return nil, fmt.Errorf("guest %q %s %q: %w", g.name, exportOrder[fn], name, ErrStopped)
	}
	ctx, cancel := context.WithTimeout(ctx, g.limits.Timeout)
	defer cancel()
	p := g.pools[0]
	inst, err := p.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("guest %q: %w", g.name, err)
	}
	out, err := inst.invoke(ctx, fn, name, args, g.limits)
	p.release(inst, err == nil)
	g.logStdio(ctx, inst, name)
	if err != nil {
		return nil, fmt.Errorf("guest %q %s %q: %w", g.name, exportOrder[fn], name, err)
	}
	return out, nil
}

// Call runs tool with args (a JSON object; nil or empty means {}) in a pooled instance and
// returns the guest's result JSON (an MCP CallToolResult, ABI.md §5), owned by the caller.
//
// Before the guest is entered, args are validated against the tool's input schema
// (ErrInvalidArguments, naming the field). A trap, the time limit, the memory limit, an
// oversized or malformed result each discard the instance and return an error wrapping
// ErrTrap, ErrTimeLimit, ErrMemoryLimit, ErrOutputLimit or ErrABI. If ctx is cancelled the
// guest is stopped and the error wraps ErrCancelled and ctx.Err().
func (g *Guest) Call(ctx context.Context, toolName string, args []byte) ([]byte, error) {
	t, ok := g.tools[toolName]
	if !ok {
		return nil, fmt.Errorf("guest %q: %w %q", g.name, ErrUnknownTool, toolName)
	}
	if g.host.stopped.Load() {
		return nil, fmt.Errorf("guest %q tool %q: %w", g.name, toolName, ErrStopped)
	}
	if len(args) == 0 {
		args = emptyObject
	}
	if err := t.validate(args); err != nil {
		return nil, fmt.Errorf("guest %q tool %q: %w: %s", g.name, toolName, ErrInvalidArguments, err)
	}
	ctx, cancel := context.WithTimeout(ctx, t.limits.Timeout)
	defer cancel()
	inst, err := t.pool.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("guest %q tool %q: %w", g.name, toolName, err)
	}
	out, err := inst.call(ctx, toolName, args, t.limits)
	t.pool.release(inst, err == nil)
	g.logStdio(ctx, inst, toolName)
	if err != nil {
		return nil, fmt.Errorf("guest %q tool %q: %w", g.name, toolName, err)
	}
	return out, nil
}

var emptyObject = []byte("{}")

// validate checks args against the tool's input schema. Valid arguments of a flat schema

func (g *Guest) logStdio(ctx context.Context, inst *instance, toolName string) {
	for _, s := range [...]struct {
		name string
		buf  *capBuffer
	}{{"stdout", &inst.stdout}, {"stderr", &inst.stderr}} {
		if s.buf.Len() == 0 {
			continue
		}
		g.host.logger.LogAttrs(ctx, slog.LevelInfo, "guest output", slog.String("guest", g.name),
			slog.String("tool", toolName), slog.String("stream", s.name), slog.String("text", s.buf.String()),
			slog.Bool("truncated", s.buf.truncated))
		s.buf.Reset()
	}
}
