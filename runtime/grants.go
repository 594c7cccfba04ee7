package runtime

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

// Ungranted lists the capabilities some tool of g requested but does not have, each once
// with the tools that lack it, e.g. `net "*" (tools fetch, head)`, `clock (tool now)`.
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
	out := make([]string, len(order))
	for i, item := range order {
		noun := "tools"
		if len(tools[item]) == 1 {
			noun = "tool"
		}
		out[i] = fmt.Sprintf("%s (%s %s)", item, noun, strings.Join(tools[item], ", "))
	}
	return out
}
