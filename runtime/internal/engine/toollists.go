package engine

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/internal/schema"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	"github.com/tetratelabs/wazero/api"
)

// buildLists derives what g serves from manifest m (with the names it is served under, own
// holding the declared names that differ: servedNames) under config c: its tools (limits,
// schemas, grants and the pool of each), the resources it serves and its prompts' sandbox.
// newPools false (a relist, while calls run) refuses a tool whose grants no pool of g has.
func (g *Guest) buildLists(m *abi.Manifest, own map[string]string, c *GuestConfig, exports map[string]api.FunctionDefinition, newPools bool) (*lists, error) {
	l := &lists{manifest: *m, tools: make(map[string]*tool, len(m.Tools)), own: own}
	for _, td := range m.Tools {
		t, err := newTool(td, g.limits, c.ToolLimits[td.Name])
		if err != nil {
			return nil, fmt.Errorf("guest %q: %w", g.name, err)
		}
		t.own = td.Name
		if n, ok := own["tool:"+td.Name]; ok {
			t.own = n
		}
		if _, dup := l.tools[td.Name]; dup {
			return nil, fmt.Errorf("guest %q: tool %q is declared twice", g.name, td.Name)
		}
		if err := g.grantTool(t, c, &l.manifest, newPools); err != nil {
			return nil, fmt.Errorf("guest %q tool %q: %w", g.name, td.Name, err)
		}
		l.tools[td.Name] = t
	}
	if err := g.checkResourcesAndPrompts(l, exports); err != nil {
		return nil, fmt.Errorf("guest %q: %w", g.name, err)
	}
	if err := g.grantGuest(l, c, newPools); err != nil {
		return nil, fmt.Errorf("guest %q resources, prompts and completions: %w", g.name, err)
	}
	for _, td := range m.Tools {
		g.warnUnenforced(l.tools[td.Name])
	}
	return l, nil
}

// warnUnenforced logs one warning for each schema keyword of t the host leaves to the guest
// (runtime/internal/schema), once the lists it belongs to are built: at load, and at a relist only
// for a tool whose schemas changed.
func (g *Guest) warnUnenforced(t *tool) {
	if len(t.unenforced) == 0 {
		return
	}
	if old := g.cur.Load(); old != nil {
		if o, ok := old.tools[t.def.Name]; ok && bytes.Equal(o.def.InputSchema, t.def.InputSchema) && bytes.Equal(o.def.OutputSchema, t.def.OutputSchema) {
			return
		}
	}
	for _, u := range t.unenforced {
		args := []any{"guest", g.name, "tool", t.def.Name, "path", u.Path}
		if u.Pattern != "" {
			args = append(args, "pattern", u.Pattern)
		}
		g.host.logger.Warn("schema keyword not enforced by the host: "+u.Why+"; only the guest can check it", args...)
	}
}

// checkResourcesAndPrompts validates the manifest's resources, templates and prompts, and
// that the module's kind can serve them (Kind.CheckManifest; for mcpwasm, ABI.md §2.4), and
// sets l.served.
func (g *Guest) checkResourcesAndPrompts(l *lists, exports map[string]api.FunctionDefinition) error {
	m := &l.manifest
	if err := g.kind.CheckManifest(m, exports); err != nil {
		return err
	}
	uris := map[string]bool{}
	for _, r := range m.Resources {
		if r.URI == "" || r.Name == "" {
			return fmt.Errorf("resource %q: uri and name are required", r.URI)
		}
		if uris[r.URI] {
			return fmt.Errorf("resource %q is declared twice", r.URI)
		}
		uris[r.URI] = true
	}
	for _, r := range m.ResourceTemplates {
		if r.URITemplate == "" || r.Name == "" {
			return fmt.Errorf("resource template %q: uriTemplate and name are required", r.URITemplate)
		}
	}
	var templates []string
	for _, r := range m.ResourceTemplates {
		templates = append(templates, r.URITemplate)
	}
	served, err := sandbox.NewResources(g.name, slices.Collect(maps.Keys(uris)), templates)
	if err != nil {
		return err
	}
	l.served = served
	names := map[string]bool{}
	for _, p := range m.Prompts {
		if !abi.ValidName(p.Name) {
			return fmt.Errorf("prompt name %q does not match %s", p.Name, abi.NamePattern)
		}
		if names[p.Name] {
			return fmt.Errorf("prompt %q is declared twice", p.Name)
		}
		names[p.Name] = true
	}
	return nil
}

// requested is what the guest requests when granted granted: r, its manifest's requests,
// unless its kind infers them (kind.Traits.Requested: an Extism plugin cannot name paths).
func (g *Guest) requested(r abi.Requests, granted policy.Grants) abi.Requests {
	if g.kind.t.Requested != nil {
		return g.kind.t.Requested(r, granted)
	}
	return r
}

// grantGuest computes what l's resource reads, prompts and completions may use — the guest's
// grants (per-tool narrowing applies to tools only) within the guest's requests and every
// tool's, since a guest's handlers share its code — and picks the pool that runs them: one
// whose instances have those grants, made if none has and newPools (else, at a relist,
// the one the lists had).
func (g *Guest) grantGuest(l *lists, c *GuestConfig, newPools bool) error {
	req := l.manifest.Requests
	for _, td := range l.manifest.Tools {
		req = sandbox.MergeRequests(req, td.Requests)
	}
	sb, err := sandbox.NewTool(g.name, "", c.Grants, false, g.requested(req, c.Grants),
		sandbox.Env{Net: g.host.net, Upstreams: g.host.upstreams})
	if err != nil {
		return err
	}
	l.guest = sb
	prof := sb.Profile(g.limits.MemoryBytes)
	for _, p := range g.pools {
		if p.profile.Equal(prof) {
			l.guestPool = p
			return nil
		}
	}
	if !newPools {
		if old := g.cur.Load(); old != nil {
			l.guestPool = old.guestPool
			return nil
		}
		return errors.New("its grants differ from those it had at load, which a relist cannot add (reload the guest)")
	}
	p, err := newPool(g, prof, g.limits.Instances)
	if err != nil {
		return err
	}
	g.pools = append(g.pools, p)
	l.guestPool = p
	return nil
}

// grantTool computes what tool t of manifest m may use and gives it a pool of instances built
// for that. Per-tool grants follow the one narrowing rule (Grants.Within): anything wider is
// an error. With newPools false, a tool whose grants no pool of g has is refused.
func (g *Guest) grantTool(t *tool, c *GuestConfig, m *abi.Manifest, newPools bool) error {
	granted := c.Grants.Clone()
	if c.ToolGrants != nil {
		var err error
		if granted, err = granted.Narrow(c.ToolGrants[t.def.Name]); err != nil {
			return fmt.Errorf("grants: %w", err)
		}
	}
	requested := g.requested(sandbox.MergeRequests(m.Requests, t.def.Requests), granted)
	sb, err := sandbox.NewTool(g.name, t.def.Name, granted, c.ToolGrants != nil, requested,
		sandbox.Env{Net: g.host.net, Upstreams: g.host.upstreams})
	if err != nil {
		return err
	}
	t.sandbox = sb
	if len(sb.Effective().Exec) > 0 {
		if err := sandbox.ExecIsolation(); err != nil { // probed once per process
			g.host.logger.Warn("exec: programs start without a PID namespace; a descendant that leaves the process group (setsid) can outlive its call",
				"guest", g.name, "tool", t.def.Name, "reason", err)
		}
	}
	t.deniedFS = sb.DeniedFS() // fsdenied.go
	prof := sb.Profile(t.limits.MemoryBytes)
	for _, p := range g.pools {
		if p.profile.Equal(prof) {
			t.pool = p
			return nil
		}
	}
	if !newPools {
		return errors.New("its grants differ from those of every tool the guest had at load, which a relist cannot add (reload the guest)")
	}
	p, err := newPool(g, prof, g.limits.Instances)
	if err != nil {
		return err
	}
	g.pools = append(g.pools, p)
	t.pool = p
	return nil
}

// prefixHint is the hint for a per-tool limit or grant naming a tool as the guest declares
// it rather than as it is served: ` (with the tool prefix "b-" it is "b-echo")` when
// prefix+name is one of the guest's tools, ` (it is served as "files_read_601e4eb6")` when a
// foreign name was mapped (names.go), else "".
func prefixHint(l *lists, prefix, name string) string {
	for _, t := range l.tools {
		if t.own == name && t.def.Name != prefix+name {
			return fmt.Sprintf(" (it is served as %q)", t.def.Name)
		}
	}
	if prefix == "" {
		return ""
	}
	if _, ok := l.tools[prefix+name]; !ok {
		return ""
	}
	return fmt.Sprintf(" (with the tool prefix %q it is %q)", prefix, prefix+name)
}

func newTool(td abi.Tool, guestLimits, toolLimits Limits) (*tool, error) {
	if !abi.ValidName(td.Name) {
		return nil, fmt.Errorf("tool name %q does not match %s", td.Name, abi.NamePattern)
	}
	t := &tool{def: td, limits: toolLimits.Merge(guestLimits)}
	t.limits.Instances = guestLimits.Instances
	if err := t.limits.Validate(); err != nil {
		return nil, fmt.Errorf("tool %q: %w", td.Name, err)
	}
	var err error
	var skipped []schema.Unenforced
	if t.input, skipped, err = schema.ResolveHost(td.InputSchema); err != nil {
		return nil, fmt.Errorf("tool %q: inputSchema: %w", td.Name, err)
	}
	for _, u := range skipped {
		u.Path = "inputSchema" + u.Path
		t.unenforced = append(t.unenforced, u)
	}
	t.flat = schema.CompileFlat(td.InputSchema)
	if t.input.Schema().Type != "object" {
		return nil, fmt.Errorf(`tool %q: inputSchema: type must be "object", got %q`, td.Name, t.input.Schema().Type)
	}
	if len(td.OutputSchema) > 0 {
		if t.output, skipped, err = schema.ResolveHost(td.OutputSchema); err != nil {
			return nil, fmt.Errorf("tool %q: outputSchema: %w", td.Name, err)
		}
		for _, u := range skipped {
			u.Path = "outputSchema" + u.Path
			t.unenforced = append(t.unenforced, u)
		}
	}
	return t, nil
}
