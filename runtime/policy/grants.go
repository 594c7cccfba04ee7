// Package policy holds what the operator decides for a guest: the capabilities it is granted
// (Grants, with its Exec and FS entries) and the resources it may use (Limits). The types are
// plain values with no behaviour of their own beyond checking and combining them; the
// runtime enforces them (package runtime, and its sandbox for every capability).
//
// Grants, Exec and FS carry json tags in the configuration file's vocabulary, so a file
// decodes straight into them: Exec's Timeout is "timeout_ms" there, in milliseconds. Limits
// has none: the file gives it in other units (MiB, milliseconds).
package policy

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/hostpattern"
)

// Grants are the capabilities the operator gives a guest (or narrows for one tool). Nothing
// is granted by default. What a call may use is the intersection of the operator's grants and
// the guest's requests (abi.Requests, guest-wide plus per tool); runtime's Guest.ToolGrants
// shows both. Grants is a plain value: the host copies it at load, so changing a Grants (or a
// slice in it) afterwards changes nothing a guest can do.
type Grants struct {
	// Net lists host[:port] patterns the guest may reach over HTTP(S) (abi.KindHTTP): an exact
	// host ("api.example.com"), a wildcard for subdomains ("*.example.org", which does not
	// match the apex), or "*" (any host). Without a port only the scheme's default port (80,
	// 443) matches. Loopback, private, link-local, unspecified, multicast and CGNAT
	// addresses are refused unless the pattern is that IP literally or "localhost".
	Net []string `json:"net,omitempty"`
	// Exec lists programs the guest may run (abi.KindExec).
	Exec []Exec `json:"exec,omitempty"`
	// FS lists host directories mounted into the guest's WASI file system.
	FS []FS `json:"fs,omitempty"`
	// Env lists environment variables the guest sees: "NAME" passes the host's value,
	// "NAME=value" sets a fixed one.
	Env []string `json:"env,omitempty"`
	// Clock gives real wall-clock and monotonic time; otherwise the clock is deterministic.
	Clock bool `json:"clock,omitempty"`
	// Random gives crypto/rand entropy; otherwise the random source is deterministic.
	Random bool `json:"random,omitempty"`
	// MCP lists upstream MCP servers (by config name) the guest may call.
	MCP []string `json:"mcp,omitempty"`
	// Sampling lets the guest ask the client of the current call to sample its model
	// (abi.KindSampling, MCP sampling/createMessage): it spends the user's tokens.
	Sampling bool `json:"sampling,omitempty"`
	// Elicitation lets the guest ask the user through the client of the current call
	// (abi.KindElicitation, MCP elicitation/create).
	Elicitation bool `json:"elicitation,omitempty"`
	// Roots lets the guest list the client's roots (abi.KindRoots, MCP roots/list).
	Roots bool `json:"roots,omitempty"`
}

// Exec allows one program. In JSON, Timeout is "timeout_ms" in whole milliseconds.
type Exec struct {
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

// execJSON is Exec in the configuration file's vocabulary.
type execJSON struct {
	Name        string   `json:"name,omitempty"`
	Path        string   `json:"path"`
	Args        []string `json:"args,omitempty"`
	Options     bool     `json:"options,omitempty"`
	Env         []string `json:"env,omitempty"`
	Dir         string   `json:"dir,omitempty"`
	TimeoutMS   int64    `json:"timeout_ms,omitempty"`
	OutputBytes int      `json:"output_bytes,omitempty"`
}

// MarshalJSON encodes e with Timeout as "timeout_ms" (whole milliseconds).
func (e Exec) MarshalJSON() ([]byte, error) {
	return json.Marshal(execJSON{Name: e.Name, Path: e.Path, Args: e.Args, Options: e.Options, Env: e.Env, Dir: e.Dir,
		TimeoutMS: e.Timeout.Milliseconds(), OutputBytes: e.OutputBytes})
}

// UnmarshalJSON decodes the form MarshalJSON writes.
func (e *Exec) UnmarshalJSON(data []byte) error {
	var j execJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*e = Exec{Name: j.Name, Path: j.Path, Args: j.Args, Options: j.Options, Env: j.Env, Dir: j.Dir,
		Timeout: time.Duration(j.TimeoutMS) * time.Millisecond, OutputBytes: j.OutputBytes}
	return nil
}

// FS mounts host directory Host at guest path Guest, read-only unless RW.
type FS struct {
	Guest string `json:"guest"`
	Host  string `json:"host"`
	RW    bool   `json:"rw,omitempty"`
}

// Clone returns a deep copy of g: no slice of the result shares memory with g.
func (g Grants) Clone() Grants {
	c := g
	c.Net = slices.Clone(g.Net)
	c.Env = slices.Clone(g.Env)
	c.MCP = slices.Clone(g.MCP)
	c.FS = slices.Clone(g.FS)
	c.Exec = make([]Exec, len(g.Exec))
	for i, e := range g.Exec {
		e.Args, e.Env = slices.Clone(e.Args), slices.Clone(e.Env)
		c.Exec[i] = e
	}
	if g.Exec == nil {
		c.Exec = nil
	}
	return c
}

// Validate checks g for shape errors and returns one naming the first: a net pattern that
// does not parse, an exec path or dir that is not absolute and clean, an exec grant given
// twice, an fs mount whose guest path is not absolute and clean, that lacks a host
// directory, that is mounted twice, or that is read-only inside a read-write mount, and a bad
// environment variable name.
func (g Grants) Validate() error {
	for _, p := range g.Net {
		if _, err := hostpattern.Parse(p); err != nil {
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
		id := e.ID()
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

// ID is the name a guest gives e by in abi.ExecRequest.Program: Name, or Path if Name is
// empty.
func (e Exec) ID() string {
	if e.Name != "" {
		return e.Name
	}
	return e.Path
}

// checkFSNesting refuses a read-only fs grant whose host directory is, or lies inside, the
// host directory of a read-write grant of the same grant set: through the read-write mount
// the guest could write what the read-only one promises to protect. Directories are compared
// after resolving symlinks where they exist (lexically otherwise); bind mounts and hard links
// are not seen. A read-write grant inside a read-only one is fine: the read-only mount only
// shows what the guest may change anyway.
func checkFSNesting(grants []FS) error {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if a, err := filepath.Abs(p); err == nil {
			p = a
		}
		return filepath.Clean(p)
	}
	for _, ro := range grants {
		if ro.RW {
			continue
		}
		roDir := real(ro.Host)
		for _, rw := range grants {
			if !rw.RW {
				continue
			}
			rwDir := real(rw.Host)
			if rwDir == roDir || rwDir == "/" || strings.HasPrefix(roDir, rwDir+string(filepath.Separator)) {
				return fmt.Errorf("fs %q: read-only directory %s lies inside read-write grant %q (%s), through which the guest could write it", ro.Guest, roDir, rw.Guest, rwDir)
			}
		}
	}
	return nil
}

// Within reports whether g only narrows guest, the rule for per-tool grants
// (runtime's GuestConfig.ToolGrants): nil, or an error naming the first thing g grants that
// guest does not cover. See Narrow for what covers what.
func (g Grants) Within(guest Grants) error {
	_, err := guest.Narrow(g)
	return err
}

// Narrow is the one rule for per-tool grants: a tool's grants may only remove from its
// guest's (g). It returns what the tool gets, or an error naming the first thing tool grants
// that g does not cover — never a silent drop. Coverage per kind:
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
func (g Grants) Narrow(tool Grants) (Grants, error) {
	guest := g
	var out Grants
	for _, t := range tool.Net {
		pt, err := hostpattern.Parse(t)
		if err != nil {
			return Grants{}, fmt.Errorf("net %q: %w", t, err)
		}
		if !slices.ContainsFunc(guest.Net, func(g string) bool { pg, err := hostpattern.Parse(g); return err == nil && pt.Within(pg) }) {
			return Grants{}, fmt.Errorf("net %q is not granted to the guest", t)
		}
		if s := pt.String(); !slices.Contains(out.Net, s) {
			out.Net = append(out.Net, s)
		}
	}
	for _, t := range tool.Exec {
		i := slices.IndexFunc(guest.Exec, func(g Exec) bool { return g.ID() == t.ID() && g.Path == t.Path })
		if i < 0 {
			return Grants{}, fmt.Errorf("exec %q is not granted to the guest", t.ID())
		}
		out.Exec = append(out.Exec, guest.Exec[i])
	}
	for _, t := range tool.FS {
		i := slices.IndexFunc(guest.FS, func(g FS) bool { return g.Guest == t.Guest && g.Host == t.Host })
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
	case tool.Sampling && !guest.Sampling:
		return Grants{}, fmt.Errorf("sampling is not granted to the guest")
	case tool.Elicitation && !guest.Elicitation:
		return Grants{}, fmt.Errorf("elicitation is not granted to the guest")
	case tool.Roots && !guest.Roots:
		return Grants{}, fmt.Errorf("roots is not granted to the guest")
	}
	out.Clock, out.Random = tool.Clock, tool.Random
	out.Sampling, out.Elicitation, out.Roots = tool.Sampling, tool.Elicitation, tool.Roots
	for _, t := range tool.MCP {
		if !slices.Contains(guest.MCP, t) {
			return Grants{}, fmt.Errorf("mcp %q is not granted to the guest", t)
		}
		out.MCP = append(out.MCP, t)
	}
	return out.Clone(), nil
}
