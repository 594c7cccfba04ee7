package engine

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/internal/manifests"
	"github.com/mcpwasm/mcpwasm/runtime/internal/served"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/loadcheck"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
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
	m, hidden := served.Hide(m, c.HideTools) // runtime/internal/served
	if hidden != nil {
		h.logger.Info("tools hidden by hide_tools", "guest", g.name, "tools", hidden)
	}
	served, own, renames, err := served.Names(m, c.ToolPrefix, g.foreign())
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
