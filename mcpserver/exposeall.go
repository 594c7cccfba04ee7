package mcpserver

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Everything but tools that an exposed server lists (ExposeOptions.All): prompts named as its
// tools are (an upstream's NAME__prompt, a guest's own name after its prefix; mapped alike),
// resources and resource templates under their own URIs (a URI is the server's name for its
// content and tool results link to it), and
// completion/complete for its prompts and templates. Each passes the same hygiene as a tool
// (hidden text withheld unless allowed) and claims its name or URI in the NameSet (one another
// owner holds is withheld with a warning; a guest's prompt name at its first listing is an
// error, as its tools'). Prompts, resources and templates are not pinned:
// pins hold what a model calls.

// claimItem gives it to o unless another owner holds it; it returns the holder.
func (n *NameSet) claimItem(it item, o owner) (owner, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := it.key()
	if h, taken := n.owners[k]; taken && h.id != o.id {
		return h, false
	}
	n.set(k, o)
	return o, true
}

func (n *NameSet) releaseItem(it item, o owner) {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := it.key()
	if n.owners[k].id == o.id {
		delete(n.owners, k)
	}
}

// exposedTemplate is one resource template of an exposed server that takes subscriptions:
// resources/subscribe of a URI it matches goes to that server.
type exposedTemplate struct {
	e        *Exposed
	template string
	re       *regexp.Regexp
}

// exposedCompleter completes one exposed prompt or template: ref carries the original name.
type exposedCompleter struct {
	e    *Exposed
	orig string // the server's prompt name (a template's URI is not renamed)
}

// refreshAll re-lists the server's prompts, resources and templates through cs and updates s
// as Refresh does tools. Called with e.mu held.
func (e *Exposed) refreshAll(ctx context.Context, cs *mcp.ClientSession) error {
	caps := &mcp.ServerCapabilities{}
	if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil {
		caps = ir.Capabilities
	}
	log := e.opts.Logger.With(e.opts.Kind, e.name)
	reg := registryOf(e.s)
	next := map[item]string{} // served item → original name (prompts) or URI
	if caps.Prompts != nil {
		var list []*mcp.Prompt
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return fmt.Errorf("%s: listing prompts: %w", e.owner, err)
			}
			list = append(list, p)
		}
		for _, p := range list {
			served := e.servedName(p.Name)
			fields := [][2]string{{"name", p.Name}, {"title", p.Title}, {"description", p.Description}}
			for i, a := range p.Arguments {
				fields = append(fields, [2]string{fmt.Sprintf("arguments[%d].description", i), a.Description})
			}
			if !e.hygienic(log, "prompt", p.Name, fields) {
				continue
			}
			if err := checkForSDK(p); err != nil { // sdkcheck.go: as a guest's prompts
				log.Warn("gateway: prompt withheld: the MCP SDK cannot serve it", "prompt", p.Name, "problem", err.Error())
				continue
			}
			it := item{"prompt", served}
			if _, dup := next[it]; dup {
				continue
			}
			if holder, ok := e.opts.Names.claimItem(it, e.who); !ok {
				if err := e.taken(it, holder); err != nil {
					return err
				}
				log.Warn("gateway: prompt withheld: its name is taken", "prompt", p.Name, "name", served, "holder", holder.label)
				continue
			}
			cp := *p
			cp.Name = served
			orig := p.Name
			e.s.AddPrompt(&cp, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				cs, err := e.session(ctx)
				if err != nil {
					return nil, fmt.Errorf("%s prompt %q: %w", e.owner, orig, err)
				}
				params := *req.Params
				params.Name = orig
				return cs.GetPrompt(ctx, &params)
			})
			next[it] = orig
		}
	}
	if caps.Resources != nil {
		read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			cs, err := e.session(ctx)
			if err != nil {
				return nil, fmt.Errorf("%s resource %q: %w", e.owner, req.Params.URI, err)
			}
			return cs.ReadResource(ctx, req.Params)
		}
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return fmt.Errorf("%s: listing resources: %w", e.owner, err)
			}
			if !e.hygienic(log, "resource", r.URI, [][2]string{{"name", r.Name}, {"title", r.Title}, {"description", r.Description}}) {
				continue
			}
			if err := checkForSDK(r); err != nil { // the SDK panics on a URI it cannot parse
				log.Warn("gateway: resource withheld: the MCP SDK cannot serve it", "uri", r.URI, "problem", err.Error())
				continue
			}
			it := item{"resource", r.URI}
			if _, dup := next[it]; dup {
				log.Info("gateway: resource listed twice: the first is served", "uri", r.URI)
				continue
			}
			if holder, ok := e.opts.Names.claimItem(it, e.who); !ok {
				log.Warn("gateway: resource withheld: its URI is taken", "uri", r.URI, "holder", holder.label)
				continue
			}
			cp := *r
			e.s.AddResource(&cp, read)
			next[it] = r.URI
		}
		for t, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return fmt.Errorf("%s: listing resource templates: %w", e.owner, err)
			}
			if !e.hygienic(log, "resource template", t.URITemplate, [][2]string{{"name", t.Name}, {"title", t.Title}, {"description", t.Description}}) {
				continue
			}
			if err := checkForSDK(t); err != nil { // the SDK panics on a template it cannot parse
				log.Warn("gateway: resource template withheld: the MCP SDK cannot serve it", "template", t.URITemplate, "problem", err.Error())
				continue
			}
			it := item{"resource template", t.URITemplate}
			if _, dup := next[it]; dup {
				continue
			}
			if holder, ok := e.opts.Names.claimItem(it, e.who); !ok {
				log.Warn("gateway: resource template withheld: it is taken", "template", t.URITemplate, "holder", holder.label)
				continue
			}
			cp := *t
			e.s.AddResourceTemplate(&cp, read)
			next[it] = t.URITemplate
		}
	}
	// What vanished is removed and released.
	var prompts, resources, templates []string
	for it := range e.items {
		if _, ok := next[it]; ok {
			continue
		}
		e.opts.Names.releaseItem(it, e.who)
		switch it.what {
		case "prompt":
			prompts = append(prompts, it.name)
		case "resource":
			resources = append(resources, it.name)
		default:
			templates = append(templates, it.name)
		}
	}
	if len(prompts) > 0 {
		e.s.RemovePrompts(prompts...)
	}
	if len(resources) > 0 {
		e.s.RemoveResources(resources...)
	}
	if len(templates) > 0 {
		e.s.RemoveResourceTemplates(templates...)
	}
	if reg != nil {
		reg.setExposed(e, next, caps.Completions != nil, caps.Resources != nil && caps.Resources.Subscribe)
	}
	e.items = next
	log.Info("gateway: prompts and resources exposed", "items", len(next))
	return nil
}

// hygienic reports whether a feature may be served: text that hides characters is withheld
// unless allowed (both logged).
func (e *Exposed) hygienic(log interface {
	Warn(string, ...any)
}, kind, name string, fields [][2]string) bool {
	if err := checkHiddenFields(kind, name, fields); err != nil {
		if !e.opts.AllowHiddenText {
			log.Warn("gateway: "+kind+" withheld: its text hides characters; set allow_hidden_text to serve it anyway", "problem", err.Error())
			return false
		}
		log.Warn("gateway: serving "+kind+" with hidden characters (allowed by config)", "problem", err.Error())
	}
	return true
}

// setExposed records e's prompts and templates for completion/complete (when the server
// completes) and its resources and templates for resources/subscribe (when it takes
// subscriptions), and forgets its previous ones.
func (r *registry) setExposed(e *Exposed, items map[item]string, completes, subscribes bool) {
	r.indexExposed(e, []string{"prompt", "resource", "resource template"}, items)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exposed == nil {
		r.exposed = map[string]exposedCompleter{}
	}
	if r.exposedRes == nil {
		r.exposedRes = map[string]*Exposed{}
	}
	for k, c := range r.exposed {
		if c.e == e {
			delete(r.exposed, k)
		}
	}
	for k, x := range r.exposedRes {
		if x == e {
			delete(r.exposedRes, k)
		}
	}
	r.exposedTmpl = slices.DeleteFunc(r.exposedTmpl, func(t exposedTemplate) bool { return t.e == e })
	if subscribes {
		for it := range items {
			switch it.what {
			case "resource":
				r.exposedRes[it.name] = e
			case "resource template":
				if t, err := uritemplate.New(it.name); err == nil { // checkForSDK parsed it
					r.exposedTmpl = append(r.exposedTmpl, exposedTemplate{e: e, template: it.name, re: t.Regexp()})
				}
			}
		}
		slices.SortFunc(r.exposedTmpl, func(a, b exposedTemplate) int { return strings.Compare(a.template, b.template) })
	}
	if !completes {
		return
	}
	for it, orig := range items {
		switch it.what {
		case "prompt":
			r.exposed["ref/prompt\x00"+it.name] = exposedCompleter{e: e, orig: orig}
		case "resource template":
			r.exposed["ref/resource\x00"+it.name] = exposedCompleter{e: e, orig: orig}
		}
	}
}

// completeExposed answers completion/complete for an exposed prompt or template (ok false:
// the ref is not one).
func (r *registry) completeExposed(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, bool, error) {
	key := p.Ref.Type + "\x00" + p.Ref.Name
	if p.Ref.Type == "ref/resource" {
		key = p.Ref.Type + "\x00" + p.Ref.URI
	}
	r.mu.RLock()
	c, ok := r.exposed[key]
	r.mu.RUnlock()
	if !ok {
		return nil, false, nil
	}
	cs, err := c.e.session(ctx)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", c.e.owner, err)
	}
	fwd := *p
	ref := *p.Ref
	if ref.Type == "ref/prompt" {
		ref.Name = c.orig
	}
	fwd.Ref = &ref
	res, err := cs.Complete(ctx, &fwd)
	if err != nil {
		return nil, true, fmt.Errorf("%s: completing %s: %w", c.e.owner, strconv.Quote(c.orig), err)
	}
	return res, true, nil
}
