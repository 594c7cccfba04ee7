package mcpserver

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NameSet is the one registry of the names on a server: which owner (a guest, an upstream
// such as `upstream "docs"`, the status tools) holds each tool name, prompt name, resource URI
// and resource template. AddGuest, ReplaceGuest, a guest's relist (refresh.go), AddStatus and
// Expose claim names in it, so no owner can overwrite another's tool, prompt or resource
// (mcp.Server's AddTool, AddPrompt, AddResource and AddResourceTemplate silently replace one
// of the same name). A guest is its own owner, not its name: two loaded guests that happen to
// share a name still conflict. Its methods are safe for concurrent use; the zero value is
// ready.
type NameSet struct {
	mu     sync.Mutex
	owners map[string]owner // item.key() → owner
}

// owner is who holds a name: id is the identity compared (a *runtime.Guest, the *Exposed of a
// whole-server guest, or the label of an upstream), label names it in messages. guest is set
// for a guest of any kind (a module or a whole server), whose names are its own unless its
// tool_prefix says otherwise: a clash between two guests names that way out. source is the
// guest's module, named when two owners carry the same label.
type owner struct {
	id     any
	label  string
	guest  bool
	source string
}

func labelOwner(label string) owner { return owner{id: label, label: label} }

func guestOwner(g *runtime.Guest) owner {
	return owner{id: g, label: fmt.Sprintf("guest %q", g.Name()), guest: true, source: g.Source()}
}

// item is one name in one of the four namespaces: what is "tool", "prompt", "resource" (a
// URI) or "resource template" (an RFC 6570 URI template).
type item struct{ what, name string }

// key is the registry key of it: templates that differ only in their variable names match
// the same URIs, so a template's key blanks them (`mem://notes/{id}` and `mem://notes/{n}`
// are both "mem://notes/{}"; an expression's operator, as in "{+path}", is kept).
func (it item) key() string {
	if it.what != "resource template" {
		return it.what + "\x00" + it.name
	}
	var b strings.Builder
	in := false
	for i := 0; i < len(it.name); i++ {
		c := it.name[i]
		switch {
		case c == '{':
			in = true
			b.WriteByte(c)
			if i+1 < len(it.name) && strings.IndexByte("+#./;?&=,!@|", it.name[i+1]) >= 0 {
				b.WriteByte(it.name[i+1])
				i++
			}
		case c == '}':
			in = false
			b.WriteByte(c)
		case in && c == ',':
			b.WriteByte(c) // {x,y} has two variables: keep the count
		case in && c == '*':
			b.WriteByte(c)
		case !in:
			b.WriteByte(c)
		}
	}
	return it.what + "\x00" + b.String()
}

func toolItems(names []string) []item {
	out := make([]item, len(names))
	for i, n := range names {
		out[i] = item{"tool", n}
	}
	return out
}

// Claim gives the tool name to owner (a label such as `upstream "docs"`) unless another owner
// holds it; it returns the holder's label.
func (n *NameSet) Claim(name, ownerLabel string) (holder string, ok bool) {
	h, ok := n.claimItem(item{"tool", name}, labelOwner(ownerLabel))
	return h.label, ok
}

// ToolServer returns the name of the guest or upstream holding the tool name: "calc" for a
// tool of guest "calc" (owner label `guest "calc"`), "docs" for one of `upstream "docs"`;
// "" if no one holds it or its owner is neither (the status tools). Code mode groups the
// declarations of tools by it.
func (n *NameSet) ToolServer(name string) string {
	n.mu.Lock()
	o, ok := n.owners[item{"tool", name}.key()]
	n.mu.Unlock()
	if !ok {
		return ""
	}
	for _, p := range []string{"guest ", "upstream "} {
		if q, found := strings.CutPrefix(o.label, p); found {
			if u, err := strconv.Unquote(q); err == nil {
				return u
			}
		}
	}
	return ""
}

// Release frees the tool name if owner (a label given to Claim) holds it.
func (n *NameSet) Release(name, ownerLabel string) {
	n.releaseItem(item{"tool", name}, labelOwner(ownerLabel))
}

// releaseOwner frees every name o holds and returns them.
func (n *NameSet) releaseOwner(o owner) []item {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []item
	for k, h := range n.owners {
		if h.id == o.id {
			what, name, _ := strings.Cut(k, "\x00")
			out = append(out, item{what, name})
			delete(n.owners, k)
		}
	}
	return out
}

func (n *NameSet) set(key string, o owner) {
	if n.owners == nil {
		n.owners = map[string]owner{}
	}
	n.owners[key] = o
}

// ClaimGuest claims the names of g's tools and prompts (as served, with its tool prefix), its
// resource URIs and its resource templates for g, all or none, as AddGuest does before it
// registers them: a name another owner holds is an error that names both — `tool "echo" of
// guest "b" is already provided by guest "a"`, `resource "mem://readme" of guest "b" is
// already provided by guest "a"` — and between two guests the way out. A tool or feature its
// server withholds (hidden text) still claims its name. It is the one rule of which names
// clash: a command that only describes guests (mcpwasm inspect) asks it to report what serve
// would refuse.
func (n *NameSet) ClaimGuest(g *runtime.Guest) error {
	return n.claimAll(guestItems(g.Manifest()), guestOwner(g), g.Source())
}

// ClaimServer claims the tool names of the whole-server guest name (its module source), as
// served (with its tool prefix), all or none, by the rule and in the words of ClaimGuest: what
// Expose with Kind "guest" refuses at its first listing. A command that only describes guests
// (mcpwasm inspect) asks it, after ClaimGuest, to report what serve would refuse.
func (n *NameSet) ClaimServer(name, source string, tools []string) error {
	return n.claimAll(toolItems(tools), owner{id: new(string), label: fmt.Sprintf("guest %q", name), guest: true, source: source}, source)
}

// ClaimStatus claims the names of the status tools (mcpwasm_status, mcpwasm_stop) and the
// status resource (mcpwasm://status), all or none, as AddStatus does: an error if a guest or
// upstream holds one.
func (n *NameSet) ClaimStatus() error {
	its := append(toolItems([]string{StatusToolName, StopToolName}), item{"resource", StatusURI})
	return n.claimAll(its, labelOwner(statusOwnerLabel), "")
}

// claimAll claims items for o, all or none: on a conflict nothing changes and the error
// names it.
func (n *NameSet) claimAll(items []item, o owner, source string) error {
	return n.swap(nil, owner{}, items, o, source)
}

// swap releases oldItems held by oldOwner and claims newItems for newOwner in one step, all or
// none: on a conflict nothing changes and the error names it (with source, the new guest's
// module, when both owners carry the same label).
func (n *NameSet) swap(oldItems []item, oldOwner owner, newItems []item, newOwner owner, source string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	freed := map[string]bool{}
	for _, it := range oldItems {
		k := it.key()
		freed[k] = oldOwner.id != nil && n.owners[k].id == oldOwner.id
	}
	for _, it := range newItems {
		k := it.key()
		if h, taken := n.owners[k]; taken && h.id != newOwner.id && !freed[k] {
			return clashError(it, newOwner, h, source)
		}
	}
	for k, ok := range freed {
		if ok {
			delete(n.owners, k)
		}
	}
	for _, it := range newItems {
		n.set(it.key(), newOwner)
	}
	return nil
}

// clashError is the refusal of newOwner's it, which holder h already provides.
func clashError(it item, newOwner, h owner, source string) error {
	label, holder := newOwner.label, h.label
	if label == holder {
		if source == "" {
			source = newOwner.source
		}
		label, holder = label+" ("+source+")", holder+" (another module)"
		if h.source != "" {
			holder = h.label + " (" + h.source + ")"
		}
	}
	err := fmt.Errorf("%s %q of %s is already provided by %s", it.what, it.name, label, holder)
	if !h.guest || !newOwner.guest { // a module guest or a whole-server guest (Expose, Kind "guest")
		return err
	}
	switch it.what {
	case "tool", "prompt":
		// hyper-mcp served every plugin's tools as plugin::tool; here a guest is prefixed
		// only when the operator says so.
		return fmt.Errorf("%w; to serve both, give one a tool prefix (config: \"tool_prefix\" of the guest; runtime.GuestConfig.ToolPrefix)", err)
	}
	// A URI is a reference the guest hands out (resource links, ui:// in tool _meta): a
	// prefix never rewrites it (RATIONALE.md, "Why one owner per prompt, resource URI and template, and why a prefix never rewrites a URI?").
	return fmt.Errorf("%w; a tool prefix does not rewrite resource URIs: serve only one of them", err)
}

// guestItems lists what m serves: its tool and prompt names, resource URIs and templates.
func guestItems(m *abi.Manifest) []item {
	out := toolItems(manifestToolNames(m))
	for _, p := range m.Prompts {
		out = append(out, item{"prompt", p.Name})
	}
	for _, r := range m.Resources {
		out = append(out, item{"resource", r.URI})
	}
	for _, r := range m.ResourceTemplates {
		out = append(out, item{"resource template", r.URITemplate})
	}
	return out
}

// ReplaceGuest serves next in place of old (a reload, which may rename the guest): old's names
// are released and next's claimed in one step (see AddGuest), next's tools are added, and
// old's tools that next no longer has are removed from s. It returns the removed names. On an
// error nothing changes and old keeps serving. The caller closes old once its running calls
// are done (runtime.Guest.Drain).
func ReplaceGuest(s *mcp.Server, old, next *runtime.Guest, opts *GuestOptions) (removed []string, err error) {
	var o GuestOptions
	if opts != nil {
		o = *opts
	}
	names := namesOf(&o)
	oldItems, nextItems := guestItems(old.Manifest()), guestItems(next.Manifest())
	if err := names.swap(oldItems, guestOwner(old), nextItems, guestOwner(next), next.Source()); err != nil {
		return nil, err
	}
	o.Names = names
	if err := AddGuest(s, next, &o); err != nil {
		_ = names.swap(nextItems, guestOwner(next), oldItems, guestOwner(old), old.Source())
		return nil, err
	}
	for _, t := range old.Manifest().Tools {
		if _, still := next.Tool(t.Name); !still {
			removed = append(removed, t.Name)
		}
	}
	old.ReplacedBy(next) // a call routed to old's handler that has not reached old: next's
	registryOf(s).remove(old)
	if ts := tasksOf(s); ts != nil {
		for _, n := range removed {
			ts.setSupport(n, "") // tasks.go
		}
	}
	if len(removed) > 0 {
		s.RemoveTools(removed...)
	}
	// Prompts, resources and templates old served and next does not: gone with old (next's
	// own are registered by AddGuest above, in place of old's).
	om, nm := old.Manifest(), next.Manifest()
	s.RemovePrompts(gone(om.Prompts, nm.Prompts, func(p abi.Prompt) string { return p.Name })...)
	s.RemoveResources(gone(om.Resources, nm.Resources, func(r abi.Resource) string { return r.URI })...)
	s.RemoveResourceTemplates(gone(om.ResourceTemplates, nm.ResourceTemplates, func(r abi.ResourceTemplate) string { return r.URITemplate })...)
	return removed, nil
}

func namesOf(opts *GuestOptions) *NameSet {
	if opts == nil || opts.Names == nil {
		return &NameSet{}
	}
	return opts.Names
}
