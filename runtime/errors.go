package runtime

import "github.com/mcpwasm/mcpwasm/runtime/internal/fault"

// Errors a caller can branch on with errors.Is. Errors returned by Guest.Call wrap one of these
// with the guest and tool names: `guest "calc" tool "calc": time limit exceeded (500ms)`.
// They are declared in runtime/internal/fault, where every guest kind wraps them.
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
	// ErrTrap: the guest trapped (unreachable, out-of-bounds access, stack overflow, …) or
	// exited; the instance was discarded.
	ErrTrap = fault.ErrTrap
	// ErrABI: the guest broke the ABI contract (bad region, malformed result or manifest).
	ErrABI = fault.ErrABI
	// ErrCancelled: the caller's context was cancelled while the guest ran.
	ErrCancelled = fault.ErrCancelled
	// ErrClosed: the guest or host was closed.
	ErrClosed = fault.ErrClosed
	// ErrShuttingDown: the call was ended because the server shuts down (Host.Shutdown); it
	// is an ErrClosed.
	ErrShuttingDown = fault.ErrShuttingDown
	// ErrStopped: the operator stopped all calls (Host.Stop); the call was refused or ended.
	ErrStopped = fault.ErrStopped
)
