package runtime

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
)

// Grants are the capabilities the operator gives a guest (or narrows for one tool). Nothing
// is granted by default. What a call may use is the intersection of the operator's grants and
// the guest's requests (abi.Requests, guest-wide plus per tool); Guest.ToolGrants shows both.
// Grants is a plain value: the host copies it at Load, so changing a Grants (or a slice in
// it) afterwards changes nothing a guest can do. The checks behind each field live in
// package runtime/internal/sandbox.
type Grants struct {
	// Net lists host[:port] patterns the guest may reach over HTTP(S) (abi.KindHTTP): an exact
	// host ("api.example.com"), a wildcard for subdomains ("*.example.org", which does not
	// match the apex), or "*" (any host). Without a port only the scheme's default port (80,
	// 443) matches. Loopback, private, link-local, unspecified, multicast and CGNAT
	// addresses are refused unless the pattern is that IP literally or "localhost".
	Net []string
	// Exec lists programs the guest may run (abi.KindExec).
	Exec []ExecGrant
	// FS lists host directories mounted into the guest's WASI file system.
	FS []FSGrant
	// Env lists environment variables the guest sees: "NAME" passes the host's value,
	// "NAME=value" sets a fixed one.
	Env []string
	// Clock gives real wall-clock and monotonic time; otherwise the clock is deterministic.
	Clock bool
	// Random gives crypto/rand entropy; otherwise the random source is deterministic.
	Random bool
	// MCP lists upstream MCP servers (by config name) the guest may call.
	MCP []string
	// Sampling lets the guest ask the client of the current call to sample its model
	// (abi.KindSampling, MCP sampling/createMessage): it spends the user's tokens.
	Sampling bool
	// Elicitation lets the guest ask the user through the client of the current call
	// (abi.KindElicitation, MCP elicitation/create).
	Elicitation bool
	// Roots lets the guest list the client's roots (abi.KindRoots, MCP roots/list).
	Roots bool
}

// ExecGrant allows one program.
type ExecGrant struct {
	// Name identifies the grant in abi.ExecRequest.Program; empty means Path does.
	Name string
	// Path is the program's absolute path. It is resolved (symlinks followed) at load, and
	// the file must still be the same at each run.
	Path string
	// Args are fixed leading arguments; the guest's arguments follow them.
	Args []string
	// Options allows guest arguments that start with "-". By default they are refused, so a
	// guest passing user input cannot inject options.
	Options bool
	// Env lists variables for the child ("NAME" passes the host's value, "NAME=value" sets
	// one). Nothing else is inherited: not even PATH.
	Env []string
	// Dir is the working directory (absolute). Empty means the host's temp directory.
	Dir string
	// Timeout caps one run; zero means 10 s. OutputBytes caps stdout and stderr each; zero
	// means 1 MiB.
	Timeout     time.Duration
	OutputBytes int
}

// FSGrant mounts host directory Host at guest path Guest, read-only unless RW.
type FSGrant struct {
	Guest string
	Host  string
	RW    bool
}

// Within reports whether g only narrows guest, the rule for per-tool grants
// (GuestConfig.ToolGrants): nil, or an error naming the first thing g grants that guest does
// not cover. A net pattern must lie within a guest pattern ("api.example.com" within
// "*.example.com"), an exec grant must have the same name and path as one of the guest's,
// an fs mount the same guest path and host directory (rw only if the guest's is rw); env
// entries, mcp names, clock, random, sampling, elicitation and roots must be the guest's too.
func (g Grants) Within(guest Grants) error {
	_, err := sandbox.Narrow(guest.internal(), g.internal())
	return err
}

// internal returns a deep copy of g in the sandbox's type: nothing the caller holds can
// reach the sandbox's state.
func (g Grants) internal() sandbox.Grants {
	s := sandbox.Grants{Net: slices.Clone(g.Net), Env: slices.Clone(g.Env), Clock: g.Clock, Random: g.Random, MCP: slices.Clone(g.MCP),
		Sampling: g.Sampling, Elicitation: g.Elicitation, Roots: g.Roots}
	for _, e := range g.Exec {
		s.Exec = append(s.Exec, sandbox.ExecGrant(e))
	}
	for _, f := range g.FS {
		s.FS = append(s.FS, sandbox.FSGrant(f))
	}
	return s.Clone()
}

// publicGrants returns a deep copy of s in the public type.
func publicGrants(s sandbox.Grants) Grants {
	s = s.Clone()
	g := Grants{Net: s.Net, Env: s.Env, Clock: s.Clock, Random: s.Random, MCP: s.MCP,
		Sampling: s.Sampling, Elicitation: s.Elicitation, Roots: s.Roots}
	for _, e := range s.Exec {
		g.Exec = append(g.Exec, ExecGrant(e))
	}
	for _, f := range s.FS {
		g.FS = append(g.FS, FSGrant(f))
	}
	return g
}

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
	return publicGrants(t.sandbox.Granted()), publicGrants(t.sandbox.Effective()), true
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
