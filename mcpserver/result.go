package mcpserver

import (
	"github.com/mcpwasm/mcpwasm/internal/exactjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// decodeToolResult decodes a guest's CallToolResult without changing a JSON number:
// structuredContent and the values of _meta stay raw JSON (exactjson).
func decodeToolResult(data []byte) (*mcp.CallToolResult, error) {
	return exactjson.DecodeToolResult(data)
}
