package mcpserver

import (
	"fmt"
	"sync"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NameSet is the one registry of the tool names on a server: which owner (a guest, an
// upstream such as `upstream "docs"`) holds each. AddGuest, ReplaceGuest and Expose claim names
// in it, so no owner can overwrite another's tool (mcp.Server.AddTool silently replaces a tool
// of the same name). A guest is its own owner, not its name: two loaded guests that happen to
// share a name still conflict. Its methods are safe for concurrent use; the zero value is
// ready.
type NameSet struct {
	mu     sync.Mutex
	owners map[string]owner
}

// owner is who holds a name: id is the identity compared (a *runtime.Guest, or the label of an
// upstream), label names it in messages.
type owner struct {
	id    any
	label string
}

func labelOwner(label string) owner { return owner{id: label, label: label} }

func guestOwner(g *runtime.Guest) owner {
	return owner{id: g, label: fmt.Sprintf("guest %q", g.Name())}
}

// Claim gives name to owner (a label such as `upstream "docs"`) unless another owner holds
// it; it returns the holder's label.
func (n *NameSet) Claim(name, ownerLabel string) (holder string, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	o := labelOwner(ownerLabel)
	if h, taken := n.owners[name]; taken && h.id != o.id {
		return h.label, false
	}
	n.set(name, o)
	return ownerLabel, true
}

// Release frees name if owner (a label given to Claim) holds it.
func (n *NameSet) Release(name, ownerLabel string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.owners[name].id == any(ownerLabel) {
		delete(n.owners, name)
	}
}

func (n *NameSet) set(name string, o owner) {
	if n.owners == nil {
		n.owners = map[string]owner{}
	}
	n.owners[name] = o
}

// ClaimGuest claims the names of g's tools (as served, with its tool prefix) for g, all or
// none, as AddGuest does before it registers them: a name another owner holds is an error
// that names both — `tool "echo" of guest "b" is already provided by guest "a"`, and between
// two guests the way out, a "tool_prefix". A tool its server withholds (hidden text) still
// claims its name. It is the one rule of which names clash: a command that only describes
// guests (mcpwasm inspect) asks it to report what serve would refuse.
func (n *NameSet) ClaimGuest(g *runtime.Guest) error {
	return n.claimAll(toolNames(g), guestOwner(g), g.Source())
}

// ClaimStatus claims the names of the status tools (mcpwasm_status, mcpwasm_stop), both or
// neither, as AddStatus does: an error if a guest or upstream holds one.
func (n *NameSet) ClaimStatus() error {
	return n.claimAll([]string{StatusToolName, StopToolName}, labelOwner(statusOwnerLabel), "")
}

// claimAll claims names for o, all or none: on a conflict nothing changes and the error
// names it.
func (n *NameSet) claimAll(names []string, o owner, source string) error {
	return n.swap(nil, owner{}, names, o, source)
}

// swap releases oldNames held by oldOwner and claims newNames for newOwner in one step, all or
// none: on a conflict nothing changes and the error names it (with source, the new guest's
// module, when both owners carry the same label).
func (n *NameSet) swap(oldNames []string, oldOwner owner, newNames []string, newOwner owner, source string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	freed := map[string]bool{}
	for _, name := range oldNames {
		freed[name] = oldOwner.id != nil && n.owners[name].id == oldOwner.id
	}
	for _, name := range newNames {
		if h, taken := n.owners[name]; taken && h.id != newOwner.id && !freed[name] {
			label, holder := newOwner.label, h.label
			if label == holder {
				label, holder = label+" ("+source+")", holder+" (another module)"
				if g, ok := h.id.(*runtime.Guest); ok {
					holder = h.label + " (" + g.Source() + ")"
				}
			}
			err := fmt.Errorf("tool %q of %s is already provided by %s", name, label, holder)
			if _, ok := h.id.(*runtime.Guest); ok {
				if _, ok := newOwner.id.(*runtime.Guest); ok {
					// hyper-mcp served every plugin's tools as plugin::tool; here a guest
					// is prefixed only when the operator says so.
					err = fmt.Errorf("%w; to serve both, give one a tool prefix (config: \"tool_prefix\" of the guest; runtime.GuestConfig.ToolPrefix)", err)
				}
			}
			return err
		}
	}
	for name, ok := range freed {
		if ok {
			delete(n.owners, name)
		}
	}
	for _, name := range newNames {
		n.set(name, newOwner)
	}
	return nil
}

func toolNames(g *runtime.Guest) []string { return manifestToolNames(g.Manifest()) }

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
	if err := names.swap(toolNames(old), guestOwner(old), toolNames(next), guestOwner(next), next.Source()); err != nil {
		return nil, err
	}
	o.Names = names
	if err := AddGuest(s, next, &o); err != nil {
		_ = names.swap(toolNames(next), guestOwner(next), toolNames(old), guestOwner(old), old.Source())
		return nil, err
	}
	for _, t := range old.Manifest().Tools {
		if _, still := next.Tool(t.Name); !still {
			removed = append(removed, t.Name)
		}
	}
	registryOf(s).remove(old)
	if ts := tasksOf(s); ts != nil {
		for _, n := range removed {
			ts.setSupport(n, "") // tasks.go
		}
	}
	if len(removed) > 0 {
		s.RemoveTools(removed...)
	}
	return removed, nil
}

func namesOf(opts *GuestOptions) *NameSet {
	if opts == nil || opts.Names == nil {
		return &NameSet{}
	}
	return opts.Names
}
