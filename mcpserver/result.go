package mcpserver

import (
	"github.com/mcpwasm/mcpwasm/internal/exactjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// decodeToolResult decodes a guest's CallToolResult without changing a JSON number
// (structuredContent and the values of _meta stay raw JSON: exactjson) and refuses a content
// block that lacks a field the MCP schema requires (checkContentFields). A result of text
// blocks takes exactjson's one pass, whose blocks have their text by construction.
func decodeToolResult(data []byte) (*mcp.CallToolResult, error) {
	if res, ok := exactjson.DecodeTextResult(data); ok {
		return res, nil
	}
	res, err := exactjson.DecodeToolResult(data)
	if err != nil {
		return nil, err
	}
	if err := checkContentFields(data); err != nil { // contentcheck.go
		return nil, err
	}
	return res, nil
}
