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

// GuestConfig is runtime.GuestConfig, documented there: the same fields, so the root
// converts one to the other.
type GuestConfig struct {
	Name       string
	Source     string
	Limits     Limits
	ToolLimits map[string]Limits
	Grants     Grants
	ToolGrants map[string]Grants
	Isolation  string
	SHA256     string
	Config     map[string]string
	ToolPrefix string
	HideTools  []string
	Args       []string
	KeepCode   bool
}

// Load implements runtime.Host.Load, whose doc comment says what it does.
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
	g.code.kept = c.KeepCode
	h.startEarly(g) // a lazy load: compile beside the rest of Load
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
