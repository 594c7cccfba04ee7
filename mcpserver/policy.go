package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Policy says which identity may see and call which tools. A tool is allowed to an identity
// when some rule matches the identity, covers the tool, and all the rule's scopes are held.
// Tools no rule allows are left out of tools/list and refused on tools/call (HTTP 403 with a
// JSON-RPC error naming the policy; CodeToolDenied inside a batch or a stream). When a rule
// matches the identity and covers the tool but a scope is missing, the call is refused with
// 403 and WWW-Authenticate: Bearer error="insufficient_scope", scope="…" (RFC 6750 §3.1, MCP
// "Authorization › Scope Challenge Handling"), so the client can ask for the scope.
// Prompts and resources (lists, prompts/get, resources/read and subscribe) follow their
// guest: they are served only to an identity a rule grants the whole guest (Guests), since a
// tool pattern says nothing about them. A whole-server guest (Expose with Kind "guest") is a
// guest by its name for its tools, prompts and resources; an exposed upstream's are no
// guest's: its tools need a tool pattern, its prompts and resources a rule granting "*".
type Policy struct {
	Rules []PolicyRule
}

// PolicyRule grants tools to identities.
type PolicyRule struct {
	// Name names the rule in refusals and logs.
	Name string
	// Subjects and Groups select identities: a "sub" listed, or a group listed; both empty
	// selects every authenticated identity.
	Subjects []string
	Groups   []string
	// Scopes must all be held (from the token's scope claim) for the rule to grant.
	Scopes []string
	// Guests (guest names, "*" for all) and Tools (tool names as served; path.Match patterns
	// such as "lookup_*") are what the rule grants.
	Guests []string
	Tools  []string
}

// CodeToolDenied is the JSON-RPC error code (implementation-defined server error range) of a
// tool call the policy refuses.
const CodeToolDenied = -32003

// matches reports whether the rule selects id.
func (r *PolicyRule) matches(id *Identity) bool {
	if len(r.Subjects) == 0 && len(r.Groups) == 0 {
		return true
	}
	if slices.Contains(r.Subjects, id.Subject) {
		return true
	}
	for _, g := range id.Groups {
		if slices.Contains(r.Groups, g) {
			return true
		}
	}
	return false
}

// covers reports whether the rule grants tool (of guest; "" when no guest serves it).
func (r *PolicyRule) covers(tool, guest string) bool {
	if guest != "" && (slices.Contains(r.Guests, "*") || slices.Contains(r.Guests, guest)) {
		return true
	}
	for _, p := range r.Tools {
		if ok, _ := path.Match(p, tool); ok {
			return true
		}
	}
	return false
}

// decision is the policy's answer for one tool.
type decision struct {
	allowed bool
	scopes  []string // not allowed, but a rule would allow with these scopes
	rule    string   // the rule that allowed, or would with scopes
}

// decide applies p to id calling tool of guest. A nil policy allows everything.
func (p *Policy) decide(id *Identity, tool, guest string) decision {
	if p == nil {
		return decision{allowed: true}
	}
	if id == nil {
		return decision{}
	}
	var d decision
	for i := range p.Rules {
		r := &p.Rules[i]
		if !r.matches(id) || !r.covers(tool, guest) {
			continue
		}
		missing := false
		for _, s := range r.Scopes {
			if !id.HasScope(s) {
				missing = true
			}
		}
		if !missing {
			return decision{allowed: true, rule: r.Name}
		}
		if d.scopes == nil {
			d.scopes, d.rule = r.Scopes, r.Name
		}
	}
	return d
}

// guestAllowed reports whether p grants id guest as a whole (its prompts and resources): a
// rule selecting id names the guest (or "*") and id holds its scopes. What no guest serves
// (guest "") needs a rule granting "*".
func (p *Policy) guestAllowed(id *Identity, guest string) bool {
	if p == nil {
		return true
	}
	if id == nil {
		return false
	}
	for i := range p.Rules {
		r := &p.Rules[i]
		if !r.matches(id) || !(slices.Contains(r.Guests, "*") || guest != "" && slices.Contains(r.Guests, guest)) {
			continue
		}
		if !slices.ContainsFunc(r.Scopes, func(s string) bool { return !id.HasScope(s) }) {
			return true
		}
	}
	return false
}

// deniedMessage is the text of a refused call.
func (d decision) deniedMessage(id *Identity, tool string) string {
	who := "subject " + fmt.Sprintf("%q", id.Subject)
	if d.scopes != nil {
		return fmt.Sprintf("tool %q needs scope %q for %s (policy rule %q)", tool, strings.Join(d.scopes, " "), who, d.rule)
	}
	return fmt.Sprintf("tool %q is not allowed for %s: no rule of the server's policy grants it", tool, who)
}

// toolGuest returns the name of the guest serving tool on s, or "".
func toolGuest(s *mcp.Server, tool string) string { return toolGuests(s)[tool] }

// toolGuests maps every guest tool served on s to its guest's name (the latest guest to
// claim a name wins, as in the registry).
func toolGuests(s *mcp.Server) map[string]string {
	r := registryOf(s)
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	m := map[string]string{}
	for _, g := range r.guests {
		if man := r.served[g].manifest; man != nil {
			for _, t := range man.Tools {
				m[t.Name] = g.Name()
			}
		}
	}
	for it, e := range r.exposedBy { // a whole-server guest's tools are the guest's
		if it.what == "tool" && e.opts.Kind == "guest" {
			m[it.name] = e.name
		}
	}
	return m
}

// promptGuest and resourceGuest name the guest serving a prompt or resource on s (a
// resource URI, one a template matches, or a template), or "": a guest added to s, or a
// whole-server guest exposed on it (Expose with Kind "guest"). An upstream is no guest.
func promptGuest(s *mcp.Server, name string) string {
	if r := registryOf(s); r != nil {
		if g := r.prompt(name); g != nil {
			return g.Name()
		}
		return r.exposedGuest("prompt", name)
	}
	return ""
}

func resourceGuest(s *mcp.Server, uri string) string {
	if r := registryOf(s); r != nil {
		if g := r.resource(uri); g != nil {
			return g.Name()
		}
		return r.exposedGuest("resource", uri)
	}
	return ""
}

// indexExposed records, for the policy, that e serves items (served item → the server's
// name for it), replacing what it served of the kinds whats ("tool", "prompt", "resource",
// "resource template").
func (r *registry) indexExposed(e *Exposed, whats []string, items map[item]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for it, x := range r.exposedBy {
		if x == e && slices.Contains(whats, it.what) {
			delete(r.exposedBy, it)
		}
	}
	if r.exposedBy == nil {
		r.exposedBy = map[item]*Exposed{}
	}
	for it := range items {
		r.exposedBy[it] = e
	}
}

// exposedGuest names the whole-server guest serving the tool or prompt name, or the
// resource name (a URI, one of its templates matches, or a template's text), or "".
func (r *registry) exposedGuest(what, name string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	guest := func(e *Exposed) string {
		if e == nil || e.opts.Kind != "guest" {
			return ""
		}
		return e.name
	}
	if what != "resource" {
		return guest(r.exposedBy[item{what, name}])
	}
	if e := r.exposedBy[item{"resource", name}]; e != nil {
		return guest(e)
	}
	if e := r.exposedBy[item{"resource template", name}]; e != nil {
		return guest(e)
	}
	for it, e := range r.exposedBy {
		if it.what != "resource template" {
			continue
		}
		if t, err := uritemplate.New(it.name); err == nil && t.Regexp().MatchString(name) {
			return guest(e)
		}
	}
	return ""
}

// policyMiddleware applies p to MCP requests on s: tools/list answers only the tools allowed
// to the caller, tools/call of another is an error naming the policy. Requests without an
// identity (stdio) pass.
func policyMiddleware(s *mcp.Server, p *Policy) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			id := identityOfRequest(req)
			if id == nil {
				id = IdentityFrom(ctx)
			}
			if id == nil || p == nil {
				return next(ctx, method, req)
			}
			switch method {
			case "tools/call":
				if params, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
					if d := p.decide(id, params.Name, toolGuest(s, params.Name)); !d.allowed {
						return nil, &jsonrpc.Error{Code: CodeToolDenied, Message: d.deniedMessage(id, params.Name)}
					}
				}
			case "prompts/get":
				if params, ok := req.GetParams().(*mcp.GetPromptParams); ok && !p.guestAllowed(id, promptGuest(s, params.Name)) {
					return nil, &jsonrpc.Error{Code: CodeToolDenied, Message: fmt.Sprintf("prompt %q is not allowed for subject %q: no rule of the server's policy grants its guest", params.Name, id.Subject)}
				}
			case "resources/read", "resources/subscribe":
				uri := ""
				switch params := req.GetParams().(type) {
				case *mcp.ReadResourceParams:
					uri = params.URI
				case *mcp.SubscribeParams:
					uri = params.URI
				}
				if !codeModeResource(uri) && !p.guestAllowed(id, resourceGuest(s, uri)) {
					return nil, &jsonrpc.Error{Code: CodeToolDenied, Message: fmt.Sprintf("resource %q is not allowed for subject %q: no rule of the server's policy grants its guest", uri, id.Subject)}
				}
			case "prompts/list":
				res, err := next(ctx, method, req)
				if lr, ok := res.(*mcp.ListPromptsResult); ok && err == nil {
					cp := *lr
					cp.Prompts = slices.DeleteFunc(slices.Clone(lr.Prompts), func(x *mcp.Prompt) bool { return !p.guestAllowed(id, promptGuest(s, x.Name)) })
					return &cp, nil
				}
				return res, err
			case "resources/list":
				res, err := next(ctx, method, req)
				if lr, ok := res.(*mcp.ListResourcesResult); ok && err == nil {
					cp := *lr
					cp.Resources = slices.DeleteFunc(slices.Clone(lr.Resources), func(x *mcp.Resource) bool {
						return !codeModeResource(x.URI) && !p.guestAllowed(id, resourceGuest(s, x.URI))
					})
					return &cp, nil
				}
				return res, err
			case "resources/templates/list":
				res, err := next(ctx, method, req)
				if lr, ok := res.(*mcp.ListResourceTemplatesResult); ok && err == nil {
					cp := *lr
					cp.ResourceTemplates = slices.DeleteFunc(slices.Clone(lr.ResourceTemplates), func(x *mcp.ResourceTemplate) bool {
						return !codeModeResource(x.URITemplate) && !p.guestAllowed(id, resourceGuest(s, x.URITemplate))
					})
					return &cp, nil
				}
				return res, err
			case "tools/list":
				res, err := next(ctx, method, req)
				if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
					kept := make([]*mcp.Tool, 0, len(lr.Tools))
					owners := toolGuests(s) // once per list
					for _, t := range lr.Tools {
						if p.decide(id, t.Name, owners[t.Name]).allowed {
							kept = append(kept, t)
						}
					}
					cp := *lr
					cp.Tools = kept
					return &cp, nil
				}
				return res, err
			}
			return next(ctx, method, req)
		}
	}
}

// policyGate answers a single JSON-RPC tools/call POST the policy refuses at the HTTP level:
// 403 with WWW-Authenticate insufficient_scope when a scope is what is missing, else 403 with
// a JSON-RPC error body (CodeToolDenied). Everything else passes (policyMiddleware still
// judges batches and what this cannot see).
func policyGate(rs *resourceServer, s *mcp.Server, maxBody int64, next http.Handler) http.Handler {
	p := rs.cfg.Policy
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := IdentityFrom(r.Context())
		if p == nil || id == nil || r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, over, err := readBody(r, maxBody)
		if err != nil {
			http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if over || json.Unmarshal(body, &m) != nil || m.Method != "tools/call" {
			next.ServeHTTP(w, r)
			return
		}
		d := p.decide(id, m.Params.Name, toolGuest(s, m.Params.Name))
		switch {
		case d.allowed:
			next.ServeHTTP(w, r)
		case d.scopes != nil:
			// The challenge in the header (RFC 6750 §3.1) for clients that step up; a JSON-RPC
			// error in the body for those that do not (the go-sdk client ends its session on
			// a 403 whose body is not JSON-RPC).
			msg := d.deniedMessage(id, m.Params.Name)
			rs.setChallenge(w, &authError{status: http.StatusForbidden, code: "insufficient_scope", desc: msg, scope: strings.Join(d.scopes, " ")})
			writeJSONRPCError(w, http.StatusForbidden, m.ID, CodeToolDenied, msg)
		default:
			rs.logger.Info("policy: tool call refused", "subject", id.Subject, "issuer", id.Issuer, "tool", m.Params.Name)
			writeJSONRPCError(w, http.StatusForbidden, m.ID, CodeToolDenied, d.deniedMessage(id, m.Params.Name))
		}
	})
}
