package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// anyJSONVersion is the first revision in which a tool's outputSchema may be any JSON Schema
// and its structuredContent any JSON value (SEP-2106). Up to 2025-11-25 the schema types
// Tool.outputSchema as {"type": "object", …} and CallToolResult.structuredContent as an object,
// and strict clients reject the whole message otherwise.
const anyJSONVersion = "2026-07-28"

// revisionMiddleware fits tools/list and tools/call results to what the request's revision
// allows (see anyJSONVersion). For a request of a revision before 2026-07-28 (or of no known
// revision):
//
//   - a tool whose outputSchema root is not {"type": "object"} is listed without its
//     outputSchema: the tool stays usable, and such a client does not expect
//     structuredContent from it;
//   - a structuredContent that is not an object is dropped, the content blocks kept: they
//     hold the same JSON as text (decodeResult adds that block when a guest gives none, and
//     so does this middleware for any other handler), which is what the 2025 revisions tell
//     a client without structured output to read.
//
// Results are copied, never changed in place: the SDK keeps the registered tools.
func revisionMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || ProtocolAtLeast(requestVersion(req), anyJSONVersion) {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.ListToolsResult:
			return objectOutputSchemas(r), nil
		case *mcp.CallToolResult:
			return objectStructuredContent(r), nil
		}
		return res, err
	}
}

// requestVersion is the revision req was made under: its own _meta for a 2026-07-28
// request, else the session's; "" if unknown.
func requestVersion(req mcp.Request) string {
	if r, ok := req.(interface{ ProtocolVersion() string }); ok {
		return r.ProtocolVersion()
	}
	return negotiatedVersion(req)
}

// objectOutputSchemas returns r with every outputSchema whose root is not {"type": "object"}
// left out.
func objectOutputSchemas(r *mcp.ListToolsResult) *mcp.ListToolsResult {
	var out *mcp.ListToolsResult
	for i, t := range r.Tools {
		if t == nil || t.OutputSchema == nil || isObjectSchema(t.OutputSchema) {
			continue
		}
		if out == nil {
			cp := *r
			cp.Tools = append([]*mcp.Tool(nil), r.Tools...)
			out = &cp
		}
		ct := *t
		ct.OutputSchema = nil
		out.Tools[i] = &ct
	}
	if out == nil {
		return r
	}
	return out
}

// isObjectSchema reports whether schema is a JSON object whose "type" is "object", as
// Tool.outputSchema is typed up to 2025-11-25.
func isObjectSchema(schema any) bool {
	b, err := jsonOf(schema)
	if err != nil {
		return false
	}
	var root struct {
		Type json.RawMessage `json:"type"`
	}
	if json.Unmarshal(b, &root) != nil {
		return false
	}
	return string(bytes.TrimSpace(root.Type)) == `"object"`
}

// objectStructuredContent returns r without a structuredContent that is not a JSON object;
// if r has no content blocks, the dropped JSON becomes a text block.
func objectStructuredContent(r *mcp.CallToolResult) *mcp.CallToolResult {
	if r.StructuredContent == nil {
		return r
	}
	b, err := jsonOf(r.StructuredContent)
	if err == nil {
		b = bytes.TrimSpace(b)
		if len(b) > 0 && b[0] == '{' {
			return r
		}
	}
	cp := *r
	cp.StructuredContent = nil
	if len(cp.Content) == 0 && err == nil {
		cp.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
	}
	return &cp
}

// jsonOf is v's JSON: as it is for a json.RawMessage (what guests' results and schemas are,
// so a 1 MiB result is not encoded again on every call just to see its first byte), else
// encoded.
func jsonOf(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(v)
}
