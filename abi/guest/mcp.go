package guest

import (
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
)

// MCPList lists the tools of upstream MCP server (a name from the operator's config) through
// the host's mcp grant (ABI.md §6.5). Each tool is a raw MCP Tool object. A server that is not
// granted, unknown or unreachable returns a *RequestError.
func MCPList(server string) ([]json.RawMessage, error) {
	var resp abi.MCPListResponse
	if err := requestJSON(abi.KindMCPList, abi.MCPListRequest{Server: server}, &resp); err != nil {
		return nil, err
	}
	return resp.Tools, nil
}

// MCPCall calls tool on upstream MCP server with args (any value that encodes as a JSON
// object; nil means {}) through the host's mcp grant (ABI.md §6.5), and returns the server's
// CallToolResult. A tool error is a result with IsError set, not an error; a refused call, an
// unreachable server or a JSON-RPC error from it returns a *RequestError.
func MCPCall(server, tool string, args any) (*abi.Result, error) {
	req := abi.MCPCallRequest{Server: server, Tool: tool}
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		req.Arguments = b
	}
	var res abi.Result
	if err := requestJSON(abi.KindMCPCall, req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
