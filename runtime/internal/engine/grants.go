package engine

import (
	"fmt"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// Grants are the capabilities the operator gives a guest (or narrows for one tool); see
// policy.Grants. It is an alias, so runtime.Grants and policy.Grants are one type.
type Grants = policy.Grants

// ToolGrants implements runtime.Guest.ToolGrants, whose doc comment says what it does.
func (g *Guest) ToolGrants(tool string) (granted, effective Grants, ok bool) {
	t, found := g.lists().tools[tool]
	if !found {
		return Grants{}, Grants{}, false
	}
	return t.sandbox.Granted(), t.sandbox.Effective(), true
}

// Ungranted implements runtime.Guest.Ungranted, whose doc comment says what it does.
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
