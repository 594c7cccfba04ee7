// Package codemode is mcpwasm's code mode: one tool (default name "run_code") that runs a
// TypeScript or JavaScript program against the server's own tools, in a fresh instance of
// the pinned QuickJS engine per run (docs/code-mode.md).
//
// The model's program is hostile input. It runs in the runner guest (the embedded engine
// with a fixed runner script), loaded with isolation "call" (a pristine instance per run) and
// no grant but mcp to one upstream: the code-mode upstream this package serves inside the
// host's peer.Upstreams. Each tool call of the program is an mcp.call request through the
// sandbox to that upstream, which checks the allowlist, the run's budget and confirmation,
// then calls the tool through a loopback MCP client session of the same mcp.Server: the
// path every MCP client's call takes (grants, limits, hygiene, pins, logs, metrics).
package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config is code mode's configuration (config file key "code_mode"). The zero value with
// Enabled set is valid: every zero field takes the default its comment names.
type Config struct {
	// Enabled turns code mode on.
	Enabled bool `json:"enabled,omitempty"`
	// Tool is the code tool's name. Default "run_code".
	Tool string `json:"tool,omitempty"`
	// Allow lists what a program may call: "server" (every tool of it) or "server.tool",
	// by the names the declarations use. Empty: every served tool.
	Allow []string `json:"allow,omitempty"`
	// Unconfirmed lists tools ("server" or "server.tool") without readOnlyHint that may run
	// without asking the client. Any other such tool asks through elicitation.
	Unconfirmed []string `json:"unconfirmed,omitempty"`
	// MaxCalls is the most tool calls of one run. Default 100.
	MaxCalls int `json:"max_calls,omitempty"`
	// TimeoutMS is one run's time limit in milliseconds, its tool calls included. Default 30000.
	TimeoutMS int `json:"timeout_ms,omitempty"`
	// MemoryMB is one run's memory limit in MiB. Default 64.
	MemoryMB int `json:"memory_mb,omitempty"`
}

// Defaults of Config.
const (
	DefaultTool     = "run_code"
	DefaultMaxCalls = 100
	DefaultTimeout  = 30 * time.Second
	DefaultMemoryMB = 64
)

// UpstreamName is the name the runner's mcp.call requests use for the code-mode upstream. It
// is outside the config's upstream names (those are identifiers), so no upstream shadows it.
const UpstreamName = "mcpwasm:code"

// ResourceURI is the resource holding the full declarations.
const ResourceURI = mcpserver.CodeModeResourcePrefix + "tools.d.ts"

// ServerResourceTemplate is the resource template of one server's declarations, for clients
// with many tools that read only the servers they need.
const ServerResourceTemplate = mcpserver.CodeModeResourcePrefix + "servers/{server}.d.ts"

// MetaRun is the _meta key of a tool call made by a run: the run's id, so logs attribute
// the call to the run.
const MetaRun = "mcpwasm/codeRun"

// Errors of a program's tool call; the program sees them as a thrown Error.
var (
	ErrNotAllowed   = errors.New("not in code mode's allowlist")
	ErrBudget       = errors.New("code mode: tool-call budget of the run spent")
	ErrUnconfirmed  = errors.New("code mode: not confirmed")
	ErrNotInRun     = errors.New("code mode: no run")
	errCodeToolName = errors.New("code mode never calls a code tool")
)

// Mode is code mode for one mcp.Server. Create it with New before the runtime.Host (whose
// Options.Upstreams must be Mode.Upstreams), then Serve.
type Mode struct {
	cfg   Config
	inner peer.Upstreams

	guest  *runtime.Guest
	cs     *mcp.ClientSession
	server *mcp.Server
	group  func(tool string) string
	policy *mcpserver.Policy
	key    []byte
	logger *slog.Logger

	life    context.Context // ends at Close: background refreshes stop
	stop    context.CancelFunc
	refresh sync.Mutex // serializes refreshes

	mu    sync.Mutex
	api   *apiSet
	perID map[string]*apiSet // policy-filtered sets of api, by the served names they keep
	seq   atomic.Uint64
	once  sync.Once
}

// New returns code mode with cfg; inner (may be nil) serves the host's other upstreams.
func New(cfg Config, inner peer.Upstreams) *Mode {
	if cfg.Tool == "" {
		cfg.Tool = DefaultTool
	}
	if cfg.MaxCalls <= 0 {
		cfg.MaxCalls = DefaultMaxCalls
	}
	if cfg.MemoryMB <= 0 {
		cfg.MemoryMB = DefaultMemoryMB
	}
	life, stop := context.WithCancel(context.Background())
	return &Mode{cfg: cfg, inner: inner, life: life, stop: stop}
}

// Upstreams returns the peer.Upstreams to give the runtime.Host: the code-mode upstream,
// and the inner upstreams for every other name.
func (m *Mode) Upstreams() peer.Upstreams { return upstreams{m} }

// ServeOptions tunes Serve.
type ServeOptions struct {
	// Group names the server a served tool belongs to (a guest's name, an upstream's config
	// name): the declarations group tools by it. Nil or "": the group "tools".
	Group func(tool string) string
	// Policy is the policy of the HTTP handler serving the server (HTTPOptions.ResourceServer
	// .Policy); nil: none. Then the declarations (the code tool's description, the resources)
	// list per identity only the tools the policy lets it call, and each tool call of a run
	// is checked against the identity that called the code tool.
	Policy *mcpserver.Policy
	// RequestStateKey authenticates the request states of a confirmation asked through an
	// input-required result (protocol 2026-07-28; mcpserver.Options.RequestStateKey). Nil: a
	// random per-process key.
	RequestStateKey []byte
	// Logger logs what the client-request bridge logs; nil: nothing.
	Logger *slog.Logger
}

// Serve loads the runner guest on host (whose Options.Upstreams is m.Upstreams()), connects
// a loopback client session to s, and adds the code tool and the declarations resource to s.
// The declarations follow s's tool list. Close ends the session and the guest.
func (m *Mode) Serve(ctx context.Context, host *runtime.Host, s *mcp.Server, opts *ServeOptions) error {
	mod, err := runnerModule(UpstreamName, pregrowFor(m.cfg.MemoryMB))
	if err != nil {
		return err
	}
	timeout := DefaultTimeout
	if m.cfg.TimeoutMS > 0 {
		timeout = time.Duration(m.cfg.TimeoutMS) * time.Millisecond
	}
	g, err := host.Load(ctx, mod, &runtime.GuestConfig{
		Name: "codemode", Source: "codemode:runner", Isolation: "call",
		Limits: runtime.Limits{Timeout: timeout, MemoryBytes: uint64(m.cfg.MemoryMB) << 20},
		Grants: runtime.Grants{MCP: []string{UpstreamName}},
	})
	if err != nil {
		return fmt.Errorf("codemode: loading the runner: %w", err)
	}
	m.guest, m.server = g, s
	if opts != nil {
		m.group, m.policy, m.key, m.logger = opts.Group, opts.Policy, opts.RequestStateKey, opts.Logger
	}
	if m.policy != nil {
		s.AddReceivingMiddleware(m.describePerIdentity)
	}
	ct, st := loopbackTransports() // loopback.go
	if _, err := s.Connect(ctx, st, nil); err != nil {
		return fmt.Errorf("codemode: loopback session: %w", err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpwasm-code-mode", Version: "1"}, &mcp.ClientOptions{
		// Not in the handler: it runs on the session's read loop, which must stay free to read
		// the answer to tools/list (and the server may be shutting down).
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			go func() {
				ctx, cancel := context.WithTimeout(m.life, time.Minute)
				defer cancel()
				_ = m.refreshTools(ctx)
			}()
		},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		return fmt.Errorf("codemode: loopback client: %w", err)
	}
	m.cs = cs
	if err := m.refreshTools(ctx); err != nil {
		return err
	}
	s.AddResource(&mcp.Resource{URI: ResourceURI, Name: "code-mode-declarations", MIMEType: "application/typescript",
		Description: "TypeScript declarations of the tools " + m.cfg.Tool + " programs may call"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			d := m.apiFor(mcpserver.RequestIdentity(ctx, req)).full
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ResourceURI, MIMEType: "application/typescript", Text: d}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: ServerResourceTemplate, Name: "code-mode-server-declarations", MIMEType: "application/typescript",
		Description: "TypeScript declarations of one server's tools that " + m.cfg.Tool + " programs may call"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			name, ok := strings.CutPrefix(uri, "mcpwasm://code-mode/servers/")
			name, ok2 := strings.CutSuffix(name, ".d.ts")
			d, found := m.apiFor(mcpserver.RequestIdentity(ctx, req)).perServer[name]
			if !ok || !ok2 || !found {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/typescript", Text: d}}}, nil
		})
	return nil
}

// Close ends the loopback session and unloads the runner. It is idempotent.
func (m *Mode) Close(ctx context.Context) error {
	var err error
	m.once.Do(func() {
		m.stop()
		if m.cs != nil {
			err = m.cs.Close()
		}
		if m.guest != nil {
			err = errors.Join(err, m.guest.Close(ctx))
		}
	})
	return err
}

// refreshTools lists s's tools through the loopback session and (re)adds the code tool with
// their declarations.
func (m *Mode) refreshTools(ctx context.Context) error {
	_, err := m.refreshed(ctx)
	return err
}

// refreshed is refreshTools, reporting whether the code tool was (re)added.
func (m *Mode) refreshed(ctx context.Context) (bool, error) {
	m.refresh.Lock()
	defer m.refresh.Unlock()
	var tools []*mcp.Tool
	for t, err := range m.cs.Tools(ctx, nil) {
		if err != nil {
			return false, fmt.Errorf("codemode: listing tools: %w", err)
		}
		if m.isCodeTool(t) {
			continue
		}
		tools = append(tools, t)
	}
	set := buildAPI(tools, m.groupOf, m.allowed)
	m.mu.Lock()
	same := m.api != nil && m.api.full == set.full && m.api.compact == set.compact
	m.api = set
	if !same {
		m.perID = nil
	}
	m.mu.Unlock()
	if same {
		// Re-adding the tool would notify tools/list_changed, to this session too: a loop.
		return false, nil
	}
	m.server.AddTool(&mcp.Tool{
		Name:        m.cfg.Tool,
		Description: m.description(set),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"the program (TypeScript or JavaScript); top-level await and return"}},"required":["code"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: boolPtr(false)},
		Meta:        mcp.Meta{"mcpwasm/codeMode": true},
	}, mcpserver.WithToolClientRequests(m.cfg.Tool, m.key, 0, m.logger, m.handle))
	return true, nil
}

// description is the code tool's description declaring set.
func (m *Mode) description(set *apiSet) string {
	return "Run a TypeScript or JavaScript program against these tools; `return` a JSON value. " +
		"Call tools as `await tools.<server>.<tool>(args)` (Promise.all for several); console.log lines come back too. " +
		"No network, files or clock: only the tools. Full declarations: resource " + ResourceURI + " (one server's: " + ServerResourceTemplate + ").\n" + set.compact
}

// apiFor returns what identity id may call: the allowlisted tools the policy grants it
// (all of them without a policy or an identity). Sets are cached by the tools they keep.
func (m *Mode) apiFor(id *mcpserver.Identity) *apiSet {
	m.mu.Lock()
	base := m.api
	m.mu.Unlock()
	if m.policy == nil || id == nil {
		return base
	}
	var kept []*mcp.Tool
	var key strings.Builder
	for _, d := range base.decls {
		if m.policy.Check(m.server, id, d.tool.Name) == nil {
			kept = append(kept, d.tool)
			key.WriteString(d.tool.Name)
			key.WriteByte(0)
		}
	}
	if len(kept) == len(base.decls) {
		return base
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.api != base { // refreshed meanwhile: answer from the set read, cache nothing
		return buildAPI(kept, m.groupOf, m.allowed)
	}
	if set, ok := m.perID[key.String()]; ok {
		return set
	}
	set := buildAPI(kept, m.groupOf, m.allowed)
	if m.perID == nil {
		m.perID = map[string]*apiSet{}
	}
	if len(m.perID) < maxPerIdentitySets {
		m.perID[key.String()] = set
	}
	return set
}

// maxPerIdentitySets caps the cache of per-identity declarations (distinct tool sets).
const maxPerIdentitySets = 256

// describePerIdentity is the receiving middleware (with a policy) that gives tools/list's
// code tool the description of what the caller may call.
func (m *Mode) describePerIdentity(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil {
			return res, err
		}
		lr, ok := res.(*mcp.ListToolsResult)
		id := mcpserver.RequestIdentity(ctx, req)
		if !ok || id == nil {
			return res, err
		}
		set := m.apiFor(id)
		m.mu.Lock()
		base := m.api
		m.mu.Unlock()
		if set == base {
			return res, err
		}
		cp := *lr
		cp.Tools = slices.Clone(lr.Tools)
		for i, t := range cp.Tools {
			if t.Name == m.cfg.Tool {
				tc := *t
				tc.Description = m.description(set)
				cp.Tools[i] = &tc
			}
		}
		return &cp, nil
	}
}

func boolPtr(b bool) *bool { return &b }

// isCodeTool reports a code tool: this mode's own, or one that says it is one (an upstream's
// run_code, another mcpwasm's code tool). Code mode never calls one.
func (m *Mode) isCodeTool(t *mcp.Tool) bool {
	if t.Name == m.cfg.Tool || t.Name == DefaultTool || strings.HasSuffix(t.Name, "_"+DefaultTool) || strings.HasSuffix(t.Name, "."+DefaultTool) {
		return true
	}
	if v, ok := t.Meta["mcpwasm/codeMode"]; ok && v == true {
		return true
	}
	return false
}

func (m *Mode) groupOf(tool string) string {
	if m.group != nil {
		if g := m.group(tool); g != "" {
			return g
		}
	}
	return "tools"
}

// allowed reports whether Allow lets programs call group.tool.
func (m *Mode) allowed(group, tool string) bool {
	return len(m.cfg.Allow) == 0 || listed(m.cfg.Allow, group, tool)
}

func listed(list []string, group, tool string) bool {
	return slices.Contains(list, group) || slices.Contains(list, group+"."+tool)
}

// run is one program's run: what it may call and what it has spent.
type run struct {
	id       string
	api      *apiSet // what the caller may call
	base     *apiSet // the allowlist, for a refusal naming the policy
	ident    *mcpserver.Identity
	calls    atomic.Int64
	client   peer.Client        // the code tool's caller, for confirmations (nil: none)
	cancel   context.CancelFunc // ends the run (a confirmation comes in a later round)
	asked    atomic.Bool        // a confirmation was asked for a later round
	confirms sync.Map           // served name → *confirmation
}

// confirmation is the client's answer for one tool in a run, asked once.
type confirmation struct {
	once sync.Once
	err  error
}

type runKey struct{}

func runOf(ctx context.Context) *run {
	r, _ := ctx.Value(runKey{}).(*run)
	return r
}

// Result is the structured content of a run's result.
type Result struct {
	Result json.RawMessage `json:"result"`
	Logs   []string        `json:"logs"`
	Calls  int64           `json:"calls"`
}

// handle serves the code tool.
func (m *Mode) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return toolError("arguments: " + err.Error()), nil
	}
	start := time.Now()
	p, err := transform(in.Code)
	if err != nil {
		return toolError(err.Error()), nil
	}
	transformed := time.Since(start)
	m.mu.Lock()
	base := m.api
	m.mu.Unlock()
	ident := mcpserver.RequestIdentity(ctx, req)
	set := m.apiFor(ident)
	r := &run{id: strconv.FormatUint(m.seq.Add(1), 10), api: set, base: base, ident: ident, client: mcpserver.ClientFrom(ctx)}
	args, err := json.Marshal(map[string]any{"code": p.JS, "api": set.table, "upstream": UpstreamName, "batch": batchTool})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.WithValue(ctx, runKey{}, r))
	defer cancel() // a run that ends cancels its pending tool calls
	r.cancel = cancel
	out, err := m.guest.Call(ctx, "run", args)
	if r.asked.Load() {
		// Stopped for a confirmation of a later round: WithToolClientRequests answers the
		// input-required result instead.
		return toolError("run " + r.id + ": a confirmation is asked in the next round"), nil
	}
	if err != nil {
		return toolError("run " + r.id + ": " + err.Error()), nil
	}
	var res struct {
		IsError           bool              `json:"isError"`
		Content           []mcp.TextContent `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("codemode: runner answer: %w", err)
	}
	if res.IsError {
		msg := ""
		if len(res.Content) > 0 {
			msg = res.Content[0].Text
		}
		return toolError(p.explain(msg)), nil
	}
	var sc Result
	if err := json.Unmarshal(res.StructuredContent, &sc); err != nil {
		return nil, fmt.Errorf("codemode: runner answer: %w", err)
	}
	sc.Calls = r.calls.Load()
	if sc.Logs == nil {
		sc.Logs = []string{}
	}
	text := string(sc.Result)
	if len(sc.Logs) > 0 {
		text += "\nlogs:\n" + strings.Join(sc.Logs, "\n")
	}
	_ = transformed
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: sc}, nil
}

var inputLine = regexp.MustCompile(`<input>:(\d+)`)

// explain turns the runner's error text (the message, then the stack) into a message
// naming the program's line.
func (p *program) explain(msg string) string {
	head, stack, _ := strings.Cut(msg, "\n")
	if mm := inputLine.FindStringSubmatch(stack); mm != nil {
		gen, _ := strconv.Atoi(mm[1])
		if l := p.line(gen); l > 0 {
			return fmt.Sprintf("%s (line %d)", head, l)
		}
	}
	return head
}

func toolError(msg string) *mcp.CallToolResult {
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
	r.IsError = true
	return r
}

// upstreams is Mode as the host's peer.Upstreams.
type upstreams struct{ m *Mode }

func (u upstreams) ListTools(ctx context.Context, server string) ([]byte, error) {
	if server == UpstreamName {
		return nil, fmt.Errorf("%w: %q lists nothing", peer.ErrUnknownUpstream, server)
	}
	if u.m.inner == nil {
		return nil, fmt.Errorf("%w: %q", peer.ErrUnknownUpstream, server)
	}
	return u.m.inner.ListTools(ctx, server)
}

func (u upstreams) CallTool(ctx context.Context, server, tool string, args []byte) ([]byte, error) {
	if server != UpstreamName {
		if u.m.inner == nil {
			return nil, fmt.Errorf("%w: %q", peer.ErrUnknownUpstream, server)
		}
		return u.m.inner.CallTool(ctx, server, tool, args)
	}
	if tool == batchTool {
		return u.m.batch(ctx, args)
	}
	res, err := u.m.call(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// batchTool is the code-mode upstream's one tool: {"calls": [{"tool", "arguments"}…]} runs
// the calls concurrently, each as call does, and answers a CallToolResult whose
// structuredContent is {"results": [{"v": structuredContent} or {"t": text} or {"error":
// message}…]}, in
// order. The runner sends the calls a program makes in one turn (Promise.all) as one batch.
const batchTool = "mcpwasm:batch"

// maxBatch is the most calls of one batch run at once.
const maxBatch = 16

func (m *Mode) batch(ctx context.Context, args []byte) ([]byte, error) {
	var in struct {
		Calls []struct {
			Tool      string          `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, fmt.Errorf("code mode: batch: %w", err)
	}
	// Only what the program sees: the structured content ("v"), else the text ("t"), or the
	// error. Less for the engine to parse than the whole CallToolResult.
	type answer struct {
		Value any     `json:"v,omitempty"`
		Text  *string `json:"t,omitempty"`
		Error *string `json:"error,omitempty"`
	}
	out := make([]answer, len(in.Calls))
	sem := make(chan struct{}, maxBatch)
	var wg sync.WaitGroup
	for i, c := range in.Calls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			a := c.Arguments
			if len(a) == 0 || string(a) == "null" {
				a = json.RawMessage("{}")
			}
			res, err := m.call(ctx, c.Tool, a)
			if err != nil {
				msg := err.Error()
				out[i].Error = &msg
				return
			}
			var text strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					if text.Len() > 0 {
						text.WriteByte('\n')
					}
					text.WriteString(tc.Text)
				}
			}
			switch t := text.String(); {
			case res.IsError:
				if t == "" {
					t = "failed"
				}
				msg := "tool " + c.Tool + ": " + t
				out[i].Error = &msg
			case res.StructuredContent != nil:
				out[i].Value = res.StructuredContent
			default:
				out[i].Text = &t
			}
		}()
	}
	wg.Wait()
	return json.Marshal(map[string]any{"content": []any{}, "structuredContent": map[string]any{"results": out}})
}

// call is one tool call of a run: declared (allowlisted, no code tool), within the budget,
// confirmed unless read-only or Unconfirmed, then through the loopback session.
func (m *Mode) call(ctx context.Context, name string, args []byte) (*mcp.CallToolResult, error) {
	r := runOf(ctx)
	if r == nil {
		return nil, ErrNotInRun
	}
	d, ok := r.base.byName[name]
	if !ok {
		return nil, fmt.Errorf("tool %q: %w", name, ErrNotAllowed)
	}
	if err := m.policy.Check(m.server, r.ident, name); err != nil {
		return nil, fmt.Errorf("code mode: %w", err)
	}
	if _, ok := r.api.byName[name]; !ok { // cannot be: the policy granted it
		return nil, fmt.Errorf("tool %q: %w", name, ErrNotAllowed)
	}
	if n := r.calls.Add(1); n > int64(m.cfg.MaxCalls) {
		return nil, fmt.Errorf("%w (max_calls %d)", ErrBudget, m.cfg.MaxCalls)
	}
	ro := d.tool.Annotations != nil && d.tool.Annotations.ReadOnlyHint
	if !ro && !listed(m.cfg.Unconfirmed, d.group, d.method) {
		c, _ := r.confirms.LoadOrStore(name, &confirmation{})
		cf := c.(*confirmation)
		cf.once.Do(func() { cf.err = confirm(ctx, r, d) })
		if cf.err != nil {
			return nil, cf.err
		}
	}
	return m.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args), Meta: mcp.Meta{MetaRun: r.id}})
}

// confirm asks the run's client whether tool d may run (MCP elicitation, form mode): by a
// server→client request before protocol 2026-07-28; from it on by an input-required result
// (the run stops and runs again from the start with the answer, keyed by the tool, so a
// tool is confirmed once per run).
func confirm(ctx context.Context, r *run, d *decl) error {
	what := fmt.Sprintf("tool %s.%s (%s)", d.group, d.method, d.tool.Name)
	if r.client == nil {
		return fmt.Errorf("%w: %s is not read-only and there is no client to ask", ErrUnconfirmed, what)
	}
	params, err := json.Marshal(map[string]any{
		"mode":            "form",
		"message":         "A code-mode program wants to run " + what + ", which may change things. Allow it?",
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}},
		// optional: a client without elicitation gets a tool error the model can act on
		// (on every revision), not -32021.
		"mcpwasm": map[string]any{"key": "confirm:" + d.tool.Name, "optional": true},
	})
	if err != nil {
		return err
	}
	out, err := r.client.Request(ctx, abi.KindElicitation, params)
	switch {
	case errors.Is(err, peer.ErrInputRequired):
		r.asked.Store(true)
		r.cancel() // the answer comes with the call's next round
		return fmt.Errorf("%w: %s: asked in the next round", ErrUnconfirmed, what)
	case errors.Is(err, peer.ErrClientUnavailable):
		return fmt.Errorf("%w: %s is not read-only and the client does not support elicitation (allow it in code_mode.unconfirmed): %w", ErrUnconfirmed, what, err)
	case err != nil:
		return fmt.Errorf("%w: %s: asking the client: %w", ErrUnconfirmed, what, err)
	}
	var res struct {
		Action string `json:"action"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return fmt.Errorf("%w: %s: the client's answer: %w", ErrUnconfirmed, what, err)
	}
	if res.Action != "accept" {
		return fmt.Errorf("%w: the client answered %q for %s", ErrUnconfirmed, res.Action, what)
	}
	return nil
}
