package extism

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// Version is the hyper-mcp plugin protocol a plugin speaks.
type Version int

// Protocol versions: V1 exports describe and call; V2 exports list_tools, call_tool and
// optional prompt, resource and completion entry points (hyper-mcp src/plugin.rs).
const (
	V1 Version = 1
	V2 Version = 2
)

// String is "extism v1" or "extism v2", as inspect prints the kind.
func (v Version) String() string { return fmt.Sprintf("extism v%d", int(v)) }

// Entry points of hyper-mcp plugins. Every one is () -> i32 (0 success) or () -> ().
const (
	ExportDescribe              = "describe"
	ExportCall                  = "call"
	ExportListTools             = "list_tools"
	ExportCallTool              = "call_tool"
	ExportListPrompts           = "list_prompts"
	ExportGetPrompt             = "get_prompt"
	ExportListResources         = "list_resources"
	ExportListResourceTemplates = "list_resource_templates"
	ExportReadResource          = "read_resource"
	ExportComplete              = "complete"
	ExportOnRootsListChanged    = "on_roots_list_changed"
)

var v2Exports = []string{ExportListTools, ExportCallTool, ExportListPrompts, ExportGetPrompt, ExportListResources,
	ExportListResourceTemplates, ExportReadResource, ExportComplete, ExportOnRootsListChanged}

// Match is how sure Detect is that a module is an Extism plugin.
type Match int

// Match values: No; Possible (only export names match); Confident (it imports an Extism
// module).
const (
	No Match = iota
	Possible
	Confident
)

// Import is one function a module imports, with its signature: Sig as kind.Signature spells
// it, or when Sig is "", Params and Results.
type Import struct {
	Module, Name    string
	Sig             string
	Params, Results []api.ValueType
}

// sig is im's signature as kind.Signature spells it.
func (im Import) sig() string {
	if im.Sig != "" {
		return im.Sig
	}
	return kind.SignatureOf(im.Params, im.Results)
}

// Info is what a module's imports and exports say about it as a plugin.
type Info struct {
	Version Version
	Entries []string // the hyper-mcp entry points it exports, sorted
	Imports []Import // its extism:host/* imports
	Uses    []string // what its imports ask for, in grant words: net, sampling, elicitation, roots
}

// Has reports whether the plugin exports entry point name.
func (i Info) Has(name string) bool { return slices.Contains(i.Entries, name) }

// Detect reports whether a module with these function imports and exported function names is
// an Extism plugin, and what it is. An error means it claims to be one and breaks the ABI:
// a pre-1.0 plugin (env.extism_* imports), a kernel or callback function this host does not
// define or with another signature, both mcpwasm_v1 and Extism imports, or no entry point.
func Detect(imports []Import, exports []string) (Info, Match, error) {
	var info Info
	extism, mcpwasm := false, false
	for _, im := range imports {
		switch {
		case im.Module == "env" && strings.HasPrefix(im.Name, "extism_"):
			return info, Confident, fmt.Errorf("%w: imports env.%s: a pre-1.0 Extism plugin, which mcpwasm does not run; rebuild it with a current Extism PDK",
				ErrABI, im.Name)
		case im.Module == "mcpwasm_v1":
			mcpwasm = true
		case im.Module == EnvModule || im.Module == UserModule:
			extism = true
			f, ok := funcSig(im.Module, im.Name)
			if !ok {
				if im.Module == UserModule {
					return info, Confident, fmt.Errorf("%w: imports %s.%s, a host function neither hyper-mcp nor mcpwasm defines (hosted: %s)",
						ErrABI, im.Module, im.Name, strings.Join(hostedNames(im.Module), ", "))
				}
				return info, Confident, fmt.Errorf("%w: imports %s.%s, which this host does not define (hosted: %s)",
					ErrABI, im.Module, im.Name, strings.Join(hostedNames(im.Module), ", "))
			}
			if got, want := im.sig(), kind.SignatureOf(f.Params, f.Results); got != want {
				return info, Confident, fmt.Errorf("%w: imports %s.%s as %s, but this host (as the Extism kernel) defines it as %s",
					ErrABI, im.Module, im.Name, got, want)
			}
			info.Imports = append(info.Imports, im)
			if im.Module == EnvModule && im.Name == "http_request" {
				info.Uses = append(info.Uses, "net")
			}
			if g := UserFuncs[im.Name]; im.Module == UserModule && g != "" {
				info.Uses = append(info.Uses, g)
			}
		}
	}
	if extism && mcpwasm {
		return info, Confident, fmt.Errorf("%w: imports both mcpwasm_v1 and %s", ErrABI, EnvModule)
	}
	for _, e := range exports {
		if e == ExportDescribe || e == ExportCall || slices.Contains(v2Exports, e) {
			info.Entries = append(info.Entries, e)
		}
	}
	slices.Sort(info.Entries)
	slices.Sort(info.Uses)
	info.Uses = slices.Compact(info.Uses)
	switch {
	case info.Has(ExportDescribe) && info.Has(ExportCall):
		info.Version = V1 // hyper-mcp's rule: both v1 exports make a v1 plugin
	case info.Has(ExportListTools) || info.Has(ExportCallTool) || info.Has(ExportListPrompts) || info.Has(ExportListResources) || info.Has(ExportListResourceTemplates):
		info.Version = V2
	case extism:
		return info, Confident, fmt.Errorf("%w: an Extism plugin exporting no hyper-mcp entry point: want describe and call (v1) or list_tools and call_tool (v2)", ErrABI)
	default:
		return info, No, nil
	}
	if extism {
		return info, Confident, nil
	}
	if mcpwasm {
		return info, No, nil
	}
	return info, Possible, nil
}

func sigString(params, results []api.ValueType) string { return kind.SignatureOf(params, results) }

// DetectCompiled runs Detect on a compiled module's imports and exports.
func DetectCompiled(cm wazero.CompiledModule) (Info, Match, error) {
	var imports []Import
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		imports = append(imports, Import{Module: mod, Name: name, Params: f.ParamTypes(), Results: f.ResultTypes()})
	}
	var exports []string
	for name := range cm.ExportedFunctions() {
		exports = append(exports, name)
	}
	return Detect(imports, exports)
}

// Check validates the signatures of the entry points a plugin exports: each must be
// () -> i32 or () -> (). Errors wrap ErrABI and name the export.
func Check(exports map[string]api.FunctionDefinition) error {
	for _, name := range append([]string{ExportDescribe, ExportCall}, v2Exports...) {
		d, ok := exports[name]
		if !ok {
			continue
		}
		if len(d.ParamTypes()) != 0 || len(d.ResultTypes()) > 1 || (len(d.ResultTypes()) == 1 && d.ResultTypes()[0] != i32) {
			return fmt.Errorf("%w: export %q is %s, want () -> (i32)", ErrABI, name, sigString(d.ParamTypes(), d.ResultTypes()))
		}
	}
	return nil
}

// Requests is what a plugin is taken to request: it cannot name hosts or paths, so what its
// imports use is requested in full and the operator's grants g decide (net "*" for
// http_request; the client kinds for their callbacks; WASI fs, env, clock and random as far
// as g grants them). The effective grants are then g ∩ this, which is g for what it imports.
func Requests(info Info, wasi []string, g policy.Grants) abi.Requests {
	var r abi.Requests
	for _, u := range info.Uses {
		switch u {
		case "net":
			r.Net = []string{"*:*"}
		case "sampling":
			r.Sampling = true
		case "elicitation":
			r.Elicitation = true
		case "roots":
			r.Roots = true
		}
	}
	for _, name := range wasi {
		switch name {
		case "path_open":
			for _, f := range g.FS {
				r.FS = append(r.FS, abi.FSRequest{Path: f.Guest, RW: f.RW})
			}
		case "environ_get":
			for _, e := range g.Env {
				n, _, _ := strings.Cut(e, "=")
				r.Env = append(r.Env, n)
			}
		case "clock_time_get":
			r.Clock = true
		case "random_get":
			r.Random = true
		}
	}
	return r
}

// Invoker enters guest code: it calls fn with no arguments under the call's limits and
// returns its results. The guest-kind seam's Instance.Invoke is one; tests call fn directly.
type Invoker func(ctx context.Context, fn api.Function) ([]uint64, error)

// Plugin is one started plugin instance and the hyper-mcp protocol over it. Its methods are
// not safe for concurrent use: the pool runs one call at a time per instance.
type Plugin struct {
	Info   Info
	lookup func(name string) api.Function
	inst   Instance
	invoke Invoker
	funcs  map[string]api.Function // exported entry points, resolved once (wazero builds a call engine per lookup)
}

// NewPlugin wraps a module instance of a detected plugin: lookup finds its exported
// functions (kind.Instance.Func, or api.Module.ExportedFunction), invoke enters them. mem
// accounts its kernel memory and vars against its memory limit (see Kernel.Mem; nil:
// unbounded); maxVarBytes bounds its vars (0 disables them). Its host functions find it
// only through the seam: the module must be bound (kind.Bind) to a kind.Call whose Started
// is the kind's started instance holding it (what Kind.Start returns); otherwise each ends
// the call "called outside a plugin entry".
func NewPlugin(lookup func(string) api.Function, info Info, invoke Invoker, mem Accounter, maxVarBytes int) *Plugin {
	p := &Plugin{Info: info, lookup: lookup, invoke: invoke}
	p.inst.Kernel.Mem = mem
	p.inst.Vars.Mem = mem
	p.inst.Vars.Max = maxVarBytes
	return p
}

// Link makes kernel, the instance of KernelWasm the plugin's extism:host/env imports resolve
// to, hold its kernel memory (Kernel.Link); nil leaves the kernel in Go.
func (p *Plugin) Link(kernel api.Module) error { return p.inst.Kernel.Link(kernel) }

// Instance is the plugin's host-side state (kernel memory, vars), for tests and stats.
func (p *Plugin) Instance() *Instance { return &p.inst }

// Start runs the module's reactor initialiser _initialize, if it exports one, under c (the
// seam's pool runs it itself, for every kind).
func (p *Plugin) Start(ctx context.Context, c *Call) error {
	if p.lookup("_initialize") == nil {
		return nil
	}
	_, err := p.Run(ctx, c, "_initialize", nil)
	return err
}

// Run calls entry point name with input under c and returns its output. A trap, a limit or
// a host function's refusal is returned as the invoker's error, with the plugin's error
// message (error_set) and a failed kernel allocation added when there are any. A non-zero
// return code or an error set without a trap is ErrPlugin with the plugin's message.
func (p *Plugin) Run(ctx context.Context, c *Call, name string, input []byte) ([]byte, error) {
	k := &p.inst.Kernel
	k.Reset()
	defer k.Reset()
	p.inst.call = c
	defer func() { p.inst.call = nil }()
	fn, ok := p.funcs[name]
	if !ok {
		fn = p.lookup(name)
		if p.funcs == nil {
			p.funcs = map[string]api.Function{}
		}
		p.funcs[name] = fn
	}
	if fn == nil {
		return nil, fmt.Errorf("%w: the plugin does not export %q", ErrABI, name)
	}
	if err := k.SetInput(input); err != nil {
		return nil, err
	}
	res, err := p.invoke(ctx, fn)
	var exit *sys.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 0 {
		err = nil
	}
	if err != nil {
		if msg, ok := k.Error(); ok {
			err = fmt.Errorf("%w (the plugin's error: %s)", err, msg)
		}
		if k.Failed != 0 {
			err = fmt.Errorf("%w (a kernel allocation of %d bytes had failed: the plugin's kernel memory is at its limit)", err, k.Failed)
		}
		return nil, err
	}
	var rc uint32
	if len(res) > 0 {
		rc = uint32(res[0])
	}
	msg, set := k.Error()
	if rc != 0 || set {
		if !set {
			msg = fmt.Sprintf("%s returned %d", name, int32(rc))
		}
		if k.Failed != 0 {
			msg += fmt.Sprintf(" (a kernel allocation of %d bytes failed: the plugin's kernel memory is at its limit)", k.Failed)
		}
		return nil, fmt.Errorf("%w: %s", ErrPlugin, msg)
	}
	return k.Output(), nil
}

// requestContext is the "context" hyper-mcp v2 entry points get: the MCP request's id and
// _meta.
func requestContext(c *Call) json.RawMessage {
	id, meta := c.RequestID, c.Meta
	if len(id) == 0 {
		id = json.RawMessage("0")
	}
	if len(meta) == 0 {
		meta = json.RawMessage("{}")
	}
	// Built by hand, not by json.Marshal: Marshal re-compacts a RawMessage with HTML
	// escaping, which makes each '<', '>' or '&' of a client's _meta six bytes.
	b := make([]byte, 0, len(id)+len(meta)+len(`{"id":,"_meta":}`))
	b = append(append(append(b, `{"id":`...), id...), `,"_meta":`...)
	return append(append(b, meta...), '}')
}

// v2Input is {"context": …, "request": req}, or {"context": …} when req is nil; nothing in it
// is HTML-escaped.
func v2Input(c *Call, req any) []byte {
	ctxJSON := requestContext(c)
	b := append(append(make([]byte, 0, len(ctxJSON)+64), `{"context":`...), ctxJSON...)
	if req != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(req); err == nil {
			b = append(append(b, `,"request":`...), bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	return append(b, '}')
}

// runJSON runs an entry point and checks its output is one JSON object.
func (p *Plugin) runJSON(ctx context.Context, c *Call, name string, input []byte) ([]byte, error) {
	out, err := p.Run(ctx, c, name, input)
	if err != nil {
		return nil, err
	}
	out = bytes.TrimSpace(out)
	if len(out) == 0 || out[0] != '{' || !validJSON(out) {
		return nil, fmt.Errorf("%w: %s returned %d bytes that are not a JSON object", ErrABI, name, len(out))
	}
	return out, nil
}

// Describe lists what the plugin serves: v1 calls describe with empty input; v2 calls
// list_tools and, when exported, list_prompts, list_resources and list_resource_templates
// with {"context": …}. A tool without an inputSchema gets {"type":"object"}. Requests are
// the plugin's inferred ones (Requests), set by the caller.
func (p *Plugin) Describe(ctx context.Context, c *Call, name string) (*abi.Manifest, error) {
	m := &abi.Manifest{Name: name, Tools: []abi.Tool{}}
	decode := func(entry string, input []byte, into any) error {
		out, err := p.runJSON(ctx, c, entry, input)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(out, into); err != nil {
			return fmt.Errorf("%w: %s returned JSON of the wrong shape: %v", ErrABI, entry, err)
		}
		return nil
	}
	var tools struct {
		Tools []abi.Tool `json:"tools"`
	}
	if p.Info.Version == V1 {
		if err := decode(ExportDescribe, nil, &tools); err != nil {
			return nil, err
		}
	} else {
		in := v2Input(c, nil)
		if p.Info.Has(ExportListTools) {
			if err := decode(ExportListTools, in, &tools); err != nil {
				return nil, err
			}
		}
		if p.Info.Has(ExportListPrompts) {
			var v struct {
				Prompts []abi.Prompt `json:"prompts"`
			}
			if err := decode(ExportListPrompts, in, &v); err != nil {
				return nil, err
			}
			m.Prompts = v.Prompts
		}
		if p.Info.Has(ExportListResources) {
			var v struct {
				Resources []abi.Resource `json:"resources"`
			}
			if err := decode(ExportListResources, in, &v); err != nil {
				return nil, err
			}
			m.Resources = v.Resources
		}
		if p.Info.Has(ExportListResourceTemplates) {
			var v struct {
				Templates []abi.ResourceTemplate `json:"resourceTemplates"`
			}
			if err := decode(ExportListResourceTemplates, in, &v); err != nil {
				return nil, err
			}
			m.ResourceTemplates = v.Templates
		}
		m.Completions = p.Info.Has(ExportComplete)
	}
	for i := range tools.Tools {
		if len(tools.Tools[i].InputSchema) == 0 || string(tools.Tools[i].InputSchema) == "null" {
			tools.Tools[i].InputSchema = json.RawMessage(`{"type":"object"}`)
		}
	}
	m.Tools = append(m.Tools, tools.Tools...)
	return m, nil
}

// toolError is a CallToolResult with isError and msg as its text.
func toolError(msg string) []byte {
	b, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": msg}}, "isError": true})
	return b
}

// CallTool calls tool with args (a JSON object; nil is {}): v1 call with {"params":
// {name, arguments}}, v2 call_tool with {"request": {name, arguments}, "context": …}. The
// answer is the plugin's CallToolResult; a failure the plugin reports (ErrPlugin) becomes a
// CallToolResult with isError and its message, other errors are returned.
func (p *Plugin) CallTool(ctx context.Context, c *Call, tool string, args []byte) ([]byte, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	// The input is written, not marshalled: args are JSON the caller validated, and a 1 MiB
	// argument would otherwise be parsed once more to be copied.
	// It is built in one buffer: {"params":P} (v1) or {"context":…,"request":P} (v2), P being
	// {"name":…,"arguments":args}.
	name, _ := json.Marshal(tool)
	var in []byte
	entry := ExportCall
	if p.Info.Version == V1 {
		in = append(make([]byte, 0, len(args)+len(name)+48), `{"params":`...)
	} else {
		ctxJSON := requestContext(c)
		in = append(make([]byte, 0, len(args)+len(name)+len(ctxJSON)+64), `{"context":`...)
		in = append(append(in, ctxJSON...), `,"request":`...)
		entry = ExportCallTool
	}
	in = append(append(append(in, `{"name":`...), name...), `,"arguments":`...)
	in = append(append(in, args...), "}}"...)
	out, err := p.runJSON(ctx, c, entry, in)
	if errors.Is(err, ErrPlugin) {
		return toolError(strings.TrimPrefix(err.Error(), ErrPlugin.Error()+": ")), nil
	}
	return out, err
}

// pluginError turns a failure the plugin reported (ErrPlugin) into an abi.ErrorBody answer
// (a JSON-RPC error for the client; the instance stays), and returns other errors as they are.
func pluginError(out []byte, err error) ([]byte, error) {
	if errors.Is(err, ErrPlugin) {
		b, _ := json.Marshal(abi.ErrorBody{Error: strings.TrimPrefix(err.Error(), ErrPlugin.Error()+": ")})
		return b, nil
	}
	return out, err
}

// GetPrompt calls get_prompt (v2) with {"request": {name, arguments}, "context": …}. A
// failure the plugin reports is an abi.ErrorBody answer, as for ReadResource and Complete.
func (p *Plugin) GetPrompt(ctx context.Context, c *Call, name string, args []byte) ([]byte, error) {
	if !p.Info.Has(ExportGetPrompt) {
		return nil, fmt.Errorf("%w: the plugin does not export %s", ErrABI, ExportGetPrompt)
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	req := struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}{name, args}
	return pluginError(p.runJSON(ctx, c, ExportGetPrompt, v2Input(c, req)))
}

// ReadResource calls read_resource (v2) with {"request": {uri}, "context": …}.
func (p *Plugin) ReadResource(ctx context.Context, c *Call, uri string) ([]byte, error) {
	if !p.Info.Has(ExportReadResource) {
		return nil, fmt.Errorf("%w: the plugin does not export %s", ErrABI, ExportReadResource)
	}
	return pluginError(p.runJSON(ctx, c, ExportReadResource, v2Input(c, map[string]string{"uri": uri})))
}

// Complete calls complete (v2) with {"request": req, "context": …}, req being MCP's
// CompleteRequest params with ref.type's "ref/" prefix removed ("prompt", "resource"), as
// hyper-mcp sends it.
func (p *Plugin) Complete(ctx context.Context, c *Call, req []byte) ([]byte, error) {
	if !p.Info.Has(ExportComplete) {
		return nil, fmt.Errorf("%w: the plugin does not export %s", ErrABI, ExportComplete)
	}
	var r map[string]json.RawMessage
	if err := json.Unmarshal(req, &r); err != nil {
		return nil, fmt.Errorf("%w: completion request is not a JSON object: %v", ErrABI, err)
	}
	if raw, ok := r["ref"]; ok {
		var ref map[string]any
		if json.Unmarshal(raw, &ref) == nil {
			if t, ok := ref["type"].(string); ok {
				ref["type"] = strings.TrimPrefix(t, "ref/")
			}
			r["ref"], _ = json.Marshal(ref)
		}
	}
	return pluginError(p.runJSON(ctx, c, ExportComplete, v2Input(c, r)))
}

// RootsListChanged calls on_roots_list_changed (v2) with {"context": {"_meta": …}} if the
// plugin exports it; it is a notification: its output is ignored.
func (p *Plugin) RootsListChanged(ctx context.Context, c *Call) error {
	if !p.Info.Has(ExportOnRootsListChanged) {
		return nil
	}
	meta := c.Meta
	if len(meta) == 0 {
		meta = json.RawMessage("{}")
	}
	in := append(append([]byte(`{"context":{"_meta":`), meta...), "}}"...) // not HTML-escaped (requestContext)
	_, err := p.Run(ctx, c, ExportOnRootsListChanged, in)
	return err
}
