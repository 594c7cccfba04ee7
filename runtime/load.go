package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/internal/manifests"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/loadcheck"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/internal/schema"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// GuestConfig configures one guest at load. The zero value (or nil) is valid.
type GuestConfig struct {
	// Name overrides the guest name from its manifest (for a JavaScript guest, McpServer's
	// name; one outside abi.NamePattern is served as names.DeriveGuestName derives it).
	Name string
	// Source names where the module came from (a path, "bundled:calc"), for messages.
	Source string
	// Limits for every call of the guest; zero fields take policy.DefaultLimits().
	Limits Limits
	// ToolLimits narrow Limits for single tools; zero fields take the guest's limits.
	// Instances is a guest-wide setting and is ignored here.
	ToolLimits map[string]Limits
	// Grants are the operator's grants to the guest. Nothing is granted when empty.
	Grants Grants
	// ToolGrants, when non-nil, narrows Grants per tool: a tool gets what both its entry and
	// Grants give, and a tool without an entry gets nothing.
	ToolGrants map[string]Grants
	// Isolation says which calls may share an instance — and so see what earlier calls left
	// in its linear memory and globals. A warm instance is what makes calls cheap, and a guest
	// can keep anything in it: a cache, a counter, the last arguments.
	//
	//   - "session" (or ""): an instance is reused only for calls of the session it last
	//     served (CallHooks.Session); a call of another session gets a fresh instance. The
	//     default: no MCP session sees what another's calls left, and a session's calls after
	//     its first are warm. Calls whose context carries no session count as one session.
	//   - "shared": any call of the guest may reuse an instance; the fastest, for guests that
	//     cache on purpose. Calls of different sessions (and clients) may see each other's
	//     leftovers.
	//   - "call": every call gets a fresh instance; nothing survives a call, at the price of
	//     a reset per call (about 0.1 ms for a Go guest, ten microseconds for a small WAT
	//     one; bench/HISTORY.md "Snapshots, reset in place (wave 7)").
	//
	// A fresh instance starts from a snapshot of the guest's first instance taken right after
	// its start, and is usually the instance the last session or call used, reset in place
	// to that snapshot (GuestStats.Resets counts them; docs/guests-abi.md "Isolation: what a
	// guest may rely on").
	//
	// Validate (and Load) refuse any other value.
	Isolation string
	// SHA256, when set, is the hex SHA-256 the module must have; a mismatch fails the load.
	SHA256 string
	// Config is the operator's key-value strings for the guest: what an Extism plugin reads
	// with config_get (hyper-mcp's env_vars). A client never sets them. Copied at Load.
	Config map[string]string
	// ToolPrefix is put before the name of each of the guest's tools and prompts: the
	// guest's tool "echo" is served (and called, and named in ToolLimits and ToolGrants) as
	// ToolPrefix+"echo", its prompt "greet" as ToolPrefix+"greet" (prompts/get and
	// completion/complete refs are mapped back), and the guest still sees "echo" and
	// "greet". It lets two guests that name a tool or prompt alike be served side by side
	// (hyper-mcp serves every plugin's tools as "plugin::tool"). Resource URIs and templates
	// are never rewritten: a URI is a reference the guest hands out (resource links, ui://
	// in tool _meta), so two guests cannot serve one URI.
	// A prefixed name must still match abi.NamePattern; a JavaScript or Extism guest's that
	// does not is served as names.MapName maps it (names.go).
	ToolPrefix string
	// HideTools are Go regular expressions (RE2 syntax): a tool whose declared name — before
	// ToolPrefix and any name mapping — one of them matches whole (anchored, as hyper-mcp's
	// skip_tools) is not served: neither listed nor callable, for every kind and after a
	// re-list too. "delete_.*" hides delete_gist; "gist" hides only gist. Validate refuses a
	// pattern that does not compile, naming it.
	HideTools []string
	// Args is the guest's command-line arguments: argv after the program name, as a server
	// run from a shell gets them (a JavaScript guest's process.argv.slice(2); the directories
	// an npm file server is given; a whole-server guest's argv after its name, argv[0] being the
	// guest's name). The operator's only; copied at Load.
	Args []string
}

// Load compiles wasm (using the compilation cache), checks it against the ABI, reads and
// validates its manifest, and returns a Guest ready to call. Errors name the guest source and
// the first problem found: a missing export, an import the host lacks, a bad tool name or
// schema, grants wider than allowed. A panic inside wazero is returned as an error. Tool
// names need only be unique within the guest: across guests, the server they are served on
// decides (mcpserver.AddGuest).
func (h *Host) Load(ctx context.Context, wasm []byte, cfg *GuestConfig) (g *Guest, err error) {
	return h.load(ctx, wasm, cfg, nil)
}

// load is Load, or with file set LoadFile's cache hit: wasm is then nil, and the file's
// cached manifest stands in for it (loadfile.go).
func (h *Host) load(ctx context.Context, wasm []byte, cfg *GuestConfig, file *fileSource) (g *Guest, err error) {
	var c GuestConfig
	if cfg != nil {
		c = *cfg
	}
	src := c.Source
	if src == "" {
		src = "guest module"
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: panic while loading: %v", src, p)
		}
		if err != nil && g != nil {
			_ = g.Close(ctx)
			g = nil
		}
	}()
	if err := c.Validate(); err != nil { // limits, isolation, grants (isolation.go)
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	limits := c.Limits.Merge(policy.DefaultLimits())
	iso, _ := parseIsolation(c.Isolation)
	if err := checkSHA256(wasm, c.SHA256, file); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	var key string
	var entry *manifests.Entry
	if file != nil { // LoadFile checked the size cap and the pin; the compile reads the bytes
		key, entry = file.key, file.entry
	} else {
		if err := checkModuleSize(wasm, limits); err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		key, entry = h.cachedManifest(wasm, limits) // with Options.Lazy, a hit defers compiling (lazy.go)
	}
	// The module is parsed once (loadcheck.Module) and every check reads that. The structural
	// caps guard wazero's parser, so they run before whatever compiles the module: here, or
	// with a cache hit in the background compile (guestCode.loadCode), which keeps a scan of
	// every function body (~10 ms for a 4 MB Go guest) off the start.
	var parsed *loadcheck.Module
	if entry == nil && wasm != nil {
		parsed = h.parse(wasm)
		if err := parsed.Caps(limits); err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		if m := parsed.Whole(); m != nil && isWASICommand(m) { // a whole MCP server: LoadServer (wasiserver.go)
			return nil, fmt.Errorf("%s: %w", src, errWASIServer)
		}
	}
	compiled, err := h.compileUnlessCached(ctx, key, parsed, entry, limits)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	var customs map[string][]byte
	if compiled != nil && parsed != nil {
		customs = scriptSectionsOf(parsed.Whole())
	}
	k, err := h.kindOf(compiled, customs, entry, limits)
	if err != nil {
		_ = compiled.Close(ctx)
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	g = &Guest{host: h, name: c.Name, source: src, config: maps.Clone(c.Config), args: slices.Clone(c.Args), compiled: compiled, kind: k, limits: limits, isolation: iso, customs: customs}
	g.code = h.newGuestCode(key, entry, wasm, compiled)
	if k.t.Version != nil {
		g.kindVersion = k.t.Version(slices.Collect(maps.Keys(g.code.exports(compiled))))
	}
	if file != nil {
		g.code.path = file.path
	}
	startReq := abi.Requests{}
	switch {
	case compiled != nil:
		startReq = k.StartRequests(moduleOf(compiled, customs), customs)
	case entry != nil:
		startReq = entry.StartRequests
	}
	g.code.startRequests = startReq
	if k.t.ArgRequests != nil {
		startReq = k.t.ArgRequests(startReq, c.Args) // not cached: the args are the config's
	}
	// Before describe the guest may have no name yet (a script names itself in its manifest):
	// the start's refusals name it by its source's file name, never as "".
	startName := c.Name
	if startName == "" {
		startName = strings.TrimSuffix(filepath.Base(src), ".wasm")
	}
	if g.start, err = sandbox.NewTool(startName, "", c.Grants, false, g.requested(startReq, c.Grants),
		sandbox.Env{Net: g.host.net, Upstreams: g.host.upstreams}); err != nil {
		return g, fmt.Errorf("%s: start grants: %w", src, err)
	}
	base, err := newPool(g, g.start.Profile(limits.MemoryBytes), limits.Instances)
	if err != nil {
		return g, fmt.Errorf("%s: %w", src, err)
	}
	g.pools = []*pool{base}

	m, err := g.describe(ctx)
	if err != nil {
		base.logHeld(ctx) // what the guest logged before it failed, naming its source
		return g, fmt.Errorf("%s: %w", src, err)
	}
	if g.name == "" {
		g.name = m.Name
		if k.t.GuestName != nil {
			g.name = k.t.GuestName(c.Source)
		}
		if g.name, err = g.guestNameOf(ctx, g.name); err != nil { // names.go
			base.logHeld(ctx)
			return g, fmt.Errorf("%s: %w", src, err)
		}
	}
	if !abi.ValidName(g.name) {
		base.logHeld(ctx)
		return g, fmt.Errorf("%s: guest name %q does not match %s", src, g.name, abi.NamePattern)
	}
	base.logHeld(ctx)
	m, hidden := hideTools(m, c.HideTools) // hide.go
	if hidden != nil {
		h.logger.Info("tools hidden by hide_tools", "guest", g.name, "tools", hidden)
	}
	served, own, renames, err := servedNames(m, c.ToolPrefix, g.foreign())
	if err != nil {
		return g, fmt.Errorf("guest %q: %w", g.name, err)
	}
	l, err := g.buildLists(served, own, &c, g.code.exports(compiled), true)
	if err != nil {
		return g, err
	}
	l.renames = renames
	g.logRenames(ctx, l, nil)
	g.cur.Store(l)
	g.gc = c
	g.gc.HideTools = slices.Clone(c.HideTools) // a relist hides by the patterns of the load
	for name := range c.ToolLimits {
		if _, ok := l.tools[name]; !ok {
			return g, fmt.Errorf("guest %q: limits given for unknown tool %q%s", g.name, name, prefixHint(l, c.ToolPrefix, name))
		}
	}
	for name := range c.ToolGrants {
		if _, ok := l.tools[name]; !ok {
			return g, fmt.Errorf("guest %q: grants given for unknown tool %q%s", g.name, name, prefixHint(l, c.ToolPrefix, name))
		}
	}
	if err := h.register(g); err != nil {
		return g, err
	}
	h.afterLoad(g, compiled)
	h.logger.Debug("guest loaded", "guest", g.name, "source", src, "tools", len(l.tools))
	return g, nil
}

// compile checks the parsed module's estimated compile memory (loadcheck.CompileMemory),
// bounds its tables (loadcheck.Tables) and instruments it so every function entry observes
// the time limit, then compiles it. A module our parser finds malformed is compiled as given
// so the error is wazero's precise one; a reference to an undefined index or an unknown
// instruction is refused with the rewrite's own error, which names the function and the index.
func (h *Host) compile(ctx context.Context, p *loadcheck.Module, limits Limits) (wazero.CompiledModule, error) {
	timeout := limits.CompileTimeout
	if err := p.CompileMemory(limits); err != nil {
		return nil, err
	}
	var inst []byte
	tables, ierr := p.Tables(limits)
	if errors.Is(ierr, ErrLoadLimit) || errors.Is(ierr, ErrABI) {
		return nil, ierr
	}
	if ierr == nil {
		inst, ierr = instrument.Module(p.M, tables) // the tables bounded in the same rewrite
		if errors.Is(ierr, wasm.ErrUndefinedIndex) || errors.Is(ierr, wasm.ErrUnknownInstr) {
			return nil, fmt.Errorf("compiling: %w", ierr)
		}
	}
	if ierr == nil { // the checks added at loops weigh: 3 bytes of loop are ~20 compiled
		if err := checkCompileMemory(inst, limits); err != nil { // the module the host wrote
			return nil, err
		}
	}
	if ierr != nil {
		cm, err := h.compileModule(ctx, p.Bytes, timeout)
		if err != nil {
			return nil, fmt.Errorf("compiling: %w", err)
		}
		_ = cm.Close(ctx)
		return nil, fmt.Errorf("compiling: %w", ierr)
	}
	cm, err := h.compileModule(ctx, inst, timeout)
	if err != nil {
		return nil, fmt.Errorf("compiling: %w", err)
	}
	return cm, nil
}

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
// (schemapattern.go), once the lists it belongs to are built: at load, and at a relist only
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

// checkSHA256 checks the config pin against wasm, or for a module not read yet (file), against
// the digest of the module its cached manifest was described from; the background compile
// checks the bytes against that digest before they run.
func checkSHA256(wasm []byte, want string, file *fileSource) error {
	if want == "" {
		return nil
	}
	if file != nil {
		if !strings.EqualFold(file.entry.SHA256, want) {
			return fmt.Errorf("sha256 is %s, config pins %s", file.entry.SHA256, want)
		}
		return nil
	}
	sum := sha256.Sum256(wasm)
	if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, want) {
		return fmt.Errorf("sha256 is %s, config pins %s", got, want)
	}
	return nil
}

// kindOf detects the kind of cm (kind.Detect over its imports, exports and customs, the
// module's script sections) and checks the module against it (checkModule); for a lazy load
// (cm nil), the kind its cache entry names, which cachedManifest found registered.
func (h *Host) kindOf(cm wazero.CompiledModule, customs map[string][]byte, e *manifests.Entry, limits Limits) (*kindEntry, error) {
	if e != nil {
		return h.kindByName(e.Kind), nil
	}
	k, err := detect(moduleOf(cm, customs), h.kinds)
	if err != nil {
		return nil, err
	}
	if err := checkModule(cm, limits, k); err != nil {
		return nil, err
	}
	return k, nil
}

// checkModule verifies, before anything runs, what kind k requires of the exports (Check)
// and what every kind requires: no _start, an exported memory within the memory limit and no
// imported one, and imports only from WASI and k's host modules.
func checkModule(cm wazero.CompiledModule, limits Limits, k kind.Kind) error {
	exports := cm.ExportedFunctions()
	if err := k.Check(exports); err != nil {
		return err
	}
	if _, ok := exports["_start"]; ok {
		return fmt.Errorf("%w: module exports _start (a WASI command); build a reactor (Go: -buildmode=c-shared)", ErrABI)
	}
	mems := cm.ExportedMemories()
	mem, ok := mems[abi.ExportMemory]
	if !ok {
		return fmt.Errorf("%w: missing memory export %q", ErrABI, abi.ExportMemory)
	}
	if minBytes := uint64(mem.Min()) * pageSize; minBytes > limits.MemoryBytes {
		return fmt.Errorf("minimum linear memory %s exceeds the memory limit %s", size.Format(minBytes), size.Format(limits.MemoryBytes))
	}
	provided := map[string]map[string]bool{}
	for _, hm := range k.HostModules() {
		fns := map[string]bool{}
		for _, f := range hm.Funcs {
			fns[f.Name] = true
		}
		provided[hm.Name] = fns
	}
	for _, imp := range cm.ImportedFunctions() {
		mod, name, _ := imp.Import()
		if mod == "wasi_snapshot_preview1" || provided[mod][name] {
			continue
		}
		return fmt.Errorf("%w: module imports %s.%s, which this host does not provide", ErrABI, mod, name)
	}
	if len(cm.ImportedMemories()) > 0 {
		return fmt.Errorf("%w: module imports a memory; it must define and export its own", ErrABI)
	}
	return nil
}

// describe reads the manifest in a fresh instance under the guest's limits, and closes the
// instance: an idle one would hold memory until a first call that may never come. A lazy load
// reads the cached manifest instead (lazy.go).
func (g *Guest) describe(ctx context.Context) (*abi.Manifest, error) {
	if e := g.code.entry; e != nil {
		return e.Decode()
	}
	ctx, cancel := context.WithTimeout(ctx, g.limits.Timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	inst, err := g.pools[0].acquire(ctx, g.host.watch.Reading(deadline), 0)
	if err != nil {
		return nil, err
	}
	defer func() { g.pools[0].release(inst, false, g.host.watch.Now()) }()
	// The manifest is describe's result: the manifest limit is its output limit.
	limits := g.limits
	limits.OutputBytes = min(limits.ManifestBytes, limits.OutputBytes)
	raw, err := inst.enter(ctx, kind.EntryDescribe, "", nil, limits, g.start)
	if errors.Is(err, ErrOutputLimit) {
		return nil, fmt.Errorf("%w: manifest is over the manifest limit of %s (%w)", ErrLoadLimit, size.Format(uint64(limits.OutputBytes)), err)
	}
	if err != nil {
		return nil, err
	}
	m, err := g.decodeManifest(raw)
	if err != nil {
		return nil, err
	}
	g.code.raw = raw // for the manifest cache (lazy.go: afterLoad); Describe returned a copy
	return m, nil
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

// decodeManifest decodes a describe entry's result and checks it against the manifest caps.
func (g *Guest) decodeManifest(raw []byte) (*abi.Manifest, error) {
	var m abi.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: manifest is not valid JSON: %v", ErrABI, err)
	}
	if m.Tools == nil {
		return nil, fmt.Errorf("%w: manifest has no \"tools\" array", ErrABI)
	}
	if err := loadcheck.Manifest(len(m.Tools), len(m.Resources), len(m.ResourceTemplates), len(m.Prompts), g.limits); err != nil {
		return nil, err
	}
	return &m, nil
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
