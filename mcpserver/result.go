package mcpserver

import (
	"github.com/mcpwasm/mcpwasm/internal/exactjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// decodeToolResult decodes a guest's CallToolResult exactly or refuses it with a readable
// reason (ABI.md §5). exactjson.Check is the one place that decides what is refused: not an
// object, a duplicate key at any depth, a member of the wrong type (named by its path with what
// was wanted), an unknown block type, a missing required field, bad base64. What passes is
// decoded with structuredContent and every _meta (the result's, each block's, each embedded
// resource's) kept as the guest's JSON, so no number is changed; a result of text blocks takes
// exactjson's one pass.
func decodeToolResult(data []byte) (*mcp.CallToolResult, error) {
	return exactjson.DecodeToolResult(data)
}
