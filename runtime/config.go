package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/engine"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// GuestConfig configures one guest at load. The zero value (or nil) is valid.
type GuestConfig struct {
	// Name overrides the guest name from its manifest (for a JavaScript guest, McpServer's
	// name; one outside abi.NamePattern is served as names.DeriveGuestName derives it).
	Name string
	// Source names where the module came from (a path, "bundled:calc"), for messages.
	Source string
	// Limits for every call of the guest; zero fields take policy.DefaultLimits().
	Limits Limits
	// ToolLimits narrow Limits for single tools; zero fields take the guest's limits.
	// Instances is a guest-wide setting and is ignored here.
	ToolLimits map[string]Limits
	// Grants are the operator's grants to the guest. Nothing is granted when empty.
	Grants Grants
	// ToolGrants, when non-nil, narrows Grants per tool: a tool gets what both its entry and
	// Grants give, and a tool without an entry gets nothing.
	ToolGrants map[string]Grants
	// Isolation says which calls may share an instance — and so see what earlier calls left
	// in its linear memory and globals. A warm instance is what makes calls cheap, and a guest
	// can keep anything in it: a cache, a counter, the last arguments.
	//
	//   - "session" (or ""): an instance is reused only for calls of the session it last
	//     served (CallHooks.Session); a call of another session gets a fresh instance. The
	//     default: no MCP session sees what another's calls left, and a session's calls after
	//     its first are warm. Calls whose context carries no session count as one session.
	//   - "shared": any call of the guest may reuse an instance; the fastest, for guests that
	//     cache on purpose. Calls of different sessions (and clients) may see each other's
	//     leftovers.
	//   - "call": every call gets a fresh instance; nothing survives a call, at the price of
	//     a reset per call (about 0.1 ms for a Go guest, ten microseconds for a small WAT
	//     one; bench/HISTORY.md "Snapshots, reset in place (wave 7)").
	//
	// A fresh instance starts from a snapshot of the guest's first instance taken right after
	// its start, and is usually the instance the last session or call used, reset in place
	// to that snapshot (GuestStats.Resets counts them; docs/guests-abi.md "Isolation: what a
	// guest may rely on").
	//
	// Validate (and Load) refuse any other value.
	Isolation string
	// SHA256, when set, is the hex SHA-256 the module must have; a mismatch fails the load.
	SHA256 string
	// Config is the operator's key-value strings for the guest: what an Extism plugin reads
	// with config_get (hyper-mcp's env_vars). A client never sets them. Copied at Load.
	Config map[string]string
	// ToolPrefix is put before the name of each of the guest's tools and prompts: the
	// guest's tool "echo" is served (and called, and named in ToolLimits and ToolGrants) as
	// ToolPrefix+"echo", its prompt "greet" as ToolPrefix+"greet" (prompts/get and
	// completion/complete refs are mapped back), and the guest still sees "echo" and
	// "greet". It lets two guests that name a tool or prompt alike be served side by side
	// (hyper-mcp serves every plugin's tools as "plugin::tool"). Resource URIs and templates
	// are never rewritten: a URI is a reference the guest hands out (resource links, ui://
	// in tool _meta), so two guests cannot serve one URI.
	// A prefixed name must still match abi.NamePattern; a JavaScript or Extism guest's that
	// does not is served as names.MapName maps it (runtime/internal/engine/names.go).
	ToolPrefix string
	// HideTools are Go regular expressions (RE2 syntax): a tool whose declared name — before
	// ToolPrefix and any name mapping — one of them matches whole (anchored, as hyper-mcp's
	// skip_tools) is not served: neither listed nor callable, for every kind and after a
	// re-list too. "delete_.*" hides delete_gist; "gist" hides only gist. Validate refuses a
	// pattern that does not compile, naming it.
	HideTools []string
	// Args is the guest's command-line arguments: argv after the program name, as a server
	// run from a shell gets them (a JavaScript guest's process.argv.slice(2); the directories
	// an npm file server is given; a whole-server guest's argv after its name, argv[0] being the
	// guest's name). The operator's only; copied at Load.
	Args []string
	// KeepCode keeps the code a lazy load's background compile makes (Options.Lazy, a cached
	// manifest) resident instead of dropping it until the guest's first call, as Guest.Prewarm
	// does: set it for a guest that is to be prewarmed, whose compile may end before Prewarm
	// is called. The idle sweep drops the code later like any unused guest's.
	KeepCode bool
}

// Validate makes the checks Load makes of c before it reads the module's bytes, so a
// command line or configuration file can refuse a bad guest before loading anything: the
// limits (merged with policy.DefaultLimits, see policy.Limits.Validate), the isolation mode,
// the grants and each tool's grants (policy.Grants.Validate). The error names the first
// problem: `isolation "tenant": want shared, session or call`, `grants: net "a/b": want
// host[:port], not a URL`, `tool "fetch" grants: …`. A nil c is valid.
func (c *GuestConfig) Validate() error {
	return (*engine.GuestConfig)(c).Validate()
}

// Grants are the capabilities the operator gives a guest (or narrows for one tool); see
// policy.Grants. It is an alias, so runtime.Grants and policy.Grants are one type.
type Grants = policy.Grants

// Limits bound what one guest (or one tool of it) may use; see policy.Limits. It is an
// alias, so runtime.Limits and policy.Limits are one type.
type Limits = policy.Limits

// CallHooks receive what a running guest reports through its host imports. Any field may be
// nil. Hooks run synchronously on the calling goroutine while the guest waits, so they must
// return quickly; they may be called concurrently for different calls.
type CallHooks struct {
	// Log receives a log line (level RFC 5424, 0 debug … 7 emergency).
	Log func(level abi.Level, msg string)
	// Progress receives a progress report; total <= 0 means unknown.
	Progress func(progress, total float64, msg string)
	// Client serves the guest's requests to the MCP client of this call (request kinds
	// sampling, elicitation, roots; ABI.md §6.7) once the sandbox has checked the grant. Nil:
	// such requests answer UNAVAILABLE. Unlike Log and Progress, Client.Request may block
	// until the client answers (bounded by ctx, the call's deadline and cancellation).
	Client peer.Client
	// ResourceUpdated receives the URI of a resource the guest reported changed (request
	// kind resource.updated, ABI.md §6.8); the URI is one the guest serves.
	ResourceUpdated func(uri string)
	// Session identifies the caller's session: any comparable value (mcpserver uses the
	// *mcp.ServerSession), nil for none. A guest with GuestConfig.Isolation "session" never
	// hands an instance one session used to another; calls without a session count as one.
	Session any
	// RequestID is the MCP request's JSON-RPC id, as JSON, for kinds whose entry points
	// receive it (hyper-mcp v2 plugins' "context"); nil: none.
	RequestID json.RawMessage
	// Meta returns the MCP request's params' _meta as JSON (never HTML-escaped), for kinds
	// whose entry points receive it. It is called only by such a kind's entry, after the
	// call has its instance — never while the call waits for one — and may be called once
	// per entry (mcpserver memoizes it). Nil: none.
	Meta func() json.RawMessage
	// ListsChanged is called after the call when the guest reported its lists changed (an
	// Extism plugin's notify_tool_list_changed and the like) and reading them again found
	// them different: Guest.Manifest already returns the new lists. It runs once per call,
	// however many reports the call made.
	ListsChanged func()
}

// WithCallHooks returns a context that makes Guest.Call (and ReadResource, GetPrompt,
// Complete) deliver the guest's log and progress reports to hooks and run in hooks.Session.
func WithCallHooks(ctx context.Context, hooks *CallHooks) context.Context {
	return engine.WithCallHooks(ctx, (*engine.CallHooks)(hooks))
}

// CallError is the error of Guest.Call, Guest.ReadResource and Guest.GetPrompt: which guest
// and which tool, resource or prompt failed, and why. Err wraps one of the package's sentinel
// errors (ErrTimeLimit, ErrInvalidArguments, …), so callers branch with errors.Is on the
// CallError itself and read the reason alone from Err.Error().
type CallError struct {
	Guest string // the guest's name
	// Op is "tool" for a tool call, the export name (abi.ExportRead, abi.ExportPrompt) for a
	// resource read or a prompt, or "" when no tool of that name exists.
	Op   string
	Name string // the tool name, resource URI or prompt name
	Err  error
}

func (e *CallError) Error() string {
	if e.Op == "" {
		return fmt.Sprintf("guest %q: %v", e.Guest, e.Err)
	}
	return fmt.Sprintf("guest %q %s %q: %v", e.Guest, e.Op, e.Name, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// callErr returns the engine's *CallError, which a call returns as its error, as this
// package's (the two are one struct).
func callErr(out []byte, err error) ([]byte, error) {
	if ce, ok := err.(*engine.CallError); ok {
		return out, (*CallError)(ce)
	}
	return out, err
}
