package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// standardHeadersVersion is the first revision with the Mcp-Method and Mcp-Name request
// headers (SEP-2243).
const standardHeadersVersion = "2026-07-28"

// taskNameHeader applies SEP-2663 "Streamable HTTP: Routing Headers" to tasks/get,
// tasks/update and tasks/cancel of 2026-07-28: Mcp-Name must be present and equal
// params.taskId, else HTTP 400 with the JSON-RPC error -32020 (HeaderMismatch), as the SDK
// does for the names of tools/call, prompts/get and resources/read. Only requests whose
// Mcp-Method header names one of the three are read here; the SDK checks that header
// against the body.
func taskNameHeader(maxBody int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method := r.Header.Get("Mcp-Method")
		if r.Method != http.MethodPost || !strings.HasPrefix(method, "tasks/") ||
			!ProtocolAtLeast(r.Header.Get("MCP-Protocol-Version"), standardHeadersVersion) {
			next.ServeHTTP(w, r)
			return
		}
		body, over, err := readBody(r, maxBody)
		if err != nil {
			http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body)) // the SDK reads it again (and applies the limit)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TaskID *string `json:"taskId"`
			} `json:"params"`
		}
		if over || json.Unmarshal(body, &m) != nil || m.Params.TaskID == nil {
			next.ServeHTTP(w, r) // the SDK answers what it cannot read
			return
		}
		switch m.Method {
		case "tasks/get", "tasks/update", "tasks/cancel":
		default:
			next.ServeHTTP(w, r)
			return
		}
		name := strings.TrimSpace(r.Header.Get("Mcp-Name"))
		var msg string
		switch {
		case name == "":
			msg = fmt.Sprintf("missing required Mcp-Name header for method %q (it carries params.taskId)", m.Method)
		case name != *m.Params.TaskID:
			msg = fmt.Sprintf("header mismatch: Mcp-Name header value %q does not match params.taskId %q", name, *m.Params.TaskID)
		default:
			next.ServeHTTP(w, r)
			return
		}
		if string(m.ID) == "null" {
			m.ID = nil
		}
		writeJSONRPCError(w, http.StatusBadRequest, m.ID, mcp.CodeHeaderMismatch, msg)
	})
}
