package mcpserver

import (
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
)

// refreshGuest makes s serve g's lists as they are now, when they differ from those s serves
// for it: after a call whose guest reported its lists changed and was re-listed
// (runtime.CallHooks.ListsChanged). Tools, prompts, resources and templates it no longer
// has are removed, the others added again, and the SDK sends every session
// notifications/tools/list_changed (prompts, resources) for each list it changed. Refreshes
// of one server run one at a time; one that finds the lists already served does nothing, so
// calls that changed them together cause one. A new tool or prompt name, resource URI or
// template another owner holds (NameSet), or lists the SDK would refuse, keep what s served,
// with a warning naming both owners: the owner keeps its item.
func refreshGuest(s *mcp.Server, g *runtime.Guest) {
	reg := registryOf(s)
	if reg == nil {
		return
	}
	reg.refreshMu.Lock()
	defer reg.refreshMu.Unlock()
	reg.mu.RLock()
	r, ok := reg.served[g]
	reg.mu.RUnlock()
	next := g.Manifest()
	if !ok || r.manifest == next {
		return
	}
	o := r.opts
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	warn := func(err error) {
		o.Logger.Warn("guest lists changed; the server keeps serving the old ones", "guest", g.Name(), "reason", err.Error())
	}
	v, err := sdkValues(g.Name(), next) // features.go
	if err != nil {
		warn(err)
		return
	}
	if err := namesOf(&o).swap(guestItems(r.manifest), guestOwner(g), guestItems(next), guestOwner(g), g.Source()); err != nil {
		warn(err)
		return
	}
	old := r.manifest
	onlyChanged(v, old) // listfanout.go: an unchanged list is not registered again (nor announced)
	s.RemoveTools(gone(old.Tools, next.Tools, func(t abi.Tool) string { return t.Name })...)
	s.RemovePrompts(gone(old.Prompts, next.Prompts, func(p abi.Prompt) string { return p.Name })...)
	s.RemoveResources(gone(old.Resources, next.Resources, func(r abi.Resource) string { return r.URI })...)
	s.RemoveResourceTemplates(gone(old.ResourceTemplates, next.ResourceTemplates, func(r abi.ResourceTemplate) string { return r.URITemplate })...)
	if ts := tasksOf(s); ts != nil {
		for _, n := range gone(old.Tools, next.Tools, func(t abi.Tool) string { return t.Name }) {
			ts.setSupport(n, "") // tasks.go
		}
	}
	if err := registerGuest(s, g, v, &o); err != nil {
		warn(err)
	}
	reg.mu.Lock()
	reg.forget(g)
	reg.record(g, next)
	reg.served[g] = registration{opts: r.opts, manifest: next}
	reg.mu.Unlock()
}

// manifestToolNames lists m's tool names.
func manifestToolNames(m *abi.Manifest) []string {
	names := make([]string, len(m.Tools))
	for i, t := range m.Tools {
		names[i] = t.Name
	}
	return names
}

// gone lists the keys of old that next does not have.
func gone[T any](old, next []T, key func(T) string) []string {
	have := map[string]bool{}
	for _, x := range next {
		have[key(x)] = true
	}
	var out []string
	for _, x := range old {
		if k := key(x); !have[k] {
			out = append(out, k)
		}
	}
	return out
}
