package mcpserver

import (
	"context"
	"maps"
	"slices"

	"github.com/mcpwasm/mcpwasm/internal/digest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Pinning an exposed upstream's tools (MCP tool poisoning / "rug pull", RATIONALE.md): the
// first definition seen of each upstream tool is kept for the life of the Exposed; a later
// listing whose definition differs withholds that tool — not listed, not callable — with a
// warning naming each changed field, until Approve. Unchanged tools keep working.

// ToolPin maps a tool field ("title", "description", "inputSchema", "outputSchema",
// "annotations", "icons", "_meta", "execution") to "sha256:" and the SHA-256 of its canonical JSON (object keys
// sorted, numbers as sent: internal/digest, the rule lock files use too).
type ToolPin map[string]string

// PinTool returns the pin of t's current definition; taskSupport is its
// execution.taskSupport as listed (the SDK's Tool has no "execution"; "" means forbidden).
func PinTool(t *mcp.Tool, taskSupport string) ToolPin {
	return digest.Tool(t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations, t.Icons, t.Meta, taskSupport)
}

// changedFields lists, sorted, the fields whose digests differ between pin and now. A field
// the pin lacks (a lock written before it was digested) is not a change; pinCheck records it.
func changedFields(pin, now ToolPin) []string {
	var out []string
	for f, d := range now {
		if p, had := pin[f]; had && p != d {
			out = append(out, f)
		}
	}
	for f := range pin {
		if _, ok := now[f]; !ok {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// pinCheck pins t on first sight and returns the fields that changed since (none: serve it).
// Called with e.mu held.
func (e *Exposed) pinCheck(t *mcp.Tool, taskSupport string) []string {
	now := PinTool(t, taskSupport)
	pin, ok := e.pins[t.Name]
	if !ok {
		if !e.opts.PinnedOnly || e.approved[t.Name] {
			e.pins[t.Name] = now
			delete(e.approved, t.Name)
		}
		return nil
	}
	changed := changedFields(pin, now)
	if len(changed) == 0 {
		for f, d := range now { // a pin from an older lock: its missing fields, as first seen
			if _, had := pin[f]; !had {
				pin[f] = d
			}
		}
	}
	return changed
}

// Pins returns the pinned definitions, by upstream tool name (for a lock file).
func (e *Exposed) Pins() map[string]ToolPin {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]ToolPin, len(e.pins))
	for k, v := range e.pins {
		out[k] = maps.Clone(v)
	}
	return out
}

// Approve accepts the upstream tool's current definition (the operator's decision) and
// refreshes, so a withheld tool is served again.
func (e *Exposed) Approve(ctx context.Context, tool string) error {
	e.mu.Lock()
	delete(e.pins, tool)
	if e.approved == nil {
		e.approved = map[string]bool{}
	}
	e.approved[tool] = true // with PinnedOnly, pinned at the next listing
	e.mu.Unlock()
	return e.Refresh(ctx)
}
