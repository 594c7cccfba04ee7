package mcpserver

import (
	"fmt"
	"sync"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NameSet is the one registry of the tool names on a server: which owner (`guest "calc"`,
// `upstream "docs"`) holds each. AddGuest, ReplaceGuest and Expose claim names in it, so no
// owner can overwrite another's tool (mcp.Server.AddTool silently replaces a tool of the same
// name). Its methods are safe for concurrent use; the zero value is ready.
type NameSet struct {
	mu     sync.Mutex
	owners map[string]string
}

// Claim gives name to owner unless another owner holds it; it returns the holder.
func (n *NameSet) Claim(name, owner string) (holder string, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.owners == nil {
		n.owners = map[string]string{}
	}
	if h, taken := n.owners[name]; taken && h != owner {
		return h, false
	}
	n.owners[name] = owner
	return owner, true
}

// Release frees name if owner holds it.
func (n *NameSet) Release(name, owner string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.owners[name] == owner {
		delete(n.owners, name)
	}
}

// claimAll claims names for owner, all or none: on a conflict nothing changes and the error
// names it.
func (n *NameSet) claimAll(names []string, owner string) error {
	return n.swap(nil, "", names, owner)
}

// swap releases oldNames held by oldOwner and claims newNames for newOwner in one step, all or
// none: on a conflict nothing changes and the error names it.
func (n *NameSet) swap(oldNames []string, oldOwner string, newNames []string, newOwner string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.owners == nil {
		n.owners = map[string]string{}
	}
	freed := map[string]bool{}
	for _, name := range oldNames {
		freed[name] = n.owners[name] == oldOwner
	}
	for _, name := range newNames {
		if h, taken := n.owners[name]; taken && h != newOwner && !freed[name] {
			return fmt.Errorf("tool %q of %s is already provided by %s", name, newOwner, h)
		}
	}
	for name, ok := range freed {
		if ok {
			delete(n.owners, name)
		}
	}
	for _, name := range newNames {
		n.owners[name] = newOwner
	}
	return nil
}

func guestOwner(g *runtime.Guest) string { return fmt.Sprintf("guest %q", g.Name()) }

func toolNames(g *runtime.Guest) []string {
	m := g.Manifest()
	names := make([]string, len(m.Tools))
	for i, t := range m.Tools {
		names[i] = t.Name
	}
	return names
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
	if err := names.swap(toolNames(old), guestOwner(old), toolNames(next), guestOwner(next)); err != nil {
		return nil, err
	}
	o.Names = names
	if err := AddGuest(s, next, &o); err != nil {
		_ = names.swap(toolNames(next), guestOwner(next), toolNames(old), guestOwner(old))
		return nil, err
	}
	for _, t := range old.Manifest().Tools {
		if _, still := next.Tool(t.Name); !still {
			removed = append(removed, t.Name)
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
