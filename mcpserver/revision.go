package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
// The revision is revisionOf's (version.go). Results are copied, never changed in place: the
// SDK keeps the registered tools.
func revisionMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || ProtocolAtLeast(revisionOf(req), anyJSONVersion) {
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

// sessionMiddleware makes the revision initialize negotiates the session's, from supported
// (the server's revisions, newest first; serverVersions):
//
//   - initialize: the client's protocolVersion is replaced by the negotiated one
//     (handshakeVersion) before go-sdk records the params as the session's, and the answer
//     names that same revision. go-sdk v1.8 records the params as sent, so everything that
//     reads the session's InitializeParams — its own ServerRequest.ProtocolVersion, the
//     resultType of results, whether a server→client request is allowed, which sessions get
//     list_changed — served a client that asked for 2026-07-28, and was answered
//     2025-11-25, as a 2026-07-28 client.
//   - any other request of a session that began with initialize, whose _meta names a
//     revision of the sessionless generation (2026-07-28 or later), is -32600 Invalid
//     Request naming both revisions: go-sdk would answer it as a 2026-07-28 request
//     (resultType, serverInfo) inside a 2025 session. Over stateful HTTP go-sdk refuses it
//     before this (-32022); this is for stdio.
func sessionMiddleware(supported []string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" {
				p, ok := req.GetParams().(*mcp.InitializeParams)
				if !ok || p == nil {
					return next(ctx, method, req)
				}
				v := handshakeVersion(p.ProtocolVersion, supported)
				p.ProtocolVersion = v
				res, err := next(ctx, method, req)
				if ir, ok := res.(*mcp.InitializeResult); ok && ir != nil {
					ir.ProtocolVersion = v
				}
				return res, err
			}
			if session := handshakeRevision(req); session != "" && !strings.HasPrefix(method, "notifications/") {
				if v := revisionOfMeta(req, session); ProtocolAtLeast(v, sessionlessVersion) {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
						"invalid request: this session negotiated protocol %s at initialize; its requests cannot name %s in _meta[%q]",
						session, v, mcp.MetaKeyProtocolVersion)}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// revisionOfMeta is the protocolVersion of req's own _meta, or "" (go-sdk's
// ServerRequest.ProtocolVersion reads it first, then falls back to the session's, so a value
// equal to session — the handshakeRevision of req, which the caller has read — is not one
// that _meta named differently).
func revisionOfMeta(req mcp.Request, session string) string {
	r, ok := req.(interface{ ProtocolVersion() string })
	if !ok {
		return ""
	}
	v := r.ProtocolVersion()
	if v == session {
		return ""
	}
	return v
}
