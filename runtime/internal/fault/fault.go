// Package fault declares how a guest call can fail: the sentinel errors every part of the
// runtime wraps (package runtime re-exports them for errors.Is), and the outcome labels a
// finished call is counted under (Outcome). It is a leaf: it imports only the standard
// library.
package fault

import (
	"errors"
	"fmt"
)

// Errors a caller can branch on with errors.Is; runtime re-exports all but ErrShuttingDown
// under the same names, with their documentation.
var (
	ErrUnknownTool      = errors.New("unknown tool")
	ErrInvalidArguments = errors.New("invalid arguments")
	ErrTimeLimit        = errors.New("time limit exceeded")
	ErrMemoryLimit      = errors.New("memory limit reached")
	ErrOutputLimit      = errors.New("output limit exceeded")
	ErrLoadLimit        = errors.New("load limit exceeded")
	ErrTrap             = errors.New("guest trapped")
	ErrABI              = errors.New("ABI violation")
	ErrCancelled        = errors.New("call cancelled")
	ErrClosed           = errors.New("closed")
	ErrStopped          = errors.New("calls are stopped by the operator")
	// ErrShuttingDown: the call was ended because the server shuts down (runtime's
	// Host.Shutdown); it is an ErrClosed, and only that is public.
	ErrShuttingDown = fmt.Errorf("%w: the server is shutting down", ErrClosed)
)

// The outcome labels of a tool call: a small fixed set, safe as a metric label. Outcome maps
// an error to one of them; ToolError is decided by whoever reads the result.
const (
	OK               = "ok"                // a result without isError
	ToolError        = "tool_error"        // a result with isError (MCP "Tools › Error Handling"), or one that broke its outputSchema
	InvalidArguments = "invalid_arguments" // ErrInvalidArguments: the guest was not entered
	UnknownTool      = "unknown_tool"      // ErrUnknownTool
	Timeout          = "timeout"           // ErrTimeLimit
	MemoryLimit      = "memory_limit"      // ErrMemoryLimit
	OutputLimit      = "output_limit"      // ErrOutputLimit
	Trap             = "trap"              // ErrTrap
	ABI              = "abi_error"         // ErrABI
	Cancelled        = "cancelled"         // ErrCancelled
	Stopped          = "stopped"           // ErrStopped (the kill switch)
	Closed           = "closed"            // ErrClosed
	Error            = "error"             // anything else (a guest whose code failed to load, …)
)

// labels maps each sentinel to its label, in the order Outcome tries them: stopped and
// closed come first, since a stop or close ends the call through its context too.
var labels = [...]struct {
	err   error
	label string
}{
	{ErrStopped, Stopped}, {ErrClosed, Closed}, {ErrInvalidArguments, InvalidArguments},
	{ErrUnknownTool, UnknownTool}, {ErrTimeLimit, Timeout}, {ErrMemoryLimit, MemoryLimit},
	{ErrOutputLimit, OutputLimit}, {ErrTrap, Trap}, {ErrABI, ABI}, {ErrCancelled, Cancelled},
}

// Outcome classifies an error of a call by the sentinel it wraps (errors.Is), never by its
// text: nil is OK, an unrecognised error Error.
func Outcome(err error) string {
	if err == nil {
		return OK
	}
	for _, l := range labels {
		if errors.Is(err, l.err) {
			return l.label
		}
	}
	return Error
}

// Interrupted reports whether err ended a call from outside the guest: its time limit, its
// cancellation, the operator's stop or the host's close. Such an error reads the same
// wherever in the call it landed, so a kind does not prefix it with the export it was in.
func Interrupted(err error) bool {
	return errors.Is(err, ErrTimeLimit) || errors.Is(err, ErrCancelled) || errors.Is(err, ErrStopped) || errors.Is(err, ErrClosed)
}
