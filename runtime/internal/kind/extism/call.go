package extism

import (
	"context"
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// Call is the plugin's view of one entry, what its host functions may use: they reach the
// outside only through it. The kind builds it from the seam's kind.Call (started.view);
// Plugin's tests fill it directly to reach what the seam fixes (a log level below info).
type Call struct {
	Guest, Tool string // Tool is "" outside tools/call
	// Request serves one capability request of the entry (ABI.md §6.1) under the operator's
	// grants: http_request as kind http, the client callbacks as sampling, elicitation and
	// roots (the seam's Call.Request: the tool's sandbox with the call's MCP client). Nil
	// outside a tool call or prompt: those host functions are refused.
	Request func(ctx context.Context, kind string, body []byte) (abi.Status, []byte)
	// Config is the operator's per-guest map config_get reads (never the client's). Read only.
	Config map[string]string
	// OutputBytes caps the output output_set may name; 0 means 1 MiB.
	OutputBytes int
	// LogLevel is the lowest Extism level delivered (0 trace … 4 error); get_log_level
	// answers it and lower log_* calls are dropped. The zero value is trace.
	LogLevel int32
	// RequestID and Meta are the MCP request's id and _meta, passed to hyper-mcp v2 entry
	// points as their "context". Nil: 0 and {}.
	RequestID, Meta json.RawMessage

	// Log delivers a log line (log_*, notify_logging_message) once admitted; nil drops it.
	// Admission against the call's report budget is the caller's (the seam's Report).
	Log func(level abi.Level, msg string)
	// Progress delivers notify_progress for this call's own progress token; nil drops it.
	Progress func(progress, total float64, msg string)
	// ResourceUpdated delivers notify_resource_updated; nil drops it.
	ResourceUpdated func(uri string)
	// ListChanged delivers notify_{tool,prompt,resource}_list_changed with "tools",
	// "prompts" or "resources"; nil drops it.
	ListChanged func(list string)
	// Note receives a line for the operator's log about something the plugin asked for and
	// did not get (a refused keyring secret, an unsupported notification); nil drops it.
	Note func(msg string)
}

func (c *Call) outputBytes() uint64 {
	if c.OutputBytes <= 0 {
		return 1 << 20
	}
	return uint64(c.OutputBytes)
}

func (c *Call) log(level abi.Level, msg string) {
	if c.Log != nil {
		c.Log(level, msg)
	}
}

func (c *Call) note(msg string) {
	if c.Note != nil {
		c.Note(msg)
	}
}

// request serves one capability request through Request.
func (c *Call) request(ctx context.Context, kind string, body []byte) (abi.Status, []byte) {
	if c.Request == nil {
		return abi.StatusUnavailable, sandbox.ErrorBody(kind + ": request outside a tool call")
	}
	return c.Request(ctx, kind, body)
}

// SandboxRequest is a Call.Request serving kinds through sb, with client as the call's MCP
// client (nil: none) — what the seam's Host.Request does for a tool call.
func SandboxRequest(sb *sandbox.Tool, client peer.Client) func(context.Context, string, []byte) (abi.Status, []byte) {
	return func(ctx context.Context, kind string, body []byte) (abi.Status, []byte) {
		if client != nil {
			ctx = sandbox.WithClient(ctx, client)
		}
		return sb.Request(ctx, kind, body)
	}
}

// Instance is one plugin instance's host-side state: its kernel memory, its vars and the
// last HTTP response's status and headers. The running Call is installed by Run for the
// length of one entry; host functions reach the Instance through the seam's Call of the
// module that called them (kind.CallOf → Started → its Plugin), never through a context.
type Instance struct {
	Kernel Kernel
	Vars   Vars

	call        *Call
	httpStatus  int32
	httpHeaders map[string]string
}

// instanceOf returns the plugin instance of c, the Call kind.CallOf found: the Instance of
// its Started when that is this kind's, else nil (no call, an instance not started yet, a
// module of another kind).
func instanceOf(c *kind.Call) *Instance {
	if c == nil {
		return nil
	}
	s, ok := c.Started.(*started)
	if !ok || s == nil || s.p == nil {
		return nil
	}
	return &s.p.inst
}
