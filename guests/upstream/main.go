// Command upstream is the mcpwasm "upstream" example guest: it calls a tool of an upstream
// MCP server through the host's mcp grant (ABI.md §6.5) and post-processes the result. Its one
// tool, shout_echo, calls the upstream's echo tool and upper-cases the text it returns.
//
// It requests the upstream named "docs" (mcp ["docs"]); the operator configures that server
// and grants it:
//
//	{"guests": [{"path": "upstream.wasm", "grants": {"mcp": ["docs"]}}],
//	 "upstreams": {"docs": {"command": ["mcpwasm", "serve"]}}}
//
// Build it with guests/granted.sh. The tool is registered in init (register.go, wasip1 only):
// a c-shared module never runs main.
package main

//go:generate go run github.com/mcpwasm/mcpwasm/abi/guest/schemagen

func main() {}
