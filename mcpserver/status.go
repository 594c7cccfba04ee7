package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The names of the status resource and tools (AddStatus).
const (
	StatusURI        = "mcpwasm://status"
	StatusToolName   = "mcpwasm_status"
	StopToolName     = "mcpwasm_stop"
	statusOwnerLabel = "the status tools"
)

// Status is the JSON of the status resource and the mcpwasm_status tool.
type Status struct {
	// Stopped is true while the operator's kill switch refuses calls (runtime.Host.Stop).
	Stopped bool          `json:"stopped"`
	Guests  []GuestStatus `json:"guests"`
}

// GuestStatus is one loaded guest in Status. Its module path is left out: the client need not
// learn the server's file layout, and SHA256 identifies the module.
type GuestStatus struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	SHA256  string   `json:"sha256"` // lowercase hex digest of the module
	Tools   []string `json:"tools"`
	Calls   uint64   `json:"calls"`  // tool calls answered since it was loaded
	Errors  uint64   `json:"errors"` // those whose outcome was not ok (runtime.OutcomeOf)
	// Instances counts its instances running a call (busy) and waiting for one (idle).
	Instances struct {
		Busy int `json:"busy"`
		Idle int `json:"idle"`
	} `json:"instances"`
	MemoryBytes uint64 `json:"memory_bytes"` // linear memory of its instances, in bytes
}

// StatusOf returns h's status.
func StatusOf(h *runtime.Host) *Status {
	st := &Status{Stopped: h.Stopped(), Guests: []GuestStatus{}}
	for _, s := range h.Stats() {
		g := GuestStatus{Name: s.Name, Version: s.Version, SHA256: s.SHA256, Tools: s.Tools, Calls: s.Calls,
			Errors: s.Errors, MemoryBytes: s.MemoryBytes}
		if g.Tools == nil {
			g.Tools = []string{}
		}
		g.Instances.Busy, g.Instances.Idle = s.Busy, s.Idle
		st.Guests = append(st.Guests, g)
	}
	return st
}

// AddStatus serves h's status on s, for operators who opt in (serve --status): the resource
// mcpwasm://status (application/json, a Status), the read-only tool mcpwasm_status returning
// the same JSON as structured content, and the tool mcpwasm_stop, which engages the kill
// switch (runtime.Host.Stop: running calls end, new ones are refused). Resuming is left to the
// operator (SIGUSR2, or removing the --stop-file). The tool names are claimed in names (see
// NameSet), so a guest or upstream cannot shadow them and they cannot shadow a guest's: a name
// already held is an error and nothing is added.
func AddStatus(s *mcp.Server, h *runtime.Host, names *NameSet) error {
	if names == nil {
		names = &NameSet{}
	}
	if err := names.ClaimStatus(); err != nil {
		return err
	}
	s.AddResource(&mcp.Resource{URI: StatusURI, Name: "mcpwasm-status", Title: "mcpwasm status",
		Description: "Loaded guests (version, sha256, tools), their call and error counts, instances, memory, and whether calls are stopped.",
		MIMEType:    "application/json"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			b, err := json.Marshal(StatusOf(h))
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: StatusURI, MIMEType: "application/json", Text: string(b)}}}, nil
		})
	yes, no := true, false
	s.AddTool(&mcp.Tool{Name: StatusToolName, Title: "mcpwasm status",
		Description: "Returns the host's status: loaded guests (version, sha256, tools), call and error counts, instances, memory, and whether calls are stopped.",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(StatusOf(h))
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
		})
	s.AddTool(&mcp.Tool{Name: StopToolName, Title: "Stop all tool calls",
		Description: "Kill switch: stops every running tool call and refuses new ones until the operator resumes the server (SIGUSR2, or removing its stop file). It cannot be undone from MCP.",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			h.Stop()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
				Text: fmt.Sprintf("calls stopped: running calls were ended and new ones are refused until the operator resumes the server (see %s)", StatusURI)}}}, nil
		})
	return nil
}
