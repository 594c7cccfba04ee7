package runtime

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/engine"
)

// Guest is one loaded guest module: its manifest, compiled code, and instance pool.
// Its methods are safe for concurrent use.
type Guest struct {
	g *engine.Guest
}

// guestOf wraps the engine's guest a load returned.
func guestOf(g *engine.Guest, err error) (*Guest, error) {
	if err != nil {
		return nil, err
	}
	return &Guest{g: g}, nil
}

// Name returns the guest's name (from config, else from its manifest).
func (g *Guest) Name() string {
	return g.g.Name()
}

// Kind returns the name of the guest's kind — the ABI it speaks, detected from the module's
// imports and exports at load: "mcpwasm" (abi/ABI.md).
func (g *Guest) Kind() string {
	return g.g.Kind()
}

// KindVersion returns the protocol version of the guest's kind it speaks, for a kind that has
// several: "v1" or "v2" for an Extism plugin (hyper-mcp's plugin protocols); "" otherwise.
func (g *Guest) KindVersion() string {
	return g.g.KindVersion()
}

// Source returns where the module came from, as given in GuestConfig.Source.
func (g *Guest) Source() string {
	return g.g.Source()
}

// SHA256 returns the lowercase hex SHA-256 of the guest's module.
func (g *Guest) SHA256() string {
	return g.g.SHA256()
}

// Manifest returns the manifest the guest described at load. The caller must not modify it.
func (g *Guest) Manifest() *abi.Manifest {
	return g.g.Manifest()
}

// Tool returns the declaration of the named tool, and whether it exists.
func (g *Guest) Tool(name string) (abi.Tool, bool) {
	return g.g.Tool(name)
}

// DeclaredName returns the name the guest declares tool (a served name) under: tool without
// its GuestConfig.ToolPrefix or name mapping; tool itself for an unknown name.
func (g *Guest) DeclaredName(tool string) string {
	return g.g.DeclaredName(tool)
}

// LongestCall is the longest a call of g may take: the largest time limit of its tools and
// of the guest (prompts, resource reads, completions). A call's limit covers its waits (the
// guest's code, a free instance, its start), so after this long no call that was running is.
func (g *Guest) LongestCall() time.Duration {
	return g.g.LongestCall()
}

// Limits returns the limits a call of tool runs under (the guest's, with the tool's own
// over them); for a name that is no tool (a prompt, a resource read), the guest's.
func (g *Guest) Limits(tool string) Limits {
	return g.g.Limits(tool)
}

// ToolGrants returns what the operator granted tool (after per-tool narrowing) and what it
// effectively has (granted ∩ requested), as copies. ok is false for an unknown tool.
func (g *Guest) ToolGrants(tool string) (granted, effective Grants, ok bool) {
	return g.g.ToolGrants(tool)
}

// Ungranted lists the capabilities some tool of g requested but does not have, grouped by the
// tools that lack them, each group once, e.g. `net "*" (tools fetch, head)`, `clock (tool now)`,
// or, when every tool of several lacks them, `net "*", clock, random (all 19 tools)` — a plugin
// whose tools all request the same grants would otherwise name every tool once per grant.
// Serving logs them, so an operator sees what a guest expected and was not given.
func (g *Guest) Ungranted() []string {
	return g.g.Ungranted()
}

// ValidateOutput checks a tool's structured result (decoded JSON: map[string]any, []any,
// float64, string, bool or nil) against the tool's outputSchema. A tool without an output
// schema accepts anything. MCP 2025-06-18 "Tools › Output Schema": servers must return
// structured results that conform to it.
func (g *Guest) ValidateOutput(tool string, structured any) error {
	return g.g.ValidateOutput(tool, structured)
}

// ValidateOutputJSON is ValidateOutput on a structured result still in JSON, decoded with
// exact numbers (decodeExact) so that a valid result is never refused for a number float64
// cannot hold. Invalid JSON is an error wrapping ErrABI.
func (g *Guest) ValidateOutputJSON(tool string, structured json.RawMessage) error {
	return g.g.ValidateOutputJSON(tool, structured)
}

// HasOutputSchema reports whether tool declares an outputSchema.
func (g *Guest) HasOutputSchema(tool string) bool {
	return g.g.HasOutputSchema(tool)
}

// Completes reports whether the guest completes prompt and resource-template arguments
// (manifest "completions", export mcpwasm_complete; ABI.md §2.5).
func (g *Guest) Completes() bool {
	return g.g.Completes()
}

// ServesResource reports whether uri is one of the guest's resources or matches one of its
// resource templates (RFC 6570).
func (g *Guest) ServesResource(uri string) bool {
	return g.g.ServesResource(uri)
}

// Ready waits until the guest's code is compiled and returns nil, or returns why it could not
// be: the error of a background compile (Options.Lazy), ErrClosed, or ctx's error. A guest
// loaded eagerly is always ready. (With Lazy and an on-disk cache, the code of a guest not
// called yet is compiled into the cache and then dropped until its first call.)
func (g *Guest) Ready(ctx context.Context) error {
	return g.g.Ready(ctx)
}

// Prewarm readies the guest's first call ahead of it (serve's --prewarm over stdio): it waits
// for the code (a lazy load's background compile, keeping the code resident instead of
// dropping it), then, if the guest has no instance yet, makes one as a first call would — the
// same pool, sandbox profile and start grants, its start run now — and leaves it idle for the
// first call to take; the idle sweep closes it like any idle instance. It returns the
// compile's or the start's error (the first call then meets it again), ErrClosed, or ctx's
// error.
func (g *Guest) Prewarm(ctx context.Context) error {
	return g.g.Prewarm(ctx)
}

// Call runs tool with args (a JSON object; nil or empty means {}) in a pooled instance and
// returns the guest's result JSON (an MCP CallToolResult, ABI.md §5), owned by the caller.
//
// Errors are *CallError. Before the guest is entered, args are validated against the tool's
// input schema (ErrInvalidArguments, naming the field). A trap, the time limit, the memory
// limit, an oversized or malformed result each discard the instance and return an error
// wrapping ErrTrap, ErrTimeLimit, ErrMemoryLimit, ErrOutputLimit or ErrABI. If ctx is
// cancelled the guest is stopped and the error wraps ErrCancelled and ctx.Err().
func (g *Guest) Call(ctx context.Context, toolName string, args []byte) ([]byte, error) {
	return callErr(g.g.Call(ctx, toolName, args))
}

// ReadResource reads uri through the guest's mcpwasm_read (ABI.md §2.4) and returns its
// JSON answer: an MCP ReadResourceResult, or an abi.ErrorBody the caller maps to a JSON-RPC
// error. It runs with the guest's grants (not narrowed per tool), under the guest's limits.
// Errors are *CallError.
func (g *Guest) ReadResource(ctx context.Context, uri string) ([]byte, error) {
	return callErr(g.g.ReadResource(ctx, uri))
}

// GetPrompt renders prompt name with args (a JSON object of strings) through the guest's
// mcpwasm_prompt (ABI.md §2.4): an MCP GetPromptResult, or an abi.ErrorBody. It runs with
// the guest's grants, as ReadResource. Errors are *CallError.
func (g *Guest) GetPrompt(ctx context.Context, name string, args []byte) ([]byte, error) {
	return callErr(g.g.GetPrompt(ctx, name, args))
}

// Complete asks the guest's mcpwasm_complete for completions of one argument. req is an
// abi.CompleteRequest as JSON (at most 64 KiB, else ErrInvalidArguments);
// the answer is an abi.CompleteResult or an abi.ErrorBody, as JSON. It runs with the
// guest's grants (as ReadResource), under the guest's limits. Errors are *CallError.
func (g *Guest) Complete(ctx context.Context, req []byte) ([]byte, error) {
	return callErr(g.g.Complete(ctx, req))
}

// ReportCall reports one finished tool call to the host's Observer (a no-op without one) and
// counts it in Stats, and returns the outcome label it reported. Bindings call it once per
// tools/call with the error of Call (nil for a result), whether the result had isError set
// (or broke its outputSchema), and the call's duration. The label is OutcomeOf(err) for an
// error, "tool_error" for a result with isError, else "ok".
//
// A tool the guest does not declare is reported as "other", so callers cannot grow the label
// set of a metric.
func (g *Guest) ReportCall(tool string, err error, isError bool, d time.Duration) (outcome string) {
	return g.g.ReportCall(tool, err, isError, d)
}

// ReplacedBy makes next answer every call that reaches g from now on (Call, ReadResource,
// GetPrompt, Complete): a reload calls it when next serves in g's place, before it drains and
// closes g. A call handed to g's handler just before the swap, which had not reached g yet,
// is so answered by next instead of failing on g's close; a call that reached g before is
// counted (Drain) and answered by g.
func (g *Guest) ReplacedBy(next *Guest) {
	if next != nil {
		g.g.ReplacedBy(next.g)
	}
}

// Drain waits until no call of g is running, or ctx is done. Reloading uses it to let calls
// on the old version finish before closing it. A call counts from the moment it reaches g
// (Call, ReadResource, GetPrompt, Complete) — also while it validates, waits for the guest's
// code or a free instance, or starts a new one — to its answer; one that reaches g after
// ReplacedBy is its successor's.
func (g *Guest) Drain(ctx context.Context) error {
	return g.g.Drain(ctx)
}

// Close stops the guest: idle instances are closed at once, running calls are stopped, and
// later calls fail with ErrClosed. Close is idempotent.
func (g *Guest) Close(ctx context.Context) error {
	return g.g.Close(ctx)
}
