package sandbox

import (
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/hostpattern"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// effective returns what a tool may use: the operator's grants intersected with what the
// guest requested (its guest-wide requests plus the tool's own).
func effective(granted policy.Grants, requested abi.Requests) policy.Grants {
	var eff policy.Grants
	for _, g := range granted.Net {
		for _, r := range requested.Net {
			if p, ok := hostpattern.Intersect(g, r); ok && !slices.Contains(eff.Net, p) {
				eff.Net = append(eff.Net, p)
			}
		}
	}
	for _, e := range granted.Exec {
		if slices.Contains(requested.Exec, e.Path) {
			eff.Exec = append(eff.Exec, e)
		}
	}
	for _, f := range granted.FS {
		for _, r := range requested.FS {
			if r.Path == f.Guest {
				f.RW = f.RW && r.RW
				eff.FS = append(eff.FS, f)
				break
			}
		}
	}
	for _, e := range granted.Env {
		name, _, _ := strings.Cut(e, "=")
		if slices.Contains(requested.Env, name) {
			eff.Env = append(eff.Env, e)
		}
	}
	eff.Clock = granted.Clock && requested.Clock
	eff.Random = granted.Random && requested.Random
	eff.Sampling = granted.Sampling && requested.Sampling
	eff.Elicitation = granted.Elicitation && requested.Elicitation
	eff.Roots = granted.Roots && requested.Roots
	for _, m := range granted.MCP {
		if slices.Contains(requested.MCP, m) {
			eff.MCP = append(eff.MCP, m)
		}
	}
	return eff.Clone()
}

// MergeRequests is a tool's requests: the guest-wide ones plus its own (abi.Requests.With).
func MergeRequests(guest, tool abi.Requests) abi.Requests { return guest.With(tool) }
