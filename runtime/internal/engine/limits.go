package engine

import (
	"github.com/mcpwasm/mcpwasm/runtime/internal/memory"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// Limits bound what one guest (or one tool of it) may use; see policy.Limits. It is an
// alias, so runtime.Limits and policy.Limits are one type.
type Limits = policy.Limits

// stdioCaptureBytes caps what one call's guest stdout or stderr keeps for the log.
const stdioCaptureBytes = 64 << 10

// pageSize is a WebAssembly page (memory.PageSize).
const pageSize = memory.PageSize
