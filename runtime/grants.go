package runtime

import (
	"fmt"
	"net"
	"net/netip"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
)

// Grants are the capabilities the operator gives a guest (or narrows for one tool). Nothing
// is granted by default. What a call may use is the intersection of the operator's grants and
// the guest's requests (abi.Requests, guest-wide plus per tool): see Effective.
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
	// guest passing user input cannot inject options (B28).
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

// validate checks the operator's grants for shape errors, naming the first one.
func (g Grants) validate() error {
	for _, p := range g.Net {
		if _, err := parseHostPattern(p); err != nil {
			return fmt.Errorf("net %q: %w", p, err)
		}
	}
	names := map[string]bool{}
	for _, e := range g.Exec {
		if !path.IsAbs(e.Path) || path.Clean(e.Path) != e.Path {
			return fmt.Errorf("exec %q: path must be absolute and clean", e.Path)
		}
		if e.Dir != "" && !path.IsAbs(e.Dir) {
			return fmt.Errorf("exec %q: dir %q must be absolute", e.Path, e.Dir)
		}
		id := e.id()
		if names[id] {
			return fmt.Errorf("exec %q: granted twice; give each grant a distinct name", id)
		}
		names[id] = true
		if err := validateEnv(e.Env); err != nil {
			return fmt.Errorf("exec %q: %w", id, err)
		}
	}
	guestPaths := map[string]bool{}
	for _, f := range g.FS {
		if !path.IsAbs(f.Guest) || path.Clean(f.Guest) != f.Guest {
			return fmt.Errorf("fs: guest path %q must be absolute and clean", f.Guest)
		}
		if f.Host == "" {
			return fmt.Errorf("fs %q: host directory missing", f.Guest)
		}
		if guestPaths[f.Guest] {
			return fmt.Errorf("fs %q: mounted twice", f.Guest)
		}
		guestPaths[f.Guest] = true
	}
	return validateEnv(g.Env)
}

func validateEnv(env []string) error {
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		if name == "" || strings.ContainsAny(name, " \t\n\x00") {
			return fmt.Errorf("env %q: bad variable name", e)
		}
	}
	return nil
}

func (e ExecGrant) id() string {
	if e.Name != "" {
		return e.Name
	}
	return e.Path
}

// Effective returns what a tool may use: the operator's grants intersected with what the
// guest requested (its guest-wide requests plus the tool's own).
func Effective(granted Grants, requested abi.Requests) Grants {
	var eff Grants
	for _, g := range granted.Net {
		for _, r := range requested.Net {
			if p, ok := intersectHostPatterns(g, r); ok && !slices.Contains(eff.Net, p) {
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
	for _, m := range granted.MCP {
		if slices.Contains(requested.MCP, m) {
			eff.MCP = append(eff.MCP, m)
		}
	}
	return eff
}

// narrow intersects guest-level grants with a tool's own operator grants: a tool gets only
// what both give.
func narrow(guest, tool Grants) Grants {
	var out Grants
	for _, t := range tool.Net {
		for _, g := range guest.Net {
			if p, ok := intersectHostPatterns(g, t); ok && !slices.Contains(out.Net, p) {
				out.Net = append(out.Net, p)
			}
		}
	}
	for _, t := range tool.Exec {
		if i := slices.IndexFunc(guest.Exec, func(g ExecGrant) bool { return g.id() == t.id() && g.Path == t.Path }); i >= 0 {
			out.Exec = append(out.Exec, guest.Exec[i])
		}
	}
	for _, t := range tool.FS {
		if i := slices.IndexFunc(guest.FS, func(g FSGrant) bool { return g.Guest == t.Guest && g.Host == t.Host }); i >= 0 {
			f := guest.FS[i]
			f.RW = f.RW && t.RW
			out.FS = append(out.FS, f)
		}
	}
	for _, t := range tool.Env {
		if slices.Contains(guest.Env, t) {
			out.Env = append(out.Env, t)
		}
	}
	out.Clock = guest.Clock && tool.Clock
	out.Random = guest.Random && tool.Random
	for _, t := range tool.MCP {
		if slices.Contains(guest.MCP, t) {
			out.MCP = append(out.MCP, t)
		}
	}
	return out
}

// hostPattern is a parsed net grant or request: host (lowercase, no trailing dot), wildcard
// for "*.suffix" (host holds the suffix) or any for "*", and port (0 = the scheme's default
// port, anyPort for "host:*").
type hostPattern struct {
	host     string
	wildcard bool
	any      bool
	port     int
}

func parseHostPattern(s string) (hostPattern, error) {
	var p hostPattern
	h := strings.ToLower(strings.TrimSpace(s))
	if h == "" {
		return p, fmt.Errorf("empty pattern")
	}
	if strings.Contains(h, "/") {
		return p, fmt.Errorf("want host[:port], not a URL")
	}
	if host, port, err := net.SplitHostPort(h); err == nil && port == "*" {
		h, p.port = host, anyPort
	} else if err == nil {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return p, fmt.Errorf("bad port %q", port)
		}
		h, p.port = host, n
	} else if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	h = strings.TrimSuffix(h, ".")
	if a, err := netip.ParseAddr(h); err == nil {
		h = a.String() // IP literals compare in canonical form
	}
	switch {
	case h == "*":
		p.any = true
	case strings.HasPrefix(h, "*."):
		p.wildcard, p.host = true, h[2:]
	default:
		p.host = h
	}
	if p.host == "" && !p.any || strings.Contains(p.host, "*") {
		return p, fmt.Errorf("bad host pattern")
	}
	return p, nil
}

const anyPort = -1

func (p hostPattern) String() string {
	h := p.host
	switch {
	case p.any:
		h = "*"
	case p.wildcard:
		h = "*." + h
	case strings.Contains(h, ":"):
		h = "[" + h + "]"
	}
	switch p.port {
	case 0:
	case anyPort:
		h += ":*"
	default:
		h += ":" + strconv.Itoa(p.port)
	}
	return h
}

// matchesHost reports whether host (lowercase, no trailing dot) is covered, ignoring ports.
func (p hostPattern) matchesHost(host string) bool {
	switch {
	case p.any:
		return true
	case p.wildcard:
		return strings.HasSuffix(host, "."+p.host)
	}
	return host == p.host
}

// intersectHostPatterns returns the pattern both a and b cover, if one exists.
func intersectHostPatterns(a, b string) (string, bool) {
	pa, err1 := parseHostPattern(a)
	pb, err2 := parseHostPattern(b)
	if err1 != nil || err2 != nil {
		return "", false
	}
	switch {
	case pa.port == anyPort:
		pa.port = pb.port
	case pb.port == anyPort:
		pb.port = pa.port
	case pa.port != pb.port:
		return "", false
	}
	switch {
	case pa.any:
		return pb.String(), true
	case pb.any:
		return pa.String(), true
	case !pa.wildcard && pb.matchesHost(pa.host):
		return pa.String(), true
	case !pb.wildcard && pa.matchesHost(pb.host):
		return pb.String(), true
	case pa.wildcard && pb.wildcard:
		if pa.host == pb.host || strings.HasSuffix(pa.host, "."+pb.host) {
			return pa.String(), true
		}
		if strings.HasSuffix(pb.host, "."+pa.host) {
			return pb.String(), true
		}
	}
	return "", false
}

// ToolGrants returns what the operator granted tool (after per-tool narrowing) and what it
// effectively has (granted ∩ requested). ok is false for an unknown tool.
func (g *Guest) ToolGrants(tool string) (granted, effective Grants, ok bool) {
	t, found := g.tools[tool]
	if !found {
		return Grants{}, Grants{}, false
	}
	return t.caps.granted, t.caps.effective, true
}

// Ungranted lists the capabilities some tool of g requested but does not have, each once
// with the tools that lack it, e.g. `net "*" (tools fetch, head)`, `clock (tool now)`.
// Serving logs them, so an operator sees what a guest expected and was not given.
func (g *Guest) Ungranted() []string {
	var order []string
	tools := map[string][]string{}
	add := func(item, tool string) {
		if _, seen := tools[item]; !seen {
			order = append(order, item)
		}
		tools[item] = append(tools[item], tool)
	}
	for _, td := range g.manifest.Tools {
		t := g.tools[td.Name]
		req := mergeRequests(g.manifest.Requests, td.Requests)
		eff := t.caps.effective
		for _, r := range req.Net {
			if !slices.ContainsFunc(eff.Net, func(p string) bool { _, ok := intersectHostPatterns(p, r); return ok }) {
				add(fmt.Sprintf("net %q", r), td.Name)
			}
		}
		for _, r := range req.Exec {
			if !slices.ContainsFunc(eff.Exec, func(e ExecGrant) bool { return e.Path == r }) {
				add(fmt.Sprintf("exec %q", r), td.Name)
			}
		}
		for _, r := range req.FS {
			if !slices.ContainsFunc(eff.FS, func(f FSGrant) bool { return f.Guest == r.Path }) {
				add(fmt.Sprintf("fs %q", r.Path), td.Name)
			}
		}
		for _, r := range req.Env {
			if !slices.ContainsFunc(eff.Env, func(e string) bool { n, _, _ := strings.Cut(e, "="); return n == r }) {
				add(fmt.Sprintf("env %q", r), td.Name)
			}
		}
		if req.Clock && !eff.Clock {
			add("clock", td.Name)
		}
		if req.Random && !eff.Random {
			add("random", td.Name)
		}
		for _, r := range req.MCP {
			if !slices.Contains(eff.MCP, r) {
				add(fmt.Sprintf("mcp %q", r), td.Name)
			}
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
