package extism

import (
	"errors"

	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
)

// The call errors this kind returns, wrapped with a message: fault's sentinels (which
// runtime re-exports) and two of its own.
var (
	// ErrMemoryLimit: the plugin's kernel memory or vars reached their bound.
	ErrMemoryLimit = fault.ErrMemoryLimit
	// ErrOutputLimit: the plugin's output_set named more bytes than the output limit.
	ErrOutputLimit = fault.ErrOutputLimit
	// ErrABI: the plugin broke the Extism ABI or hyper-mcp's protocol (an invalid handle, a
	// result that is not the JSON the entry point must return, a refused import).
	ErrABI = fault.ErrABI
	// ErrPlugin: the plugin reported a failure (a non-zero return code, error_set).
	ErrPlugin = errors.New("plugin error")
	// ErrRefused: a host function was refused by the sandbox (a missing grant); the message
	// names the grant. The call ends, as a host function error ends it in the reference host.
	ErrRefused = errors.New("refused")
)

// hostError is what a host function panics with to end the call (wazero turns the panic
// into the call's error, wrapping it).
type hostError struct {
	fn  string
	err error
}

func (e *hostError) Error() string { return "extism:host " + e.fn + ": " + e.err.Error() }
func (e *hostError) Unwrap() error { return e.err }
