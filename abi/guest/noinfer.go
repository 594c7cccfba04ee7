//go:build wasip1 && !mcpwasm_infer

package guest

import "encoding/json"

// inferLinked reports whether this build infers schemas at run time (see AddTool). A plain
// wasip1 build does not: it would link github.com/google/jsonschema-go (with regexp,
// math/big, log/slog and time) into every guest.
const inferLinked = false

func mustSchema[T any]() json.RawMessage { panic("unreachable") }
