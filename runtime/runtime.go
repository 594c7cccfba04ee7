// Package runtime is the mcpwasm host: it loads WebAssembly guest modules that implement the
// ABI in ../abi/ABI.md, compiles each once (with an on-disk compilation cache), keeps a bounded
// pool of instances per guest, enforces limits, and calls tools. It knows nothing of MCP; see
// package mcpserver for the MCP binding.
//
// A Host is safe for concurrent use. An instance never runs two calls at once.
//
// This package only exposes: its types are handles over runtime/internal/engine, which holds
// the machinery (load, pools, reset, snapshots, lazy start, whole-server guests).
package runtime

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/engine"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// Options configure a Host. The zero value (or nil) is valid.
type Options struct {
	// CacheDir is the directory of wazero's compilation cache. Empty means
	// $XDG_CACHE_HOME/mcpwasm/compile (os.UserCacheDir); it is created with mode 0700. A
	// directory others could write (it or a directory above it) is refused, and compiled code
	// and manifests read back from it must carry an HMAC under the directory's key
	// (runtime/internal/cacheauth): what fails it is discarded and rebuilt.
	// If no user cache directory exists, compiled code is cached in memory only.
	CacheDir string
	// NoDiskCache keeps compiled code in memory only.
	NoDiskCache bool
	// Logger receives load, call and guest stdout/stderr logs. Nil discards them.
	Logger *slog.Logger
	// Net configures how net grants reach the network (resolver, dialer, caps).
	Net peer.Net
	// Upstreams serves the mcp.list and mcp.call request kinds (ABI.md §6.5): the upstream
	// MCP servers that mcp grants name. Nil means none: such requests answer NOT_FOUND.
	// The Host does not close it.
	Upstreams peer.Upstreams
	// Lazy lets Load serve a module whose manifest is cached (from an earlier load of the same
	// bytes by the same host version; see runtime/internal/manifests) before compiling it: the Guest is
	// built and validated from the cached manifest at once, and the module is compiled in the
	// background. A call waits for its own guest's code within its context and time limit; if
	// the background compile fails, the guest's calls fail with that error and it is logged.
	// Load keeps wasm (the caller must not modify it afterwards) and, with an on-disk cache,
	// drops a guest's compiled code after IdleTimeout without calls, compiling it again on the
	// next call. Without Lazy, Load compiles and describes every guest before it returns.
	Lazy bool
	// IdleTimeout closes instances idle longer than it (checked every IdleTimeout/2). Zero
	// means 60 s; negative means never.
	IdleTimeout time.Duration
	// Observer receives tool-call, capability-request and cache events (Observer). Nil
	// means none, at no cost on the call path.
	Observer Observer
}

// Host owns a wazero runtime shared by every guest it loads.
type Host struct {
	e *engine.Host
}

// NewHost creates a Host. Close it to release compiled code and instances.
func NewHost(ctx context.Context, opts *Options) (*Host, error) {
	o := engineOptions(opts)
	e, err := engine.NewHost(ctx, &o)
	if err != nil {
		return nil, err
	}
	return &Host{e: e}, nil
}

// engineOptions copies opts to the engine's Options, field by field (TestOptionsParity).
func engineOptions(opts *Options) engine.Options {
	if opts == nil {
		return engine.Options{}
	}
	return engine.Options{CacheDir: opts.CacheDir, NoDiskCache: opts.NoDiskCache, Logger: opts.Logger,
		Net: opts.Net, Upstreams: opts.Upstreams, Lazy: opts.Lazy, IdleTimeout: opts.IdleTimeout, Observer: opts.Observer}
}

// Stop is the operator's kill switch: it stops every running call (each returns an error
// wrapping ErrStopped and its instance is discarded) and every whole-server guest's instance,
// and refuses new calls (and instances) with ErrStopped until Resume. Loaded guests stay loaded. Stop is idempotent.
func (h *Host) Stop() {
	h.e.Stop()
}

// Resume lets calls run again after Stop.
func (h *Host) Resume() {
	h.e.Resume()
}

// Stopped reports whether the host is stopped (see Stop).
func (h *Host) Stopped() bool {
	return h.e.Stopped()
}

// Close closes every guest, then the runtime and the compilation cache. Calls still running
// are stopped (they return ErrClosed or ErrCancelled). Close is idempotent.
func (h *Host) Close(ctx context.Context) error {
	return h.e.Close(ctx)
}

// Shutdown is Close for a server that stops: the calls it ends fail with an ErrClosed that
// names the shutdown ("closed: the server is shutting down") rather than a bare one.
func (h *Host) Shutdown(ctx context.Context) error {
	return h.e.Shutdown(ctx)
}

// Load compiles wasm (using the compilation cache), checks it against the ABI, reads and
// validates its manifest, and returns a Guest ready to call. Errors name the guest source and
// the first problem found: a missing export, an import the host lacks, a bad tool name or
// schema, grants wider than allowed. A panic inside wazero is returned as an error. Tool
// names need only be unique within the guest: across guests, the server they are served on
// decides (mcpserver.AddGuest).
func (h *Host) Load(ctx context.Context, wasm []byte, cfg *GuestConfig) (g *Guest, err error) {
	return guestOf(h.e.Load(ctx, wasm, (*engine.GuestConfig)(cfg)))
}

// LoadFile loads the module in the file at path, as Load loads its bytes.
//
// With Options.Lazy, a file the manifest cache already knows by identity — the same path,
// device, inode, size, modification and change times as when it was last read — is not read
// at all before the guest is served: its tools come from the cached manifest, and the
// background compile reads the file and runs it only if its SHA-256 is the one the cached
// manifest was described from (else the guest's calls fail, wrapping ErrABI). With
// cfg.SHA256 set, the cached entry is used only if it was described from a module with that
// digest, so the tools listed are the pinned module's; the bytes are checked against it before
// anything runs. Otherwise — no identity on this platform, no entry, the limits or the pin do
// not match, or Lazy is off — the file is read whole and loaded by Load, and its identity is
// recorded for the next start. Errors are Load's, or the error reading path.
func (h *Host) LoadFile(ctx context.Context, path string, cfg *GuestConfig) (*Guest, error) {
	return guestOf(h.e.LoadFile(ctx, path, (*engine.GuestConfig)(cfg)))
}

// GuestStats is a snapshot of one loaded guest, for gauges and status.
type GuestStats struct {
	Name    string
	Kind    string   // Guest.Kind: the guest's ABI ("mcpwasm")
	Version string   // from the manifest
	Source  string   // GuestConfig.Source
	SHA256  string   // lowercase hex digest of the module
	Tools   []string // tool names, sorted
	// Busy and Idle count its instances running a call and waiting for one.
	Busy, Idle int
	// MemoryBytes is the linear memory of its instances, in bytes: idle ones as they are,
	// busy ones as they were when their call started (a running guest's memory is not read).
	MemoryBytes uint64
	// Calls and Errors count its tool calls reported with ReportCall, and those whose outcome
	// was not "ok".
	Calls, Errors uint64
	// Resets counts the instances reset in place to the state right after the guest's start
	// and reused for another session (isolation session) or call (isolation call), instead
	// of being discarded for a fresh one.
	Resets uint64
}

// Stats returns a snapshot of every loaded guest, sorted by name (then source). It takes each
// pool's lock briefly and never waits for a call.
func (h *Host) Stats() []GuestStats {
	es := h.e.Stats()
	out := make([]GuestStats, len(es))
	for i, s := range es {
		out[i] = GuestStats(s)
	}
	return out
}

// OutcomeOf names how a tool call ended, for an embedder's metrics, traces and status: a
// small fixed set of labels, safe as a metric label. It classifies an error of Guest.Call by
// the sentinel it wraps (errors.Is), never by its text:
//
//	"ok"                 nil
//	"invalid_arguments"  ErrInvalidArguments (the guest was not entered)
//	"unknown_tool"       ErrUnknownTool
//	"timeout"            ErrTimeLimit
//	"memory_limit"       ErrMemoryLimit
//	"output_limit"       ErrOutputLimit
//	"trap"               ErrTrap
//	"abi_error"          ErrABI
//	"cancelled"          ErrCancelled
//	"stopped"            ErrStopped (the kill switch)
//	"closed"             ErrClosed
//	"error"              anything else (a guest whose code failed to load, …)
//
// Stopped and closed are tried first: a stop or close ends the call through its context
// too. One more label comes from the result, not an error: "tool_error", a result with
// isError (MCP "Tools › Error Handling") or one that broke its outputSchema; ReportCall
// decides it.
func OutcomeOf(err error) string {
	return engine.OutcomeOf(err)
}

// Observer receives what a Host does, for metrics and traces (package telemetry implements
// it with Prometheus and OpenTelemetry; the runtime imports neither). Set it in
// Options.Observer. Its methods are called synchronously from many goroutines at once, on the
// call path: they must be safe for concurrent use and return quickly.
type Observer interface {
	// CallDone reports one finished tool call of guest: its outcome (a label of OutcomeOf, or
	// "tool_error") and its duration (from the request reaching the binding to its answer).
	// The binding that finishes the call reports it through Guest.ReportCall, since only it
	// knows whether the result was a tool error.
	CallDone(guest, tool, outcome string, d time.Duration)
	// RequestStart reports that tool of guest made a capability request of kind (abi.KindHTTP,
	// abi.KindExec, abi.KindMCPCall, …; any string the guest sent, so bound it before using it
	// as a label). ctx is the call's context (it carries the caller's trace). The returned
	// func, if not nil, is called once when the request is answered, with the status the
	// guest gets: abi.StatusDenied when no grant allows it.
	RequestStart(ctx context.Context, guest, tool, kind string) func(abi.Status)
	// CacheLookup reports one look-up of a module in the manifest cache at Load, which lets
	// a lazy load skip compiling and describing (Options.Lazy): hit or miss. Loads without
	// Options.Lazy do not look.
	CacheLookup(hit bool)
}
