// Package kind is the guest-kind seam: the one place a guest ABI plugs into the runtime.
//
// A Kind (mcpwasm's own ABI in kind/mcpwasm, Extism plugins in kind/extism, JavaScript in
// kind/quickjs) says which modules are its own (Detect), which host modules they import
// (HostModules), whether a compiled module is well formed for it (Check, CheckManifest), and
// how to start an instance and serve MCP's entry points in it (Start → Started). The pool,
// the limits, the grants and the MCP binding know nothing of any kind: the pool instantiates,
// arms the call's deadline and installs a Call; a kind enters guest code only through
// Instance.Invoke, so every kind runs under the same time limit, memory limit, cancellation
// and kill switch, and its errors wrap the same fault sentinels. Its host functions reach the
// outside only through the Call (Log, Progress, Request → the sandbox of the running tool).
// Whole MCP servers (WASI commands, JavaScript bundles with their own SDK) are not a kind:
// they run a loop of their own and are served through runtime.Server
// (runtime/internal/engine: wasiserver.go, jsserver.go; the JavaScript loop is
// quickjs.Serve in kind/quickjs/process.go).
//
// Adding a kind, in four steps:
//  1. Write package runtime/internal/kind/NAME with a type implementing Kind: Name, Detect
//     (a host module only it defines makes it Confident), HostModules, Check, CheckManifest,
//     StartRequests, Start (→ a Started serving Describe, CallTool, GetPrompt, ReadResource,
//     Complete) and Traits (the zero Traits means no snapshots, no links, no grace: the
//     suite's snapshot case then needs a notApplicable reason).
//  2. Add one line to the kinds slice in runtime/internal/engine/kinds.go (its order breaks
//     Detect ties). A kind whose guest code travels in a custom section names it with the
//     prefix "mcpwasm.js" (instrument.ScriptSectionPrefix, written out: a kind does not import
//     instrument); only those sections reach Module.Customs.
//  3. Enter guest code only through Instance.Invoke; reach the outside only through the Call
//     (c.Request, c.Host.Log, c.Report); never import os, net or net/http (no file or socket
//     of its own). What a guest reads as time and entropy is the sandbox's
//     (c.Sandbox.Profile); a kind may use the host's monotonic clock only to schedule and
//     bound its own work (quickjs: timers, turn deadlines) and crypto/rand only where the
//     random grant says so. Cap results at c.Limits.OutputBytes; wrap errors in fault
//     sentinels; check a host-call argument's size (CheckArg) before copying it.
//  4. It may import abi, runtime/policy, runtime/peer, runtime/internal/{fault,sandbox,wasm},
//     internal/size and wazero (its root for a host module builder, api, sys), never package
//     runtime or the engine; give it a column in
//     runtime/internal/engine/kindsuite_test.go (a fixture per case, or a reason:
//     notApplicable, elsewhere) — TestKindSuiteCoversEveryKind fails for a registered kind
//     without one. (The rule is review's: no test enforces the import list.)
//
// Package kind must not import package runtime (runtime imports it).
package kind

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	"github.com/tetratelabs/wazero/api"
)

// Kind is one guest ABI. A Kind holds no state of a guest; it is registered once and used
// by every Host. It never owns a capability: its host functions reach the outside only
// through the running Call.
type Kind interface {
	// Name is the kind's label for inspect, GuestStats and metrics: "mcpwasm", "extism",
	// "javascript".
	Name() string
	// Detect reports whether m (its imports and exports, before any rewrite) is this kind.
	// Confident means the module imports something only this kind defines (an import
	// module); Possible means only export names match. An error says the module claims the
	// kind but breaks it (a known import module with an unknown function).
	Detect(m *Module) (Match, error)
	// HostModules returns the host modules this kind's guests import. The Host instantiates
	// each once (a name two kinds declare is an error at NewHost). Their functions find the
	// running call with CallOf; none keeps a pointer to guest memory across calls.
	HostModules() []HostModule
	// Check validates the compiled module's exported functions at load (after the
	// instrumentation, so reserved names are the host's): the entry points this kind calls
	// and their signatures. Errors wrap fault.ErrABI and name the export. What every kind
	// requires (an exported memory "memory", no imported memory, imports only from WASI and
	// HostModules, no _start) is checked by load, not here.
	Check(exports map[string]api.FunctionDefinition) error
	// CheckManifest refuses a manifest that declares what the module cannot serve:
	// resources, prompts or completions whose entry points are not among exports (which,
	// for a lazily loaded guest, name the functions only: the definitions are nil). Errors
	// wrap fault.ErrABI.
	CheckManifest(m *abi.Manifest, exports map[string]api.FunctionDefinition) error
	// StartRequests is what a guest of m asks for before any of its code runs, read from the
	// module alone (its imports; customs, its script sections): the start (start functions
	// and Start) and the guest-level entries run under the operator's guest grants
	// intersected with it (after Traits.Requested, for a kind that has one). A kind whose guests
	// name their requests only in their describe answer returns the zero Requests: their
	// start runs with no grants.
	StartRequests(m *Module, customs map[string][]byte) abi.Requests
	// Start prepares a fresh instance, whose start section and WASI reactor _initialize
	// have run (the pool runs them, armed, for every kind), under c's limits: a JS engine's
	// setup and the guest's script, an ABI handshake. It returns the instance's state.
	Start(ctx context.Context, in Instance, c *Call) (Started, error)
	// Traits is the rest of what the kind does (snapshots, linked modules, grace, naming,
	// inferred requests), read once by NewHost.
	Traits() Traits
}

// Traits is what a kind does beyond Kind's methods, as one value: each field a kind leaves
// zero is a behaviour its guests visibly lack (a nil Restore: no snapshots). The Host reads
// it once, at NewHost (Kind.Traits), keeps it beside the kind and checks it (Check); nothing
// outside runtime/internal/engine/kinds.go asks a kind what else it is.
type Traits struct {
	// Snapshot and Restore (both or neither) let the pool copy a started instance's linear
	// memory and mutable globals right after Start returned (before any entry ran) and start
	// later instances of the same module and grants from that copy, without running the start
	// functions or Start's guest code again (RATIONALE "Pristine instances from snapshots").
	// A kind whose Started keeps state the copy cannot carry (host-side objects the guest
	// refers to by handle, Vars it filled in Start) leaves both nil.
	//
	// Snapshot returns what Restore needs of s, just started, besides its guest memory and
	// globals: what Start learned from the guest (addresses in its memory: a JS engine's
	// context and entry functions), as a value no later entry of s changes. nil is fine. A
	// Refusal says why this instance must not be copied: the pool then runs Start for each.
	Snapshot func(s Started) any
	// Restore returns the Started of in, a fresh instance whose linear memory and globals
	// are a copy of those of an instance of the same module taken just after its Start
	// returned, state being what Snapshot returned for that instance. It must not run again
	// the guest code Start ran; addresses in state are valid in in. in may also be an
	// instance that served calls and was then reset in place to that copy (memory, globals,
	// WASI clocks and random source; c.Vars is a fresh arena): the pool drops its previous
	// Started without a call and uses the one Restore returns, so a Started must keep
	// nothing a later session could see.
	Restore func(ctx context.Context, in Instance, c *Call, state any) (Started, error)
	// EncodeState, DecodeState and StateFormat (all or none, and only with Restore) let the
	// snapshot state be kept on disk, in the compile cache, so that a later process restores
	// the first instance of a pool too (runtime/internal/engine/snapshotdisk.go). EncodeState encodes what
	// Snapshot returned; DecodeState is its inverse and must refuse bytes it did not make
	// (the file is authenticated, but may come from another build). StateFormat names the
	// encoding and what Start does (a version): it is part of the file's key.
	EncodeState func(state any) ([]byte, error)
	DecodeState func(b []byte) (any, error)
	StateFormat string
	// Linked returns the modules of wasm code the kind's guests import besides its
	// HostModules, which the host instantiates once per guest instance (Extism's kernel: its
	// memory and the load and store functions a plugin calls for every 8 bytes it copies are
	// wasm, so those calls never leave wasm). The pool instantiates each just before the
	// guest, resolves the guest's imports of its Name to that instance only (wazero's
	// experimental ImportResolver), hands it to the kind as Instance.Linked(Name), and closes
	// it with the guest. A linked module's own imports resolve from the host's modules (WASI,
	// every kind's HostModules); its memory is not the guest's: the kind accounts it (Arena).
	// The pool binds it to the guest's Call (Bind) with the guest, so a host function it
	// forwards (wazero passes the linked module as the caller) finds the guest's call with
	// CallOf, as one the guest imports directly does.
	// Called once per Host, on its first instance of the kind. nil: links nothing.
	Linked func() []Linked
	// Grace, for a kind whose guests can end a call themselves when told it is ending
	// (JavaScript's AbortSignal), is the grace period of a call whose time limit is timeout:
	// the pool tells them (Instance.Ending) at a cancellation and grace before the call's
	// deadline, and interrupts them grace after the cancellation or at the deadline. A
	// cancelled call that returns within its grace keeps its instance; its caller still gets
	// ErrCancelled. nil: told and interrupted together.
	Grace func(timeout time.Duration) time.Duration
	// GuestName, for a kind whose guests have no name of their own (Extism plugins), names a
	// guest the config does not name from source (GuestConfig.Source) instead of by its
	// manifest (which is cached by module, so it cannot carry a name that depends on where
	// the module came from). nil: the manifest's name.
	GuestName func(source string) string
	// ForeignNames is set for a kind whose guests are written for another ecosystem's naming
	// rules rather than for abi.NamePattern (JavaScript guests follow the TypeScript SDK and
	// MCP 2025-11-25, where a tool may be "files.read" or 128 characters long and a server's
	// name is a display name; Extism plugins follow hyper-mcp's). Load serves each of their
	// tool and prompt names outside the pattern as names.MapName maps it, calls the guest with
	// the name it declared, and derives the guest's name from a manifest name outside the
	// pattern (names.DeriveGuestName). Our own ABI's guests keep the pattern.
	ForeignNames bool
	// Version, for a kind whose guests speak one of several protocol versions told apart by
	// their exported function names (Extism plugins: hyper-mcp's v1 or v2), returns it
	// ("v1"), or "" when exports name none. Inspect prints it beside the name. nil: none.
	Version func(exports []string) string
	// Requested, for a kind whose guests cannot name the files, variables or hosts they use
	// (Extism plugins), is what a guest granted granted requests, given the requests of its
	// manifest (what Describe returned). nil: the manifest's requests as they are.
	Requested func(manifest abi.Requests, granted policy.Grants) abi.Requests
	// ArgRequests, for a kind whose start requests can name the guest's arguments
	// (GuestConfig.Args), returns start (what StartRequests read) with them in place
	// (JavaScript: a package given its directories on its command line requests each).
	// nil: start as it is.
	ArgRequests func(start abi.Requests, args []string) abi.Requests
}

// Check reports a Traits whose fields do not go together: Snapshot without Restore or the
// reverse; a state codec that is partial or without Restore.
func (t Traits) Check() error {
	if (t.Snapshot == nil) != (t.Restore == nil) {
		return errors.New("traits: Snapshot and Restore go together")
	}
	codec := 0
	for _, set := range []bool{t.EncodeState != nil, t.DecodeState != nil, t.StateFormat != ""} {
		if set {
			codec++
		}
	}
	if codec != 0 && (codec != 3 || t.Restore == nil) {
		return errors.New("traits: EncodeState, DecodeState and StateFormat go together, and with Restore")
	}
	return nil
}

// Refusal is what Traits.Snapshot returns for an instance that must not be copied: the
// reason, which the pool logs.
type Refusal string

// Linked is one module a kind's guests import (Traits.Linked): the import module name it
// serves and its wasm, compiled once per Host (on its first instance of the kind, through
// the authenticated compilation cache as guests are).
type Linked struct {
	Name string
	Wasm []byte
}

// Started is one started instance of a kind. The pool serialises its methods: never two at
// once, always with c installed and the call's deadline armed. Each returns the JSON the
// binding expects (Describe: an abi.Manifest; the others: the MCP result, or an abi.ErrorBody
// for a protocol error), a copy the caller owns, at most c.Limits.OutputBytes bytes (else an
// error wrapping fault.ErrOutputLimit), or an error wrapping a fault sentinel; after an error
// the pool discards the instance. An entry point the kind lacks is never called: load
// refuses a manifest that declares resources, prompts or completions the module cannot serve
// (Kind.CheckManifest).
type Started interface {
	// Describe returns the guest's manifest (abi.Manifest JSON): tools, resources, prompts.
	Describe(ctx context.Context, c *Call) ([]byte, error)
	// CallTool runs tool c.Tool with args (a JSON object).
	CallTool(ctx context.Context, c *Call, args []byte) ([]byte, error)
	// GetPrompt renders prompt name with args (a JSON object of strings).
	GetPrompt(ctx context.Context, c *Call, name string, args []byte) ([]byte, error)
	// ReadResource reads uri.
	ReadResource(ctx context.Context, c *Call, uri string) ([]byte, error)
	// Complete answers req (an abi.CompleteRequest as JSON).
	Complete(ctx context.Context, c *Call, req []byte) ([]byte, error)
}

// Instance is what the pool gives a kind for one wazero module instance. Invoke is the only
// way a kind enters guest code, so limits are the same for every kind.
type Instance interface {
	// Func returns the exported function name, or nil; resolve it once per instance (in
	// Start), not per call: wazero builds a call engine on every lookup.
	Func(name string) api.Function
	// Invoke calls fn with stack (params in, results out: wazero's CallWithStack, no
	// allocation) under the call's deadline, cancellation, memory limit and the kill
	// switch, which the pool armed. A trap, the time or memory limit, a cancellation, a stop
	// or a close becomes an error wrapping the fault sentinel; so does an interruption that
	// lands as the guest returns.
	Invoke(ctx context.Context, fn api.Function, stack []uint64) error
	// Interrupted reports whether the running call was interrupted (deadline, cancellation,
	// Stop, Close) and the guest should return: a host function's "cancelled?" answer.
	Interrupted() bool
	// Ending reports why the running call is ending — fault.ErrCancelled, ErrTimeLimit,
	// ErrStopped or ErrClosed — or nil while it runs on. For a kind with a Traits.Grace it is told a
	// grace before Interrupted (after a cancellation; before the deadline); otherwise the two
	// come together.
	Ending() error
	// Memory is the guest's exported linear memory.
	Memory() api.Memory
	// Linked returns this instance's instance of the kind's linked module name (Traits.Linked), or
	// nil when the kind links none of that name.
	Linked(name string) api.Module
	// Custom returns the body of the module's custom section name (the last of that name), or
	// nil: how a kind that keeps its guest's code in the module (JavaScript's script, section
	// "mcpwasm.js") reads it in Start. Only sections named "mcpwasm.js…" are kept.
	Custom(name string) []byte
	// Region returns a view of [ptr, ptr+n) of linear memory, valid until the guest runs
	// again, or an error wrapping fault.ErrABI naming the region when it is not inside the
	// memory. Size caps are the kind's (which limit a region breaks is its to name).
	Region(ptr, n uint32) ([]byte, error)
	// Module is what Detect looked at: the module's function imports and exports (a kind
	// whose guests cannot name what they use infers its requests from its imports).
	Module() *Module
	// Environ is the instance's environment as NAME=value pairs: its sandbox profile's env
	// grants, resolved when it was instantiated — what a WASI guest reads with environ_get,
	// at start as in every entry. A kind whose engine does not read WASI's environment serves
	// it from here (JavaScript's process.env).
	Environ() []string
	// Random reports whether the instance's sandbox profile has the random grant: its WASI
	// random_get reads crypto entropy, at start as in every entry. A kind whose engine draws
	// randomness through the host (JavaScript's crypto and Math.random's seed) draws it from
	// crypto entropy at start when this is true, and from its fixed sequence otherwise.
	Random() bool
}

// Lists is a set of a guest's lists, as list_changed notifications name them.
type Lists uint8

// The lists.
const (
	ListTools Lists = 1 << iota
	ListPrompts
	ListResources
)

// Entry names the entry point a Call runs.
type Entry uint8

// The entry points, one per Started method.
const (
	EntryDescribe Entry = iota
	EntryTool
	EntryPrompt
	EntryRead
	EntryComplete
)

// Host is what the runtime does for the host functions of every kind: one per guest, set
// in Call.Host by the pool. Its methods run on the calling goroutine while the guest waits.
type Host interface {
	// Log delivers an admitted log line (slog and the call's hooks).
	Log(ctx context.Context, c *Call, level abi.Level, msg string)
	// Progress delivers an admitted progress report.
	Progress(ctx context.Context, c *Call, progress, total float64, msg string)
	// Request serves one capability request of c (ABI.md §6.1): resource.updated against the
	// resources the guest serves, anything else through c.Sandbox, with the call's MCP client
	// and observer, cancelled with the call. A call with no sandbox gets UNAVAILABLE.
	Request(ctx context.Context, c *Call, kind string, body []byte) (abi.Status, []byte)
}

// Call is one entry into a guest: what the pool installs before a Started method (or Start)
// runs and resets after. The pool keeps one per instance, so entering costs no allocation.
// Host functions of every kind reach it through CallOf.
type Call struct {
	Guest string // the guest's name ("" while its manifest is read, if the config names none)
	// Config is the operator's key-value strings for the guest (GuestConfig.Config), which
	// Extism plugins read with config_get; never the client's. Read only.
	Config map[string]string
	// Args is the operator's arguments for the guest (GuestConfig.Args): argv after the
	// program name, as a server's command line would give them. Read only.
	Args  []string
	Tool  string // the tool running; "" outside tools/call
	Entry Entry
	// Limits of the entry: the tool's for a tool call, else the guest's; for Describe,
	// OutputBytes is the manifest limit. The pool enforces Timeout and MemoryBytes (linear
	// memory plus Vars); a kind names them in messages and caps its results at OutputBytes.
	Limits policy.Limits
	// Sandbox is the entry's only capability: a tool call's tool's grants; the guest's grants
	// for a resource read, a prompt or a completion; for the start and describe the guest's
	// grants within Kind.StartRequests. Nil only where the runtime has none to give (a test).
	Sandbox *sandbox.Tool
	// RequestID is the JSON-RPC id (JSON) of the MCP request the entry serves, for kinds
	// whose entry points receive it (hyper-mcp v2's "context"); nil when there is none
	// (describe, a caller that gave none). Read only.
	RequestID json.RawMessage
	// Meta returns the params' _meta (JSON, not HTML-escaped) of that request; a kind calls
	// it only when its entry point receives it, so no other kind pays for encoding it. Nil
	// when there is none.
	Meta func() json.RawMessage
	// Input is the request body for kinds that pull their input (Extism input_*); nil unless
	// the kind sets it in its entry point.
	Input []byte
	// Output is the bounded sink for kinds that push their output (Extism output_set),
	// reset per entry and capped at Limits.OutputBytes.
	Output Output
	// Report is the entry's log, progress and resource.updated budget.
	Report *Budget
	// Vars is the instance's host-side arena (Extism vars and kernel memory), counted with
	// linear memory against Limits.MemoryBytes; it lives as long as the instance.
	Vars *Arena
	// Host serves the entry's log and progress (after Report admitted them) and requests.
	Host Host
	// Instance and Started are the instance running the entry and the kind's state of it.
	Instance Instance
	Started  Started
	// ListsChanged is what the guest reported changed during the entry (an Extism plugin's
	// notify_*_list_changed): the pool clears it when the entry starts and, after a tool call,
	// prompt, read or completion, reads the guest's lists again in the same instance — once,
	// however many reports the entry made.
	ListsChanged Lists
	// StartRequest is the kind of the first capability request the guest made before its
	// instance had started (its start functions, Start), which host functions refuse with
	// UNAVAILABLE and record here: a start that asks for a capability is not snapshotted.
	StartRequest string
}

// Request serves one capability request (see Host.Request).
func (c *Call) Request(ctx context.Context, kind string, body []byte) (abi.Status, []byte) {
	return c.Host.Request(ctx, c, kind, body)
}

// Reset clears what one entry installed, keeping the instance's parts (Guest, Config, Host,
// Instance, Started, Vars, Report's guest-wide rate).
func (c *Call) Reset() {
	c.Tool, c.Entry, c.Limits, c.Sandbox, c.Input = "", 0, policy.Limits{}, nil, nil
	c.RequestID, c.Meta = nil, nil
	c.Output.Reset(0)
}

var calls sync.Map // api.Module → *Call

// Bind makes c the call of mod's host functions until Unbind. The pool binds an instance's
// Call once, when it is instantiated, to the guest's module and to each of its linked
// modules (Traits.Linked). CallOf is the only way a host function finds its call: nothing
// is looked up in a context, so a context that passed through one instance's entry reaches
// nothing of it from another module.
func Bind(mod api.Module, c *Call) { calls.Store(mod, c) }

// Unbind forgets mod (its instance is closed).
func Unbind(mod api.Module) { calls.Delete(mod) }

// CallOf returns the running call of the instance a host function was called from, or nil
// for a module the pool does not run.
func CallOf(_ context.Context, mod api.Module) *Call {
	v, ok := calls.Load(mod)
	if !ok {
		return nil
	}
	return v.(*Call)
}

// HostModule is one host module a kind's guests import.
type HostModule struct {
	Name  string
	Funcs []HostFunc
}

// HostFunc is one Go function of a host module (wazero's HostFunctionBuilder input).
type HostFunc struct {
	Name            string
	Params, Results []api.ValueType
	ParamNames      []string // optional, for wazero's stack traces
	Fn              api.GoModuleFunc
}

// Match is how sure Detect is that a module is of a kind.
type Match int

const (
	// No: not this kind.
	No Match = iota
	// Possible: only export names match (a guest that imports none of the kind's modules).
	Possible
	// Confident: the module imports a host module only this kind defines.
	Confident
)

// Module is what Detect looks at: the module's function imports and exports, as wazero's
// CompiledModule (ImportedFunctions, ExportedFunctions) reports them, and the names of the
// custom sections a kind keeps its guest's code in (those named "mcpwasm.js…", read by the
// one wasm reader, runtime/internal/wasm: JavaScript's script and bytecode).
type Module struct {
	Imports []Import
	Exports []string // exported function names
	Customs []string // custom section names "mcpwasm.js…", sorted
}

// Import is one imported function: its module, name and signature, as Signature writes it
// ("(i64, i64) -> (i64)"; "" when the reader does not know it). A string keeps Import
// comparable.
type Import struct{ Module, Name, Sig string }

// Signature is the one spelling of a function type in Import.Sig and in messages:
// "(i64, i32) -> ()", each type named as the text format names it (api.ValueTypeName).
func Signature(params, results []string) string {
	return "(" + strings.Join(params, ", ") + ") -> (" + strings.Join(results, ", ") + ")"
}

// SignatureOf is Signature of wazero value types.
func SignatureOf(params, results []api.ValueType) string {
	names := func(ts []api.ValueType) []string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = api.ValueTypeName(t)
		}
		return out
	}
	return Signature(names(params), names(results))
}

// ImportsModule reports whether m imports any function of module name.
func (m *Module) ImportsModule(name string) bool {
	return slices.ContainsFunc(m.Imports, func(i Import) bool { return i.Module == name })
}

// HasCustom reports whether m has a custom section called name (one of Customs).
func (m *Module) HasCustom(name string) bool { return slices.Contains(m.Customs, name) }

// ExportsAll reports whether m exports every function of names.
func (m *Module) ExportsAll(names ...string) bool {
	for _, n := range names {
		if !slices.Contains(m.Exports, n) {
			return false
		}
	}
	return true
}

// Detect picks the kind of m from kinds (in registration order): the one Confident match
// wins; two Confident matches, or none Confident and two Possible, is an error naming both;
// no match is "not a guest module: imports …, exports …". Each wraps fault.ErrABI. A kind's Detect error (a module
// that claims the kind and breaks it) is returned as it is.
func Detect(m *Module, kinds []Kind) (Kind, error) {
	var confident, possible []Kind
	for _, k := range kinds {
		match, err := k.Detect(m)
		if err != nil {
			return nil, err
		}
		switch match {
		case Confident:
			confident = append(confident, k)
		case Possible:
			possible = append(possible, k)
		}
	}
	switch {
	case len(confident) == 1:
		return confident[0], nil
	case len(confident) > 1:
		return nil, fmt.Errorf("%w: module is both a %s and a %s guest (it imports the host modules of both)", fault.ErrABI, confident[0].Name(), confident[1].Name())
	case len(possible) == 1:
		return possible[0], nil
	case len(possible) > 1:
		return nil, fmt.Errorf("%w: module could be a %s or a %s guest (its exports match both, it imports neither's host module)", fault.ErrABI, possible[0].Name(), possible[1].Name())
	}
	if slices.Equal(m.Exports, []string{"_initialize"}) {
		// Stock Go's -buildmode=c-shared with entry points marked //export (TinyGo's
		// directive, which Go ignores, so the linker drops them and the PDK imports with
		// them): hyper-mcp's Go plugins are written so.
		return nil, fmt.Errorf("%w: not a guest module: imports %s, exports only _initialize, as stock Go builds a module whose functions are marked //export "+
			"(TinyGo's directive, which Go ignores): use //go:wasmexport NAME on each entry point (an Extism plugin: //go:wasmexport call and //go:wasmexport describe, "+
			"or list_tools and call_tool) with Go 1.24 or later (see abi/EXTISM.md, \"Go plugins with stock Go\")", fault.ErrABI, m.importList())
	}
	return nil, fmt.Errorf("%w: not a guest module: imports %s, exports %s (see abi/ABI.md)", fault.ErrABI, m.importList(), m.exportList())
}

// importList names the imported modules (with how many functions of each), at most 8.
func (m *Module) importList() string {
	var names []string
	count := map[string]int{}
	for _, i := range m.Imports {
		if count[i.Module] == 0 {
			names = append(names, i.Module)
		}
		count[i.Module]++
	}
	if len(names) == 0 {
		return "nothing"
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, fmt.Sprintf("%s (%d)", n, count[n]))
	}
	return clip(out)
}

func (m *Module) exportList() string {
	if len(m.Exports) == 0 {
		return "no function"
	}
	s := slices.Clone(m.Exports)
	slices.Sort(s)
	return clip(s)
}

func clip(s []string) string {
	const max = 8
	if len(s) > max {
		return strings.Join(s[:max], ", ") + fmt.Sprintf(", … (%d more)", len(s)-max)
	}
	return strings.Join(s, ", ")
}

// CheckHostModules checks that no two kinds declare the same host module.
func CheckHostModules(kinds []Kind) error {
	seen := map[string]string{}
	for _, k := range kinds {
		for _, hm := range k.HostModules() {
			if prev, dup := seen[hm.Name]; dup {
				return fmt.Errorf("host module %q is declared by kinds %s and %s", hm.Name, prev, k.Name())
			}
			seen[hm.Name] = k.Name()
		}
	}
	return nil
}

// Aborted is the panic value of Abort. The pool's classification of a call's error unwraps
// it: the call fails with Err as it is.
type Aborted struct{ Err error }

func (a *Aborted) Error() string { return a.Err.Error() }
func (a *Aborted) Unwrap() error { return a.Err }

// Abort ends the running guest call from inside a host function: it panics, wazero unwinds
// the guest, and the call's error is err (which should wrap a fault sentinel:
// fault.ErrOutputLimit for an output_set over the limit, fault.ErrABI for a broken
// argument). The instance is discarded, as after a trap.
func Abort(err error) { panic(&Aborted{Err: err}) }
