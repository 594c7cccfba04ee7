package mcpserver

import (
	"sync"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// registry routes the requests the SDK serves with one server-wide handler —
// completion/complete and resources/subscribe — to the guest that owns the prompt, resource
// or resource template. NewServer makes one per server; AddGuest and ReplaceGuest keep it
// current. Safe for concurrent use.
type registry struct {
	mu        sync.RWMutex
	prompts   map[string]*runtime.Guest // by prompt name
	resources map[string]*runtime.Guest // by resource URI and by URI template, as declared
	guests    []*runtime.Guest          // in registration order
	// served is, per guest, the options it was added with and the manifest s serves for it
	// (refreshGuest compares it with the guest's lists after a relist).
	served    map[*runtime.Guest]registration
	refreshMu sync.Mutex  // one refreshGuest at a time
	server    *mcp.Server // the server of this registry, set once by NewServer
	// withheld is why a tool the server no longer lists was withheld (WithholdTool), by
	// served name: a call of it says so instead of only "unknown tool".
	withheld map[string]string
	// exposed completes the prompts and templates of exposed servers (exposeall.go), by
	// "ref/prompt\x00NAME" or "ref/resource\x00TEMPLATE".
	exposed map[string]exposedCompleter
	// exposedRes are the resources of exposed servers by URI, and exposedTmpl their
	// resource templates (by template text): resources/subscribe and unsubscribe of a URI
	// one of them serves are forwarded to its server (exposeall.go, subscriptions.go).
	exposedRes  map[string]*Exposed
	exposedTmpl []exposedTemplate
	// exposedBy is the exposed server serving each served tool, prompt, resource and
	// template, for the policy (policy.go): a whole-server guest's belong to the guest.
	exposedBy map[item]*Exposed
	// subs are, per session to an exposed server and URI, the client sessions of ours
	// subscribed through it: the server hears one subscribe and, when the last of them
	// leaves, one unsubscribe (subscriptions.go).
	subs map[*mcp.ClientSession]map[string]map[*mcp.ServerSession]bool
	// targets are the sessions that exposed servers' notifications/resources/updated are
	// for, by the nonce they carry while the SDK fans them out (ResourceUpdatedTo).
	targets map[string]*mcp.ServerSession
}

// registration is how a guest was added to a server: its options and the manifest served.
type registration struct {
	opts     GuestOptions
	manifest *abi.Manifest
}

// registries maps a *mcp.Server made by NewServer to its *registry.
var registries sync.Map

func registryOf(s *mcp.Server) *registry {
	r, _ := registries.Load(s)
	reg, _ := r.(*registry)
	return reg
}

func newRegistry() *registry {
	return &registry{prompts: map[string]*runtime.Guest{}, resources: map[string]*runtime.Guest{}, served: map[*runtime.Guest]registration{}, withheld: map[string]string{}}
}

// WithholdTool removes tool from s (made by NewServer) and records why, so that a
// tools/call of it is answered `unknown tool "NAME": withheld: REASON` (JSON-RPC -32602, as
// for any unknown tool) rather than only `unknown tool "NAME"`. reason says what to do, e.g.
// `not in the lock (run mcpwasm lock --update to approve it)`.
func WithholdTool(s *mcp.Server, tool, reason string) {
	s.RemoveTools(tool)
	setWithheld(s, tool, reason)
}

// setWithheld records why tool is not served on s, or forgets it (reason "": the
// tool is served again).
func setWithheld(s *mcp.Server, tool, reason string) {
	r := registryOf(s)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if reason == "" {
		delete(r.withheld, tool)
	} else {
		r.withheld[tool] = reason
	}
}

// withheldReason is why tool was withheld from s (WithholdTool), or "".
func withheldReason(s *mcp.Server, tool string) string {
	r := registryOf(s)
	if r == nil {
		return ""
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.withheld[tool]
}

// add records what g serves, added with o; a later guest claiming a name or URI takes it over
// (a reload).
func (r *registry) add(g *runtime.Guest, o *GuestOptions) {
	if r == nil {
		return
	}
	m := g.Manifest()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.served[g] = registration{opts: *o, manifest: m}
	r.record(g, m)
	r.guests = append(r.guests, g)
}

// record routes m's prompts, resources and templates to g.
func (r *registry) record(g *runtime.Guest, m *abi.Manifest) {
	for _, p := range m.Prompts {
		r.prompts[p.Name] = g
	}
	for _, res := range m.Resources {
		r.resources[res.URI] = g
	}
	for _, t := range m.ResourceTemplates {
		r.resources[t.URITemplate] = g
	}
}

// forget drops the routes to g (of its prompts, resources and templates).
func (r *registry) forget(g *runtime.Guest) {
	for k, v := range r.prompts {
		if v == g {
			delete(r.prompts, k)
		}
	}
	for k, v := range r.resources {
		if v == g {
			delete(r.resources, k)
		}
	}
}

// remove forgets g: what it alone still held (names a replacement took over stay).
func (r *registry) remove(g *runtime.Guest) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forget(g)
	delete(r.served, g)
	for i, v := range r.guests {
		if v == g {
			r.guests = append(r.guests[:i:i], r.guests[i+1:]...)
			break
		}
	}
}

// prompt returns the guest serving prompt name, or nil.
func (r *registry) prompt(name string) *runtime.Guest {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.prompts[name]
}

// resource returns the guest that declares uri (a resource URI or a URI template, exactly),
// else the first guest serving a URI that matches, or nil.
func (r *registry) resource(uri string) *runtime.Guest {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if g := r.resources[uri]; g != nil {
		return g
	}
	for _, g := range r.guests {
		if g.ServesResource(uri) {
			return g
		}
	}
	return nil
}

// configure sets the SDK handlers the guests need on opts (a copy the caller owns): a
// completion handler when a guest completes arguments (so the server declares the
// "completions" capability), subscribe handlers when a guest serves resources (so it declares
// "resources.subscribe"). Handlers the caller set are kept.
func (r *registry) configure(opts *mcp.ServerOptions, guests []*runtime.Guest, exposed bool) {
	completes, resources := exposed, false
	for _, g := range guests {
		m := g.Manifest()
		completes = completes || g.Completes()
		resources = resources || len(m.Resources)+len(m.ResourceTemplates) > 0
	}
	if completes && opts.CompletionHandler == nil {
		opts.CompletionHandler = r.complete // completions.go
	}
	if (resources || exposed) && opts.SubscribeHandler == nil && opts.UnsubscribeHandler == nil {
		opts.SubscribeHandler, opts.UnsubscribeHandler = r.subscribe, r.unsubscribe // subscriptions.go
	}
}
