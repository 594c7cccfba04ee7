package engine

import "github.com/mcpwasm/mcpwasm/runtime/internal/fault"

// The errors a caller branches on with errors.Is, as the engine names them: the same values
// as runtime's (documented there, runtime/errors.go), all declared in runtime/internal/fault.
var (
	ErrUnknownTool      = fault.ErrUnknownTool
	ErrInvalidArguments = fault.ErrInvalidArguments
	ErrTimeLimit        = fault.ErrTimeLimit
	ErrMemoryLimit      = fault.ErrMemoryLimit
	ErrOutputLimit      = fault.ErrOutputLimit
	ErrLoadLimit        = fault.ErrLoadLimit
	ErrTrap             = fault.ErrTrap
	ErrABI              = fault.ErrABI
	ErrCancelled        = fault.ErrCancelled
	ErrClosed           = fault.ErrClosed
	ErrStopped          = fault.ErrStopped
)
