package engine

import (
	"fmt"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// Grants are the capabilities the operator gives a guest (or narrows for one tool); see
// policy.Grants. It is an alias, so runtime.Grants and policy.Grants are one type.
type Grants = policy.Grants

// ToolGrants returns what the operator granted tool (after per-tool narrowing) and what it
// effectively has (granted ∩ requested), as copies. ok is false for an unknown tool.
func (g *Guest) ToolGrants(tool string) (granted, effective Grants, ok bool) {
	t, found := g.lists().tools[tool]
	if !found {
		return Grants{}, Grants{}, false
	}
	return t.sandbox.Granted(), t.sandbox.Effective(), true
}

// Ungranted lists the capabilities some tool of g requested but does not have, grouped by the
// tools that lack them, each group once, e.g. `net "*" (tools fetch, head)`, `clock (tool now)`,
// or, when every tool of several lacks them, `net "*", clock, random (all 19 tools)` — a plugin
// whose tools all request the same grants would otherwise name every tool once per grant.
// Serving logs them, so an operator sees what a guest expected and was not given.
func (g *Guest) Ungranted() []string {
	var order []string
	tools := map[string][]string{}
	l := g.lists()
	for _, td := range l.manifest.Tools {
		for _, item := range l.tools[td.Name].sandbox.Ungranted() {
			if _, seen := tools[item]; !seen {
				order = append(order, item)
			}
			tools[item] = append(tools[item], td.Name)
		}
	}
	var keys []string // one per distinct list of tools, in the order of their first item
	items := map[string][]string{}
	for _, item := range order {
		k := strings.Join(tools[item], ", ")
		if _, seen := items[k]; !seen {
			keys = append(keys, k)
		}
		items[k] = append(items[k], item)
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		n := len(tools[items[k][0]])
		who := "tools " + k
		switch {
		case n == 1:
			who = "tool " + k
		case n == len(l.manifest.Tools):
			who = fmt.Sprintf("all %d tools", n)
		}
		out[i] = fmt.Sprintf("%s (%s)", strings.Join(items[k], ", "), who)
	}
	return out
}
