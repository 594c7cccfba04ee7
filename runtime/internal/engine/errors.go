package engine

import "github.com/mcpwasm/mcpwasm/runtime/internal/fault"

// Errors a caller can branch on with errors.Is (declared in runtime/internal/fault, where
// every part of the runtime wraps them). Errors returned by Guest.Call wrap one of these
// with the guest and tool names: `guest "calc" tool "calc": time limit exceeded (500ms)`.
var (
	// ErrUnknownTool: the guest has no tool of that name.
	ErrUnknownTool = fault.ErrUnknownTool
	// ErrInvalidArguments: the arguments do not match the tool's input schema; the guest was
	// not entered. The message names the offending field.
	ErrInvalidArguments = fault.ErrInvalidArguments
	// ErrTimeLimit: the call ran past its time limit; the instance was discarded.
	ErrTimeLimit = fault.ErrTimeLimit
	// ErrMemoryLimit: the guest trapped after its linear memory reached the limit; the
	// instance was discarded.
	ErrMemoryLimit = fault.ErrMemoryLimit
	// ErrOutputLimit: the result exceeded the output limit; the instance was discarded.
	ErrOutputLimit = fault.ErrOutputLimit
	// ErrLoadLimit: Load refused the module because a load cap (Limits.ModuleBytes,
	// ManifestBytes, Tools, Nesting, CompileMemory, CompileTimeout) was exceeded.
	ErrLoadLimit = fault.ErrLoadLimit
	// ErrTrap: the guest trapped (unreachable, out-of-bounds access, stack overflow, …) or
	// exited; the instance was discarded.
	ErrTrap = fault.ErrTrap
	// ErrABI: the guest broke the ABI contract (bad region, malformed result or manifest).
	ErrABI = fault.ErrABI
	// ErrCancelled: the caller's context was cancelled while the guest ran.
	ErrCancelled = fault.ErrCancelled
	// ErrClosed: the guest or host was closed. A call Host.Shutdown ends says so: "closed:
	// the server is shutting down".
	ErrClosed = fault.ErrClosed
	// ErrStopped: the operator stopped all calls (Host.Stop); the call was refused or ended.
	ErrStopped = fault.ErrStopped
)
