package sandbox

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
)

// Grants are the capabilities the operator gives a guest or one of its tools. See
// runtime.Grants, the public cover type, for the meaning of each field.
type Grants struct {
	Net    []string
	Exec   []ExecGrant
	FS     []FSGrant
	Env    []string
	Clock  bool
	Random bool
	MCP    []string
	// Sampling, Elicitation, Roots: requests to the client of the current call (client.go).
	Sampling    bool
	Elicitation bool
	Roots       bool
}

// ExecGrant allows one program; see runtime.ExecGrant.
type ExecGrant struct {
	Name        string
	Path        string
	Args        []string
	Options     bool
	Env         []string
	Dir         string
	Timeout     time.Duration
	OutputBytes int
}

// FSGrant mounts host directory Host at guest path Guest, read-only unless RW.
type FSGrant struct {
	Guest string
	Host  string
	RW    bool
}

// Clone returns a deep copy of g: no slice of the result shares memory with g.
func (g Grants) Clone() Grants {
	c := g
	c.Net = slices.Clone(g.Net)
	c.Env = slices.Clone(g.Env)
	c.MCP = slices.Clone(g.MCP)
	c.FS = slices.Clone(g.FS)
	c.Exec = make([]ExecGrant, len(g.Exec))
	for i, e := range g.Exec {
		e.Args, e.Env = slices.Clone(e.Args), slices.Clone(e.Env)
		c.Exec[i] = e
	}
	if g.Exec == nil {
		c.Exec = nil
	}
	return c
}

// Validate checks the operator's grants for shape errors, naming the first one.
func (g Grants) Validate() error {
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
	if err := checkFSNesting(g.FS); err != nil {
		return err
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

// Narrow is the one rule for per-tool grants: a tool's grants may only remove from its
// guest's. It returns what the tool gets, or an error naming the first thing tool grants that
// guest does not cover — never a silent drop. Coverage per kind:
//
//   - net: each tool pattern lies within some guest pattern ("api.example.com" within
//     "*.example.com"; "a.example.com:8443" within "a.example.com:*"); the tool's pattern is
//     what the tool gets;
//   - exec: the guest has a grant with the same name and path; the tool gets the guest's
//     grant whole (arguments, environment, caps);
//   - fs: the guest mounts the same host directory at the same guest path; rw only if the
//     guest's mount is rw;
//   - env: the same entry ("NAME" or "NAME=value");
//   - clock, random: only if the guest has them;
//   - mcp: the same upstream name;
//   - sampling, elicitation, roots: only if the guest has them.
func Narrow(guest, tool Grants) (Grants, error) {
	var out Grants
	for _, t := range tool.Net {
		pt, err := parseHostPattern(t)
		if err != nil {
			return Grants{}, fmt.Errorf("net %q: %w", t, err)
		}
		if !slices.ContainsFunc(guest.Net, func(g string) bool { pg, err := parseHostPattern(g); return err == nil && pt.within(pg) }) {
			return Grants{}, fmt.Errorf("net %q is not granted to the guest", t)
		}
		if s := pt.String(); !slices.Contains(out.Net, s) {
			out.Net = append(out.Net, s)
		}
	}
	for _, t := range tool.Exec {
		i := slices.IndexFunc(guest.Exec, func(g ExecGrant) bool { return g.id() == t.id() && g.Path == t.Path })
		if i < 0 {
			return Grants{}, fmt.Errorf("exec %q is not granted to the guest", t.id())
		}
		out.Exec = append(out.Exec, guest.Exec[i])
	}
	for _, t := range tool.FS {
		i := slices.IndexFunc(guest.FS, func(g FSGrant) bool { return g.Guest == t.Guest && g.Host == t.Host })
		switch {
		case i < 0:
			return Grants{}, fmt.Errorf("fs %q is not granted to the guest", t.Guest)
		case t.RW && !guest.FS[i].RW:
			return Grants{}, fmt.Errorf("fs %q is read-only for the guest; a tool cannot make it rw", t.Guest)
		}
		out.FS = append(out.FS, t)
	}
	for _, t := range tool.Env {
		if !slices.Contains(guest.Env, t) {
			return Grants{}, fmt.Errorf("env %q is not granted to the guest", t)
		}
		out.Env = append(out.Env, t)
	}
	switch {
	case tool.Clock && !guest.Clock:
		return Grants{}, fmt.Errorf("clock is not granted to the guest")
	case tool.Random && !guest.Random:
		return Grants{}, fmt.Errorf("random is not granted to the guest")
	}
	out.Clock, out.Random = tool.Clock, tool.Random
	for _, k := range clientKinds {
		if k.of(tool) && !k.of(guest) {
			return Grants{}, fmt.Errorf("%s is not granted to the guest", k.name)
		}
	}
	out.Sampling, out.Elicitation, out.Roots = tool.Sampling, tool.Elicitation, tool.Roots
	for _, t := range tool.MCP {
		if !slices.Contains(guest.MCP, t) {
			return Grants{}, fmt.Errorf("mcp %q is not granted to the guest", t)
		}
		out.MCP = append(out.MCP, t)
	}
	return out.Clone(), nil
}

// effective returns what a tool may use: the operator's grants intersected with what the
// guest requested (its guest-wide requests plus the tool's own).
func effective(granted Grants, requested abi.Requests) Grants {
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
	eff.Sampling = granted.Sampling && requested.Sampling
	eff.Elicitation = granted.Elicitation && requested.Elicitation
	eff.Roots = granted.Roots && requested.Roots
	for _, m := range granted.MCP {
		if slices.Contains(requested.MCP, m) {
			eff.MCP = append(eff.MCP, m)
		}
	}
	return eff.Clone()
}

// MergeRequests is a tool's requests: the guest-wide ones plus its own.
func MergeRequests(guest, tool abi.Requests) abi.Requests {
	return abi.Requests{
		Net:    append(slices.Clone(guest.Net), tool.Net...),
		Exec:   append(slices.Clone(guest.Exec), tool.Exec...),
		FS:     append(slices.Clone(guest.FS), tool.FS...),
		Env:    append(slices.Clone(guest.Env), tool.Env...),
		Clock:  guest.Clock || tool.Clock,
		Random: guest.Random || tool.Random,
		MCP:    append(slices.Clone(guest.MCP), tool.MCP...),

		Sampling:    guest.Sampling || tool.Sampling,
		Elicitation: guest.Elicitation || tool.Elicitation,
		Roots:       guest.Roots || tool.Roots,
	}
}
