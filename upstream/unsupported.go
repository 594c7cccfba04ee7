package upstream

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// unsupportedRequests answers the server→client requests this client does not offer with one
// consistent error, -32601 Method not found (JSON-RPC 2.0 §5.1), naming the capability it did
// not declare. Left to the SDK, roots/list would be answered with an empty list although no
// roots capability was declared, sampling/createMessage with -31001 and elicitation/create
// with -32602. A method whose handler the caller configured (co) passes through.
func unsupportedRequests(co *mcp.ClientOptions) mcp.Middleware {
	offered := map[string]bool{
		"roots/list":             co.Capabilities != nil && co.Capabilities.RootsV2 != nil,
		"sampling/createMessage": co.CreateMessageHandler != nil || co.CreateMessageWithToolsHandler != nil,
		"elicitation/create":     co.ElicitationHandler != nil,
	}
	capability := map[string]string{"roots/list": "roots", "sampling/createMessage": "sampling", "elicitation/create": "elicitation"}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ok, known := offered[method]; known && !ok {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
					Message: fmt.Sprintf("method not found: %q (this client does not declare the %s capability)", method, capability[method])}
			}
			return next(ctx, method, req)
		}
	}
}
