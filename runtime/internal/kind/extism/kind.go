package extism

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero/api"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// Kind is the Extism plugin kind behind the guest-kind seam: hyper-mcp v1 and v2 plugins,
// detected by their extism:host/* imports (or, failing those, their entry point names).
type Kind struct{}

var (
	_ kind.Kind = Kind{}
)

// Snapshot is the kind's Traits.Snapshot: nothing. Start learns nothing from the plugin's code (it
// runs none), and what a plugin keeps on the host side — kernel blocks, vars, the last HTTP
// response — is empty until an entry runs, so a copy taken after Start carries none of it.
func (Kind) Snapshot(kind.Started) any { return nil }

// Restore is the kind's Traits.Restore: a restored instance gets a new, empty kernel and vars (its
// Call's arena is the new instance's), exactly what Start gives a fresh one.
func (k Kind) Restore(ctx context.Context, in kind.Instance, c *kind.Call, _ any) (kind.Started, error) {
	return k.Start(ctx, in, c)
}

// Version is the kind's Traits.Version: "v1" for a plugin exporting describe and call
// (hyper-mcp's rule), "v2" for one exporting a v2 list or call entry point, else "".
func (Kind) Version(exports []string) string {
	info, _, _ := Detect(nil, exports)
	if info.Version == 0 {
		return ""
	}
	return fmt.Sprintf("v%d", int(info.Version))
}

// Name implements kind.Kind.
func (Kind) Name() string { return "extism" }

// StartRequests implements kind.Kind: what the plugin's WASI imports use (its environment,
// files, clock and random source: requestsOf), which Requested turns into what the
// operator granted. Its host functions (http_request, the client callbacks) are not used
// before a call.
func (Kind) StartRequests(m *kind.Module, _ map[string][]byte) abi.Requests {
	return requestsOf(Info{}, wasiImports(m))
}

// importsOf converts the seam's imports, with their signatures (Detect refuses one that is
// not the hosted one, naming both). An import whose signature the reader did not give is
// taken to have the hosted one.
func importsOf(m *kind.Module) []Import {
	out := make([]Import, 0, len(m.Imports))
	for _, im := range m.Imports {
		i := Import{Module: im.Module, Name: im.Name, Sig: im.Sig}
		if f, ok := funcSig(im.Module, im.Name); ok && im.Sig == "" {
			i.Params, i.Results = f.Params, f.Results
		}
		out = append(out, i)
	}
	return out
}

// Detect implements kind.Kind (see Detect).
func (Kind) Detect(m *kind.Module) (kind.Match, error) {
	_, match, err := Detect(importsOf(m), m.Exports)
	switch match {
	case Confident:
		return kind.Confident, err
	case Possible:
		return kind.Possible, err
	}
	return kind.No, err
}

// HostModules implements kind.Kind: extism:host/env and extism:host/user.
func (Kind) HostModules() []kind.HostModule {
	var out []kind.HostModule
	for _, m := range HostModules() {
		hm := kind.HostModule{Name: m.Name}
		for _, f := range m.Funcs {
			hm.Funcs = append(hm.Funcs, kind.HostFunc{Name: f.Name, Params: f.Params, Results: f.Results, Fn: f.Fn})
		}
		out = append(out, hm)
	}
	return out
}

// Check implements kind.Kind: every hyper-mcp entry point is () -> i32 or () -> ().
func (Kind) Check(exports map[string]api.FunctionDefinition) error { return Check(exports) }

// CheckManifest implements kind.Kind: prompts need get_prompt, resources read_resource,
// completions complete.
func (Kind) CheckManifest(m *abi.Manifest, exports map[string]api.FunctionDefinition) error {
	need := func(what, export string) error {
		if _, ok := exports[export]; !ok {
			return fmt.Errorf("%w: the plugin lists %s but does not export %s", ErrABI, what, export)
		}
		return nil
	}
	if len(m.Prompts) > 0 {
		if err := need("prompts", ExportGetPrompt); err != nil {
			return err
		}
	}
	if len(m.Resources) > 0 || len(m.ResourceTemplates) > 0 {
		if err := need("resources", ExportReadResource); err != nil {
			return err
		}
	}
	if m.Completions {
		return need("completions", ExportComplete)
	}
	return nil
}

// defaultLogLevel is what get_log_level answers: info, hyper-mcp's default, so a plugin does
// not spend host calls (and the call's report budget) on trace and debug lines.
const defaultLogLevel = 2

// Start implements kind.Kind. The pool has run _initialize; the plugin's kernel memory and
// vars are accounted in c.Vars with its linear memory.
func (Kind) Start(_ context.Context, in kind.Instance, c *kind.Call) (kind.Started, error) {
	m := in.Module()
	info, _, err := Detect(importsOf(m), m.Exports)
	if err != nil {
		return nil, err
	}
	s := &started{in: in, wasi: wasiImports(m)}
	invoke := func(ctx context.Context, fn api.Function) ([]uint64, error) {
		s.stack[0] = 0
		if err := in.Invoke(ctx, fn, s.stack[:]); err != nil {
			return nil, err
		}
		return s.stack[:len(fn.Definition().ResultTypes())], nil
	}
	s.p = NewPlugin(in.Func, info, invoke, c.Vars, DefaultMaxVarBytes)
	if err := s.p.Link(in.Linked(EnvModule)); err != nil {
		return nil, err
	}
	return s, nil
}

func wasiImports(m *kind.Module) []string {
	var out []string
	for _, im := range m.Imports {
		if im.Module == "wasi_snapshot_preview1" {
			out = append(out, im.Name)
		}
	}
	return out
}

// started is one started plugin instance.
type started struct {
	in    kind.Instance
	p     *Plugin
	wasi  []string
	stack [1]uint64
}

// view is the plugin's Call for one entry of c: requests, log and progress go through the
// seam's Call (its report budget, Host and Request).
func (s *started) view(ctx context.Context, c *kind.Call) *Call {
	report := func(level abi.Level, msg string) {
		if c.Report.Admit(uint32(len(msg))) {
			c.Host.Log(ctx, c, level, msg)
		}
	}
	return &Call{
		Guest: c.Guest, Tool: c.Tool, Config: c.Config, OutputBytes: c.Limits.OutputBytes, LogLevel: defaultLogLevel,
		RequestID: c.RequestID, Meta: metaOf(c),
		Request: c.Request,
		Log:     report,
		Progress: func(progress, total float64, msg string) {
			if c.Report.Admit(uint32(len(msg))) {
				c.Host.Progress(ctx, c, progress, total, msg)
			}
		},
		// One report, one admission: the seam's resource.updated (c.Request) admits it
		// against the report budget, as for every kind.
		ResourceUpdated: func(uri string) {
			body, _ := json.Marshal(abi.ResourceUpdatedRequest{URI: uri})
			if st, b := c.Request(ctx, abi.KindResourceUpdated, body); st != abi.StatusOK && st != abi.StatusTooLarge {
				report(abi.LevelWarning, fmt.Sprintf("notify_resource_updated %q: %s", uri, b))
			}
		},
		ListChanged: func(list string) {
			switch list {
			case "tools":
				c.ListsChanged |= kind.ListTools
			case "prompts":
				c.ListsChanged |= kind.ListPrompts
			case "resources":
				c.ListsChanged |= kind.ListResources
			}
		},
		Note: func(msg string) { report(abi.LevelWarning, msg) },
	}
}

// manifestName is the name in a plugin's manifest: a plugin has none, and the manifest is
// cached by module, so the guest is named by the config or its source (GuestName).
const manifestName = "plugin"

// Describe implements kind.Started: the plugin's lists as an abi.Manifest, requesting what
// its imports use (Requests; the operator's grants decide).
func (s *started) Describe(ctx context.Context, c *kind.Call) ([]byte, error) {
	m, err := s.p.Describe(ctx, s.view(ctx, c), manifestName)
	if err != nil {
		return nil, err
	}
	m.Requests = requestsOf(s.p.Info, s.wasi)
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(b) > c.Limits.OutputBytes {
		return nil, fmt.Errorf("%w: the plugin's lists take %d bytes, over the manifest limit of %d", ErrOutputLimit, len(b), c.Limits.OutputBytes)
	}
	return b, nil
}

// AnyPath and AnyVar are the fs and env requests of a plugin whose WASI imports open files
// (path_open) or read the environment (environ_get): it cannot name them, so it requests
// whatever the operator grants (Kind.Requested expands them; inspect prints them).
const (
	AnyPath = "*"
	AnyVar  = "*"
)

// requestsOf is what a plugin's imports ask for, without grants: net "*:*" for http_request,
// the client kinds of its callbacks, clock and random for their WASI imports, and AnyPath
// and AnyVar for its file and environment imports.
func requestsOf(info Info, wasi []string) abi.Requests {
	r := Requests(info, wasi, policy.Grants{})
	for _, name := range wasi {
		switch name {
		case "path_open":
			r.FS = []abi.FSRequest{{Path: AnyPath, RW: true}}
		case "environ_get":
			r.Env = []string{AnyVar}
		}
	}
	return r
}

// Requested is the kind's Traits.Requested: AnyPath and AnyVar become what granted grants.
func (Kind) Requested(r abi.Requests, granted policy.Grants) abi.Requests {
	out := r
	if slices.ContainsFunc(r.FS, func(f abi.FSRequest) bool { return f.Path == AnyPath }) {
		out.FS = nil
		for _, f := range granted.FS {
			out.FS = append(out.FS, abi.FSRequest{Path: f.Guest, RW: f.RW})
		}
	}
	if slices.Contains(r.Env, AnyVar) {
		out.Env = nil
		for _, e := range granted.Env {
			n, _, _ := strings.Cut(e, "=")
			out.Env = append(out.Env, n)
		}
	}
	return out
}

// CallTool implements kind.Started.
func (s *started) CallTool(ctx context.Context, c *kind.Call, args []byte) ([]byte, error) {
	return s.p.CallTool(ctx, s.view(ctx, c), c.Tool, args)
}

// GetPrompt implements kind.Started.
func (s *started) GetPrompt(ctx context.Context, c *kind.Call, name string, args []byte) ([]byte, error) {
	return s.p.GetPrompt(ctx, s.view(ctx, c), name, args)
}

// ReadResource implements kind.Started.
func (s *started) ReadResource(ctx context.Context, c *kind.Call, uri string) ([]byte, error) {
	return s.p.ReadResource(ctx, s.view(ctx, c), uri)
}

// Complete implements kind.Started.
func (s *started) Complete(ctx context.Context, c *kind.Call, req []byte) ([]byte, error) {
	return s.p.Complete(ctx, s.view(ctx, c), req)
}

// Traits implements kind.Kind: snapshots (an empty state: Start learns nothing), the kernel
// linked to every instance, a name from the source, hyper-mcp's versions, requests inferred
// from the grants, and foreign names (a plugin names its tools and prompts by hyper-mcp's
// and MCP's rules, not abi.NamePattern).
func (k Kind) Traits() kind.Traits {
	return kind.Traits{Snapshot: k.Snapshot, Restore: k.Restore, Linked: k.Linked, GuestName: k.GuestName,
		ForeignNames: true, Version: k.Version, Requested: k.Requested}
}

var nameChars = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// GuestName is the kind's Traits.GuestName: a plugin the config does not name is named after its
// source, the file or repository name without ".wasm", a tag or a digest
// ("oci://ghcr.io/hyper-mcp-rs/time-plugin:1" → "time-plugin"), else "plugin".
func (Kind) GuestName(source string) string {
	src := source
	if strings.HasPrefix(src, "oci://") {
		if i := strings.Index(src, "@"); i >= 0 {
			src = src[:i]
		}
		if i := strings.LastIndex(src, ":"); i > strings.LastIndex(src, "/") {
			src = src[:i]
		}
	}
	base := strings.TrimSuffix(path.Base(src), ".wasm")
	base = strings.Trim(nameChars.ReplaceAllString(base, "-"), "-")
	if len(base) > 64 {
		base = base[:64]
	}
	if base == "" {
		return manifestName
	}
	return base
}

// metaOf is the _meta of c's request (JSON), encoded now — for a v2 plugin's "context" — or
// nil.
func metaOf(c *kind.Call) json.RawMessage {
	if c.Meta == nil {
		return nil
	}
	return c.Meta()
}
