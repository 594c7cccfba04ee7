// Package fault declares the call-error sentinels every part of the runtime wraps: the pool,
// the limits and each guest kind. Package runtime re-exports them, so a caller branches with
// errors.Is(err, runtime.ErrTrap) whichever kind of guest failed. It is a leaf: it imports
// only the standard library.
package fault

import (
	"errors"
	"fmt"
)

// The sentinels. Their doc comments are those of runtime's re-exports.
var (
	// ErrUnknownTool: the guest has no tool of that name.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrInvalidArguments: the arguments do not match the tool's input schema; the guest was
	// not entered. The message names the offending field.
	ErrInvalidArguments = errors.New("invalid arguments")
	// ErrTimeLimit: the call ran past its time limit; the instance was discarded.
	ErrTimeLimit = errors.New("time limit exceeded")
	// ErrMemoryLimit: the guest trapped after its linear memory reached the limit; the
	// instance was discarded.
	ErrMemoryLimit = errors.New("memory limit reached")
	// ErrOutputLimit: the result exceeded the output limit; the instance was discarded.
	ErrOutputLimit = errors.New("output limit exceeded")
	// ErrTrap: the guest trapped (unreachable, out-of-bounds access, stack overflow, …) or
	// exited; the instance was discarded.
	ErrTrap = errors.New("guest trapped")
	// ErrABI: the guest broke the ABI contract (bad region, malformed result or manifest).
	ErrABI = errors.New("ABI violation")
	// ErrCancelled: the caller's context was cancelled while the guest ran.
	ErrCancelled = errors.New("call cancelled")
	// ErrClosed: the guest or host was closed.
	ErrClosed = errors.New("closed")
	// ErrShuttingDown: the call was ended because the server shuts down; it is an ErrClosed.
	ErrShuttingDown = fmt.Errorf("%w: the server is shutting down", ErrClosed)
	// ErrStopped: the operator stopped all calls (Host.Stop); the call was refused or ended.
	ErrStopped = errors.New("calls are stopped by the operator")
)
