package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/hostpattern"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// Env is what the host lends every tool's checks: how net grants reach the network and
// which upstream MCP servers exist.
type Env struct {
	Net       peer.Net       // zero fields take defaults
	Upstreams peer.Upstreams // nil: mcp requests answer NOT_FOUND
}

// Tool is what one tool of one guest may do, computed once at load. Its methods are safe for
// concurrent use; nothing in it changes after NewTool returns.
type Tool struct {
	guest, tool string
	perTool     bool          // the operator narrowed grants per tool: denials name the tool
	granted     policy.Grants // the operator's grants for this tool
	effective   policy.Grants // granted ∩ requested
	requested   abi.Requests
	net         peer.Net
	upstreams   peer.Upstreams
	exec        []*execProgram // effective exec grants, resolved at load
}

// NewTool computes what tool (of guest) may use: granted — the operator's grants for it,
// already narrowed per tool (perTool true) or the guest's own — intersected with requested
// (the guest-wide and the tool's requests, see MergeRequests). Exec grants are resolved now
// (the program must exist and be executable); the error names the first that is not. The
// grants are copied.
func NewTool(guest, tool string, granted policy.Grants, perTool bool, requested abi.Requests, env Env) (*Tool, error) {
	t := &Tool{guest: guest, tool: tool, perTool: perTool, granted: granted.Clone(),
		requested: MergeRequests(requested, abi.Requests{}), net: netDefaults(env.Net), upstreams: env.Upstreams}
	t.effective = effective(t.granted, t.requested)
	for _, e := range t.effective.Exec {
		p, err := resolveExec(e)
		if err != nil {
			return nil, err
		}
		t.exec = append(t.exec, p)
	}
	return t, nil
}

// Granted returns a copy of what the operator granted the tool (after per-tool narrowing).
func (c *Tool) Granted() policy.Grants { return c.granted.Clone() }

// Effective returns a copy of what the tool may use: granted ∩ requested.
func (c *Tool) Effective() policy.Grants { return c.effective.Clone() }

// Profile is what instances running this tool are created with (see Profile).
func (c *Tool) Profile(memoryBytes uint64) Profile {
	var denied []string
	for _, d := range c.DeniedFS() {
		denied = append(denied, d.Path)
	}
	return Profile{fs: c.effective.FS, denied: denied, env: c.effective.Env, clock: c.effective.Clock, random: c.effective.Random, memory: memoryBytes}
}

// subject names who was refused, for denial messages.
func (c *Tool) subject() string {
	if c.perTool {
		return fmt.Sprintf("tool %q of guest %q", c.tool, c.guest)
	}
	return fmt.Sprintf("guest %q", c.guest)
}

// Request serves one request import call of the running tool (ABI.md §6.1): kind names the
// request ("http", "exec", "fs", "mcp.list", "mcp.call", "sampling", "elicitation", "roots"), body is its JSON. The answer is a status
// and a JSON body (the response, or abi.ErrorBody); a denied capability is data, never a
// trap. ctx carries the call's deadline and cancellation; every request ends with it.
func (c *Tool) Request(ctx context.Context, kind string, body []byte) (abi.Status, []byte) {
	switch kind {
	case abi.KindHTTP:
		return c.httpRequest(ctx, body)
	case abi.KindExec:
		return c.execRequest(ctx, body)
	case abi.KindMCPList, abi.KindMCPCall:
		return c.mcpRequest(ctx, kind, body)
	case abi.KindSampling, abi.KindElicitation, abi.KindRoots:
		return c.clientRequest(ctx, kind, body)
	case KindFS:
		return c.fsRequest(ctx, body)
	}
	return abi.StatusNotFound, ErrorBody(fmt.Sprintf("unknown request kind %q", clip(kind)))
}

// Ungranted lists what the tool requested and does not have, one item each, in the words of
// the config file: `net "*"`, `exec "/usr/bin/git"`, `fs "/data"`, `env "HOME"`, `clock`,
// `random`, `mcp "docs"`, `sampling`, `elicitation`, `roots`.
func (c *Tool) Ungranted() []string {
	var out []string
	req, eff := c.requested, c.effective
	for _, r := range req.Net {
		if !slices.ContainsFunc(eff.Net, func(p string) bool { _, ok := hostpattern.Intersect(p, r); return ok }) {
			out = append(out, fmt.Sprintf("net %q", r))
		}
	}
	for _, r := range req.Exec {
		if !slices.ContainsFunc(eff.Exec, func(e policy.Exec) bool { return e.Path == r }) {
			out = append(out, fmt.Sprintf("exec %q", r))
		}
	}
	for _, r := range req.FS {
		if !slices.ContainsFunc(eff.FS, func(f policy.FS) bool { return f.Guest == r.Path }) {
			out = append(out, fmt.Sprintf("fs %q", r.Path))
		}
	}
	for _, r := range req.Env {
		if !slices.ContainsFunc(eff.Env, func(e string) bool { n, _, _ := strings.Cut(e, "="); return n == r }) {
			out = append(out, fmt.Sprintf("env %q", r))
		}
	}
	if req.Clock && !eff.Clock {
		out = append(out, "clock")
	}
	if req.Random && !eff.Random {
		out = append(out, "random")
	}
	for _, r := range req.MCP {
		if !slices.Contains(eff.MCP, r) {
			out = append(out, fmt.Sprintf("mcp %q", r))
		}
	}
	for _, k := range clientKinds {
		if k.ofRequests(req) && !k.of(eff) {
			out = append(out, k.name)
		}
	}
	return out
}

// ErrorBody is the JSON body of a refused or failed request: abi.ErrorBody{Error: msg}.
func ErrorBody(msg string) []byte {
	b, _ := json.Marshal(abi.ErrorBody{Error: msg})
	return b
}
