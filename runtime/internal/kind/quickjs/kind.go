package quickjs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/tetratelabs/wazero/api"
)

// Kind is JavaScript on the quickjs-wasi engine as a kind.Kind ("javascript"). It holds no
// state.
type Kind struct{}

var (
	_ kind.Kind = Kind{}
)

// Name implements kind.Kind.
func (Kind) Name() string { return "javascript" }

// StartRequests implements kind.Kind: the requests the build wrote at the head of the script
// (build.mjs: `globalThis.__mcpwasm={requests:{…}};` on the first line of SectionName, the
// same the guest's manifest answers), so a script's top level reads its granted
// environment, as under Node. A script without that line requests nothing at start.
func (Kind) StartRequests(_ *kind.Module, customs map[string][]byte) abi.Requests {
	return scriptRequests(customs[SectionName])
}

// ArgsPath is the fs request path that stands for the guest's arguments: build.mjs writes it
// for a package that is given its directories on its command line.
const ArgsPath = "$ARGS"

// ArgRequests is the kind's Traits.ArgRequests: each fs request for ArgsPath becomes one request
// per absolute path among args (cleaned; read-write as the request), so the operator's grant
// for a directory the config's args name is effective at start. Other args are no paths.
func (Kind) ArgRequests(start abi.Requests, args []string) abi.Requests {
	var fs []abi.FSRequest
	for _, f := range start.FS {
		if f.Path != ArgsPath {
			fs = append(fs, f)
			continue
		}
		for _, a := range args {
			if strings.HasPrefix(a, "/") {
				fs = append(fs, abi.FSRequest{Path: path.Clean(a), RW: f.RW})
			}
		}
	}
	start.FS = fs
	return start
}

// scriptRequests parses the requests line build.mjs writes at the head of src; the zero
// Requests if there is none or it does not parse.
func scriptRequests(src []byte) abi.Requests {
	const head, tail = "globalThis.__mcpwasm={requests:", "};"
	line, _, _ := bytes.Cut(src, []byte("\n"))
	var r abi.Requests
	body, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte(head))
	if !ok {
		return r
	}
	body, ok = bytes.CutSuffix(body, []byte(tail))
	if !ok || json.Unmarshal(body, &r) != nil {
		return abi.Requests{}
	}
	return r
}

// hostFuncNames are the engine's env imports.
var hostFuncNames = map[string]bool{"host_call": true, "host_interrupt": true, "host_promise_rejection": true,
	"host_module_normalize": true, "host_module_load": true, "host_get_timezone_offset": true}

// Detect implements kind.Kind: the import env.host_call together with the export qjs_init is
// Confident (quickjs-wasi's engine); such a module importing another env function is an error
// naming it, and so is one without a script (custom section SectionName or
// BytecodeSectionName): a bare engine is refused at load, not at its first start. A module
// with neither the import nor the export is not this kind.
func (Kind) Detect(m *kind.Module) (kind.Match, error) {
	if !m.ExportsAll("qjs_init") {
		return kind.No, nil
	}
	match := kind.No
	for _, imp := range m.Imports {
		if imp.Module != HostModuleName {
			continue
		}
		if !hostFuncNames[imp.Name] {
			return kind.No, fmt.Errorf("%w: JavaScript engine imports %s.%s, which this host does not provide (want quickjs-wasi %s)", fault.ErrABI, imp.Module, imp.Name, engineVersion)
		}
		if imp.Name == "host_call" {
			match = kind.Confident
		}
	}
	if match == kind.Confident && m.HasCustom(ServerSectionName) {
		return kind.No, fmt.Errorf("%w: the script is a whole MCP server (it carries its own SDK: custom section %q); load it with LoadServer (mcpwasm serve does)", fault.ErrABI, ServerSectionName)
	}
	if match == kind.Confident && !m.HasCustom(SectionName) && !m.HasCustom(BytecodeSectionName) {
		return kind.No, errNoScript
	}
	return match, nil
}

// errNoScript refuses a bare engine: quickjs-wasi's quickjs.wasm without the sections
// build.mjs appends.
var errNoScript = fmt.Errorf("%w: a bare JavaScript engine: the module is quickjs-wasi with no script (custom section %q or %q); build the guest with mcpwasm/build.mjs (npm run build)", fault.ErrABI, SectionName, BytecodeSectionName)

// HostModules implements kind.Kind: the engine's env module (host.go).
func (Kind) HostModules() []kind.HostModule {
	fs := HostFuncs(func(ctx context.Context, mod api.Module) *Call {
		s := startedOf(kind.CallOf(ctx, mod))
		if s == nil {
			return nil
		}
		return &s.call
	})
	hm := kind.HostModule{Name: HostModuleName}
	for _, f := range fs {
		hm.Funcs = append(hm.Funcs, kind.HostFunc{Name: f.Name, Params: f.Params, Results: f.Results, Fn: f.Fn})
	}
	return []kind.HostModule{hm}
}

// Check implements kind.Kind: the engine's C API exports (Check in engine.go).
func (Kind) Check(exports map[string]api.FunctionDefinition) error {
	if err := Check(exports); err != nil {
		return fmt.Errorf("%w: %w", fault.ErrABI, err)
	}
	return nil
}

// CheckManifest implements kind.Kind: the shim serves every entry point.
func (Kind) CheckManifest(*abi.Manifest, map[string]api.FunctionDefinition) error { return nil }

// MaxGrace bounds the grace period of a call (Grace).
const MaxGrace = time.Second

// Grace is the kind's Traits.Grace: a tenth of the time limit, at most MaxGrace. The shim
// aborts extra.signal that long before the interrupt stops the script (RATIONALE.md,
// "Why `extra.signal` is told, then interrupted, with a grace of a tenth of the limit, at most 1 s?").
func (Kind) Grace(timeout time.Duration) time.Duration { return min(MaxGrace, timeout/10) }

// Traits implements kind.Kind: snapshots kept on disk too (the engine's addresses), a grace
// before interruption (AbortSignal), start requests naming the arguments, and foreign names
// (a script names its tools, prompts and server as the TypeScript SDK allows: "files.read",
// 128 characters, "Weather Server").
func (k Kind) Traits() kind.Traits {
	return kind.Traits{Snapshot: k.Snapshot, Restore: k.Restore, EncodeState: k.EncodeState, DecodeState: k.DecodeState,
		StateFormat: k.StateFormat(), Grace: k.Grace, ForeignNames: true, ArgRequests: k.ArgRequests}
}

// endingOf names an Instance.Ending reason for the shim's abort ("" while the call runs on).
func endingOf(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, fault.ErrCancelled):
		return "cancelled"
	case errors.Is(err, fault.ErrTimeLimit):
		return "deadline"
	}
	return "stopped"
}

// started is one instance's state: the VM and the Call its host functions see.
type started struct {
	vm   *VM
	in   kind.Instance
	kc   *kind.Call
	call Call
	ctx  context.Context // the running entry's, for Log and Progress
}

func startedOf(c *kind.Call) *started {
	if c == nil {
		return nil
	}
	s, _ := c.Started.(*started)
	return s
}

// heapShare is the part of the memory limit the engine's heap may use (qjs_set_memory_limit):
// the rest is the engine's stack, its allocator's overhead and the script's bytes, so a memory
// bomb meets the engine's limit — a clean "out of memory" — before linear memory's.
const heapShare = 7.0 / 8

// Start implements kind.Kind: the script (its bytecode if the build compiled it) from the
// module's custom sections, evaluated once under the guest's limits.
func (Kind) Start(ctx context.Context, in kind.Instance, c *kind.Call) (kind.Started, error) {
	code := Code{Source: in.Custom(SectionName), Bytecode: in.Custom(BytecodeSectionName)}
	if code.Source == nil && code.Bytecode == nil { // Detect refuses such a module first
		return nil, errNoScript
	}
	s := newStarted(ctx, in, c)
	s.call.Sandbox = requester{c: c, start: true}
	vm, err := Start(WithCall(ctx, &s.call), in, code, uint64(float64(c.Limits.MemoryBytes)*heapShare))
	if err != nil {
		return nil, s.fault(err, c)
	}
	vm.Call = &s.call
	s.vm = vm
	return s, nil
}

// newStarted makes the state of instance in, entered for its start (or its Restore).
func newStarted(ctx context.Context, in kind.Instance, c *kind.Call) *started {
	s := &started{in: in, kc: c}
	s.call.Engine = in
	s.call.Interrupted = in.Interrupted
	s.call.Ending = func() string { return endingOf(in.Ending()) }
	s.enter(ctx, c)
	// No tool call yet: the instance's own grant decides the randomness its start draws
	// (crypto at the script's top level, Math.random's seed), as it decides what WASI's
	// random_get gives another kind's start.
	s.call.Random = in.Random()
	c.Started = s // the script's top level may call host functions: they find s through c
	return s
}

// Snapshot is the kind's Traits.Snapshot: the VM's addresses (State), or a kind.Refusal when
// Start could not find Math.random's state in the engine's context (another engine build):
// every copy would draw the same sequence.
func (Kind) Snapshot(st kind.Started) any {
	s, ok := st.(*started)
	if !ok || s.vm == nil {
		return kind.Refusal("its JavaScript engine did not start")
	}
	state := s.vm.State()
	if !state.Restorable() {
		return kind.Refusal("Math.random's state is not where quickjs-wasi " + engineVersion + " keeps it (another engine build)")
	}
	return state
}

// Restore is the kind's Traits.Restore: the VM of a copy of a started instance, with a new
// Math.random seed from the instance's random grant or else its clocks (snapshot.go). The
// script is not evaluated.
func (Kind) Restore(ctx context.Context, in kind.Instance, c *kind.Call, state any) (kind.Started, error) {
	st, ok := state.(State)
	if !ok {
		return nil, fmt.Errorf("%w: not a JavaScript engine's snapshot (%T)", fault.ErrABI, state)
	}
	s := newStarted(ctx, in, c)
	vm, err := Restore(WithCall(ctx, &s.call), in, st)
	if err != nil {
		return nil, s.fault(err, c)
	}
	vm.Call = &s.call
	s.vm = vm
	return s, nil
}

// engineVersion is the quickjs-wasi release whose engine EngineSHA256 pins.
const engineVersion = "3.7.0"

// enter installs the entry's capabilities in s.call: requests through the call (its sandbox:
// the operator's grants), log and progress through the call's budget, the sandbox profile's
// clock and random grant (none outside a tool call; a start then sets Random from the
// instance's grant, newStarted), and the instance's environment — at
// start too, as Node's process.env and a WASI guest's environment are, so a script's top
// level reads its granted variables (the shim keeps the first read).
func (s *started) enter(ctx context.Context, c *kind.Call) {
	s.ctx, s.kc = ctx, c
	cl := &s.call
	cl.Sandbox = requester{c: c}
	cl.Env, cl.Clock, cl.Random = s.in.Environ(), false, false
	cl.Args = c.Args
	if c.Sandbox != nil {
		p := c.Sandbox.Profile(0)
		cl.Clock, cl.Random = p.Clock(), p.Random()
	}
	cl.rng = nil
	if cl.Log == nil {
		cl.Log = s.log
		cl.Progress = s.progress
	}
}

func (s *started) log(level, msg string) {
	c := s.kc
	if c == nil || !c.Report.Admit(uint32(len(msg))) {
		return
	}
	c.Host.Log(s.ctx, c, parseLevel(level), msg[:min(len(msg), kind.MaxReportMessage)])
}

func (s *started) progress(progress, total float64, msg string) {
	c := s.kc
	if c == nil || !c.Report.Admit(uint32(len(msg))) {
		return
	}
	c.Host.Progress(s.ctx, c, progress, total, msg[:min(len(msg), kind.MaxReportMessage)])
}

// parseLevel maps an MCP LoggingLevel name to abi.Level (info for an unknown one).
func parseLevel(name string) abi.Level {
	for l := abi.LevelDebug; l <= abi.LevelEmergency; l++ {
		if l.String() == name {
			return l
		}
	}
	return abi.LevelInfo
}

// requester serves the shim's requests through the call (kind.Call.Request: the sandbox,
// resource.updated, UNAVAILABLE outside a tool call). During Start (start), the first
// request's kind is recorded: such an instance is not snapshotted (kind.Call.StartRequest).
type requester struct {
	c     *kind.Call
	start bool
}

func (r requester) Request(ctx context.Context, k string, body []byte) (abi.Status, []byte) {
	if r.start && r.c.StartRequest == "" {
		r.c.StartRequest = k[:min(len(k), kind.MaxRequestKind)]
		if r.c.StartRequest == "" {
			r.c.StartRequest = "(no kind)"
		}
	}
	return r.c.Request(ctx, k, body)
}

// Describe implements kind.Started.
func (s *started) Describe(ctx context.Context, c *kind.Call) ([]byte, error) {
	return s.run(ctx, c, EntryDescribe, []byte("{}"))
}

// CallTool implements kind.Started: the tool's result, or its JSON-RPC error as the error
// it is (a zod refinement the JSON Schema could not express: fault.ErrInvalidArguments).
// The request always carries a progress token: the binding decides what reaches the client.
func (s *started) CallTool(ctx context.Context, c *kind.Call, args []byte) ([]byte, error) {
	if len(args) == 0 {
		args = []byte("{}")
	}
	name, _ := json.Marshal(c.Tool)
	p := make([]byte, 0, len(args)+len(name)+64)
	p = append(append(append(p, `{"name":`...), name...), `,"arguments":`...)
	p = append(append(p, args...), `,"_meta":{"progressToken":"mcpwasm"}}`...)
	return s.run(ctx, c, EntryCallTool, p)
}

// GetPrompt implements kind.Started.
func (s *started) GetPrompt(ctx context.Context, c *kind.Call, name string, args []byte) ([]byte, error) {
	if len(args) == 0 {
		args = []byte("{}")
	}
	n, _ := json.Marshal(name)
	return s.run(ctx, c, EntryGetPrompt, []byte(`{"name":`+string(n)+`,"arguments":`+string(args)+`}`))
}

// ReadResource implements kind.Started.
func (s *started) ReadResource(ctx context.Context, c *kind.Call, uri string) ([]byte, error) {
	u, _ := json.Marshal(uri)
	return s.run(ctx, c, EntryReadResource, []byte(`{"uri":`+string(u)+`}`))
}

// Complete implements kind.Started.
func (s *started) Complete(ctx context.Context, c *kind.Call, req []byte) ([]byte, error) {
	return s.run(ctx, c, EntryComplete, req)
}

// run runs one entry: its result, capped at the call's output limit. A JSON-RPC error of a
// prompt, resource or completion is the abi.ErrorBody the binding maps; of a tool call,
// invalid params is fault.ErrInvalidArguments.
func (s *started) run(ctx context.Context, c *kind.Call, entry string, payload []byte) ([]byte, error) {
	s.enter(ctx, c)
	defer func() { s.kc = nil }()
	out, err := s.vm.Run(ctx, entry, payload)
	var ee *EntryError
	if errors.As(err, &ee) {
		switch {
		case entry == EntryDescribe: // no McpServer, a schema zod cannot convert
			return nil, fmt.Errorf("%w: the script's manifest: %s", fault.ErrABI, ee.Message)
		case entry == EntryCallTool && ee.Code == -32602:
			return nil, fmt.Errorf("%w: %s", fault.ErrInvalidArguments, ee.Message)
		case entry == EntryCallTool:
			return nil, fmt.Errorf("%w: %s: %s", fault.ErrTrap, entry, ee.Message)
		}
		b, _ := json.Marshal(ee)
		return b, nil
	}
	if err != nil {
		return nil, s.fault(err, c)
	}
	if len(out) > c.Limits.OutputBytes {
		return nil, fmt.Errorf("%w: result of %s is over %s", fault.ErrOutputLimit, size.Format(uint64(len(out))), size.Format(uint64(c.Limits.OutputBytes)))
	}
	return out, nil
}

// fault maps the VM's errors onto the fault sentinels (an error from Invoke already wraps one):
// the script's failure is fault.ErrTrap, an engine that is not quickjs-wasi fault.ErrABI.
func (s *started) fault(err error, c *kind.Call) error {
	switch {
	case errors.Is(err, ErrMemory):
		return fmt.Errorf("%w: the script's heap is over %s: %w", fault.ErrMemoryLimit, size.Format(uint64(float64(c.Limits.MemoryBytes)*heapShare)), err)
	case errors.Is(err, ErrInterrupted):
		// The engine unwound the script; Invoke names why (deadline, cancellation, stop).
		if ierr := s.in.Invoke(context.Background(), s.in.Func("qjs_is_job_pending"), make([]uint64, 1)); ierr != nil {
			return ierr
		}
		return fmt.Errorf("%w: %w", fault.ErrTimeLimit, err)
	case errors.Is(err, ErrScript):
		// The script's own failure (a throw the shim could not turn into a result, a syntax
		// error, a top-level throw): the guest's code failed, as a trap is a WASI guest's —
		// not a breach of the ABI, which the engine and the shim keep.
		return fmt.Errorf("%w: %w", fault.ErrTrap, err)
	case errors.Is(err, ErrEngine):
		return fmt.Errorf("%w: %w", fault.ErrABI, err)
	}
	return err
}
