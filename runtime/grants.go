package runtime

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// Grants are the capabilities the operator gives a guest (or narrows for one tool); see
// policy.Grants. It is an alias, so runtime.Grants and policy.Grants are one type.
type Grants = policy.Grants

// ExecGrant allows one program; see policy.Exec.
type ExecGrant = policy.Exec

// FSGrant mounts a host directory; see policy.FS.
type FSGrant = policy.FS

// Resolver looks up a host name's addresses; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// NetOptions configure how net grants reach the network. The zero value is valid.
type NetOptions struct {
	// Resolver resolves host names; nil means net.DefaultResolver. Tests and special networks
	// substitute their own.
	Resolver Resolver
	// DialContext opens a connection to an already checked "ip:port"; nil means a net.Dialer.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// MaxResponseBytes caps a response body; zero means 10 MiB.
	MaxResponseBytes int
	// Timeout caps one request including redirects; zero means 30 s. The call's own time
	// limit applies too.
	Timeout time.Duration
	// MaxRedirects caps redirect hops; zero means 5.
	MaxRedirects int
}

func (o NetOptions) internal() sandbox.NetOptions {
	s := sandbox.NetOptions{DialContext: o.DialContext, MaxResponseBytes: o.MaxResponseBytes, Timeout: o.Timeout, MaxRedirects: o.MaxRedirects}
	if o.Resolver != nil {
		s.Resolver = o.Resolver
	}
	return s
}

// ToolGrants returns what the operator granted tool (after per-tool narrowing) and what it
// effectively has (granted ∩ requested), as copies. ok is false for an unknown tool.
func (g *Guest) ToolGrants(tool string) (granted, effective Grants, ok bool) {
	t, found := g.tools[tool]
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
	for _, td := range g.manifest.Tools {
		for _, item := range g.tools[td.Name].sandbox.Ungranted() {
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
