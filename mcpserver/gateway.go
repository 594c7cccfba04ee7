package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpwasm/mcpwasm/internal/names"
	"github.com/mcpwasm/mcpwasm/upstream"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Gateway: the tools of an upstream MCP server served on our server, namespaced so they can
// never be mistaken for (or shadow) guest tools or another upstream's.

// exposedName returns the name upstream server's tool is served under: server + "__" + tool
// when that matches ^[a-zA-Z0-9_-]{1,64}$, else as names.MapName maps it (other characters
// become "_", cut to fit, ending in 8 hex digits of the SHA-256 of the original
// "server__tool": stable across restarts, distinct for distinct originals). JavaScript and
// Extism guests' names are mapped by the same rule (runtime/internal/served).
func exposedName(server, tool string) string {
	return names.MapName(server + "__" + tool)
}

// ExposeOptions configure Expose. Nil means defaults.
type ExposeOptions struct {
	// Logger receives collisions, withheld tools and refreshes; nil means slog.Default().
	Logger *slog.Logger
	// AllowHiddenText serves tools whose text hides characters (see checkHiddenText);
	// otherwise they are withheld with a warning (config upstreams.NAME.allow_hidden_text).
	AllowHiddenText bool
	// MaxPages caps the tools/list pages followed; zero means upstream.DefaultMaxPages.
	MaxPages int
	// Session, if set, returns the session each call and refresh goes through (e.g.
	// upstream.Manager.Session, which restarts a crashed server); nil means always cs.
	Session func(ctx context.Context) (*mcp.ClientSession, error)
	// CallTool, if set, makes each forwarded tools/call (args verbatim) instead of the
	// session's CallTool, e.g. through upstream.Session.CallToolExact, whose result keeps the
	// upstream's numbers exact (the SDK's own decoding rounds integers above 2^53 and refuses
	// 1e400).
	CallTool func(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error)
	// ListTools, if set, lists the upstream's tools (every page) with each one's
	// execution.taskSupport by name (upstream.Session.AllToolsTaskSupport), which the pins
	// cover; nil means upstream.ListTools through Session, with no task support known.
	ListTools func(ctx context.Context) ([]*mcp.Tool, map[string]string, error)
	// Names is the server's tool-name registry, shared with AddGuest (Options.Names,
	// GuestOptions.Names); a colliding exposed tool is withheld and logged. Nil means a
	// private set.
	Names *NameSet
	// Pins are definitions to hold the upstream's tools to from the start (e.g. from a lock
	// file), by upstream tool name; tools without one are pinned when first seen (pin.go).
	Pins map[string]ToolPin
	// PinnedOnly withholds tools without a pin in Pins instead of pinning them when first
	// seen (a lock lists every approved tool).
	PinnedOnly bool
	// Kind names what serves the tools in messages and name claims: "upstream" (or "") for
	// an upstream server, "guest" for a whole-server guest (a WASI command, a JavaScript
	// server). It also decides the names served: an upstream's tools and prompts are served
	// as NAME__tool (exposedName); a guest's under their own names, with Prefix before them,
	// as any guest's are (runtime.GuestConfig.ToolPrefix) — both mapped by names.MapName
	// when outside the name pattern. A guest's tool or prompt name another owner holds at its
	// first listing is an error naming both (and, between two guests, tool_prefix), as
	// AddGuest's; at a later listing the tool is withheld with a warning.
	Kind string
	// Prefix is put before each of a guest's (Kind "guest") tool and prompt names as served:
	// its tool_prefix. Resource URIs, including a tool's _meta.ui.resourceUri, are never
	// rewritten. Ignored for an upstream.
	Prefix string
	// Source names the guest's module in a clash with a guest of the same name.
	Source string
	// All serves the server's prompts, resources, resource templates and completions too
	// (exposeall.go), not only its tools.
	All bool
}

// Exposed is one upstream server's tools on a server. Refresh re-lists them.
type Exposed struct {
	s     *mcp.Server
	name  string
	cs    *mcp.ClientSession
	opts  ExposeOptions
	owner string // as messages name it: upstream "docs", guest "vanilla"
	who   owner  // as the NameSet holds its names
	// listed is set once a listing succeeded: before, a guest's name clash is an error.
	listed bool

	mu    sync.Mutex         // serializes Refresh
	tools map[string]string  // exposed name → upstream name
	pins  map[string]ToolPin // upstream name → first-seen definition (pin.go)
	// approved are tools Approve accepted, pinned at the next listing even with PinnedOnly.
	approved map[string]bool
	// items are the prompts, resources and templates served (All): served item → the
	// server's prompt name, or the URI (template).
	items map[item]string
}

// Expose lists the tools of the upstream server name (through cs, every page) and adds them to
// s as name__tool (see exposedName; a whole-server guest's under their own names, see
// ExposeOptions.Kind), each forwarding tools/call to the upstream under its original name and
// returning its result unchanged. Tools whose text hides characters are withheld unless
// allowed, and a name someone else holds is withheld (a guest's, at its first listing, is an
// error naming both); both are logged.
// Call Refresh when the upstream's tools change (notifications/tools/list_changed, a
// restart): s then sends its own list_changed to its clients.
func Expose(ctx context.Context, s *mcp.Server, name string, cs *mcp.ClientSession, opts *ExposeOptions) (*Exposed, error) {
	e := &Exposed{s: s, name: name, cs: cs, tools: map[string]string{}}
	if opts != nil {
		e.opts = *opts
	}
	if e.opts.Kind == "" {
		e.opts.Kind = "upstream"
	}
	e.owner = fmt.Sprintf("%s %q", e.opts.Kind, name)
	e.who = labelOwner(e.owner)
	if e.opts.Kind == "guest" {
		e.who = owner{id: e, label: e.owner, guest: true, source: e.opts.Source}
	}
	if e.opts.Logger == nil {
		e.opts.Logger = slog.Default()
	}
	if e.opts.Names == nil {
		e.opts.Names = &NameSet{}
	}
	e.pins = map[string]ToolPin{}
	for k, v := range e.opts.Pins {
		e.pins[k] = maps.Clone(v)
	}
	if err := e.Refresh(ctx); err != nil {
		e.abandon()
		return nil, err
	}
	return e, nil
}

// servedName is the name the server's tool or prompt name is served under: NAME__name for an
// upstream (exposedName), Prefix+name for a guest, mapped by names.MapName either way.
func (e *Exposed) servedName(name string) string { return names.MapName(e.unmapped(name)) }

// unmapped is servedName before names.MapName.
func (e *Exposed) unmapped(name string) string {
	if e.opts.Kind == "guest" {
		return e.opts.Prefix + name
	}
	return e.name + "__" + name
}

// taken is what to do with it, whose name holder holds: at a guest's first listing, the
// error that refuses it (clashError, the words AddGuest uses); else nil, and it is withheld
// with a warning.
func (e *Exposed) taken(it item, holder owner) error {
	if e.opts.Kind != "guest" || e.listed {
		return nil
	}
	return clashError(it, e.who, holder, e.opts.Source)
}

// abandon releases every name e holds and removes the tools, prompts and resources it added
// to s (Expose failed). A template a failed listing added stays served, its name freed (the
// NameSet keeps a template's key, not its text): the embedder is not serving s (mcpwasm serve
// exits).
func (e *Exposed) abandon() {
	for _, it := range e.opts.Names.releaseOwner(e.who) {
		switch it.what {
		case "tool":
			e.s.RemoveTools(it.name)
		case "prompt":
			e.s.RemovePrompts(it.name)
		case "resource":
			e.s.RemoveResources(it.name)
		}
	}
	e.tools, e.items = map[string]string{}, nil
	if reg := registryOf(e.s); reg != nil {
		reg.indexExposed(e, []string{"tool", "prompt", "resource", "resource template"}, nil)
	}
}

// Tools returns the exposed names and the upstream names they call.
func (e *Exposed) Tools() map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]string, len(e.tools))
	for k, v := range e.tools {
		out[k] = v
	}
	return out
}

func (e *Exposed) session(ctx context.Context) (*mcp.ClientSession, error) {
	if e.opts.Session != nil {
		return e.opts.Session(ctx)
	}
	return e.cs, nil
}

// Refresh re-lists the upstream's tools and updates s: new tools are added (and pinned),
// vanished ones removed, and tools whose definition differs from their pin withheld with a
// warning naming the changed fields (pin.go; Approve accepts one).
func (e *Exposed) Refresh(ctx context.Context) (err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var list []*mcp.Tool
	var support map[string]string
	if e.opts.ListTools != nil {
		list, support, err = e.opts.ListTools(ctx)
	} else {
		var cs *mcp.ClientSession
		if cs, err = e.session(ctx); err != nil {
			return fmt.Errorf("%s: %w", e.owner, err)
		}
		list, err = upstream.ListTools(ctx, cs, e.opts.MaxPages, e.opts.Logger)
	}
	if err != nil {
		return fmt.Errorf("%s: listing tools: %w", e.owner, err)
	}
	log := e.opts.Logger.With(e.opts.Kind, e.name) // upstream=docs, guest=vanilla
	next := map[string]string{}
	for _, t := range list {
		exposed := e.servedName(t.Name)
		if prev, dup := next[exposed]; dup {
			log.Warn("gateway: tool withheld: its exposed name collides", "tool", t.Name, "with", prev, "name", exposed)
			continue
		}
		if err := checkHiddenText(t); err != nil {
			if !e.opts.AllowHiddenText {
				log.Warn("gateway: tool withheld: its text hides characters; set allow_hidden_text on the upstream to serve it anyway", "problem", err.Error())
				continue
			}
			log.Warn("gateway: serving tool with hidden characters (allowed by config)", "problem", err.Error())
		}
		probe := *t
		probe.Name = exposed
		if err := checkForSDK(&probe); err != nil { // sdkcheck.go: as a guest's tools
			log.Warn("gateway: tool withheld: the MCP SDK cannot serve it", "tool", t.Name, "problem", err.Error())
			continue
		}
		if changed := e.pinCheck(t, support[t.Name]); changed == nil && e.opts.PinnedOnly && e.pins[t.Name] == nil {
			log.Warn("gateway: tool withheld: it is not in the lock (approve it to serve it)", "tool", t.Name)
			setWithheld(e.s, exposed, e.owner+" tool "+strconv.Quote(t.Name)+" is not in the lock (approve it to serve it)") // a call says why
			continue
		} else if len(changed) > 0 { // pin.go
			log.Warn("gateway: tool withheld: its definition changed since it was first seen (restart the server or approve it to serve it)",
				"tool", t.Name, "changed", strings.Join(changed, ","))
			setWithheld(e.s, exposed, e.owner+" tool "+strconv.Quote(t.Name)+": its definition changed ("+strings.Join(changed, ", ")+") since it was first seen (restart the server or approve it to serve it)")
			continue
		}
		if holder, ok := e.opts.Names.claimItem(item{"tool", exposed}, e.who); !ok {
			if err := e.taken(item{"tool", exposed}, holder); err != nil {
				return err
			}
			log.Warn("gateway: tool withheld: its exposed name is taken", "tool", t.Name, "name", exposed, "holder", holder.label)
			continue
		}
		if exposed != e.unmapped(t.Name) {
			log.Info("gateway: tool renamed to fit tool-name rules", "tool", t.Name, "name", exposed)
		}
		cp := *t
		cp.Name = exposed
		switch {
		case namesView(cp.Meta) && e.opts.All:
			// Its resources are served too (exposeall.go), the ui:// view among them under
			// its own URI: _meta.ui is served as given (a prefix never rewrites a URI), to
			// the clients that declared MCP Apps (apps.go).
			enableApps(e.s)
		case namesView(cp.Meta):
			// Without All the server's resources are not served: the ui:// view the tool
			// names could not be read here, so the tool is served as its text-only variant
			// (apps.go).
			log.Info("gateway: MCP Apps view of tool not served (the server's resources are not exposed)", "tool", t.Name)
			cp.Meta = withoutAppMeta(cp.Meta)
		}
		e.s.AddTool(&cp, e.forward(t.Name))
		setWithheld(e.s, exposed, "") // served again
		next[exposed] = t.Name
	}
	var gone []string
	for exposed := range e.tools {
		if _, ok := next[exposed]; !ok {
			gone = append(gone, exposed)
			e.opts.Names.releaseItem(item{"tool", exposed}, e.who)
		}
	}
	if len(gone) > 0 {
		e.s.RemoveTools(gone...)
	}
	e.tools = next
	if reg := registryOf(e.s); reg != nil {
		items := make(map[item]string, len(next))
		for served, orig := range next {
			items[item{"tool", served}] = orig
		}
		reg.indexExposed(e, []string{"tool"}, items)
	}
	log.Info("gateway: tools exposed", "tools", len(next), "removed", len(gone))
	if e.opts.All {
		cs, err := e.session(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", e.owner, err)
		}
		if err := e.refreshAll(ctx, cs); err != nil { // exposeall.go
			return err
		}
	}
	e.listed = true
	return nil
}

// forward returns the tools/call handler of one exposed tool: the upstream is called with
// the original name and the arguments as sent; its result comes back unchanged but for the
// _meta keys of MCP's reserved namespace, which are the upstream's hop's (its serverInfo):
// they are dropped with a warning, so this server's own keys are the ones the client reads.
// A failure to reach it, or a JSON-RPC error from it, becomes a tool error naming the
// upstream.
func (e *Exposed) forward(tool string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := objectArguments(req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		var res *mcp.CallToolResult
		if e.opts.CallTool != nil {
			res, err = e.opts.CallTool(ctx, tool, args)
		} else {
			var cs *mcp.ClientSession
			if cs, err = e.session(ctx); err == nil {
				res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
			}
		}
		if err == nil {
			if meta := dropUpstreamMeta(e.opts.Logger, res.Meta, "upstream", e.name, "tool", tool); len(meta) != len(res.Meta) { // metakeys.go
				cp := *res
				cp.Meta = meta
				res = &cp
			}
			return res, nil
		}
		msg := fmt.Sprintf("%s tool %q: %v", e.owner, tool, err)
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimSpace(msg)}}}, nil
	}
}
