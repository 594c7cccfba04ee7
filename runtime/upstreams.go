package runtime

import (
	"context"

	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
)

// Upstreams is the host's MCP client side, as guests use it through the request kinds
// mcp.list and mcp.call (ABI.md §6.5). Package runtime does not speak MCP itself: package
// upstream implements Upstreams on the MCP Go SDK (a Manager), and an embedder may
// supply its own.
//
// Implementations must be safe for concurrent use: calls of many guest instances run at once.
// ctx carries the calling tool's time limit and cancellation; an implementation must return
// when it is done (and should tell the server, MCP "Utilities › Cancellation").
type Upstreams interface {
	// ListTools returns the JSON object {"tools": [ … ]} with every tool of server (all
	// pages), as MCP Tool objects.
	ListTools(ctx context.Context, server string) ([]byte, error)
	// CallTool calls tool on server with args (a JSON object) and returns the server's
	// CallToolResult JSON. A tool error (isError) is a result, not an error; a JSON-RPC
	// error from the server is an error.
	CallTool(ctx context.Context, server, tool string, args []byte) ([]byte, error)
}

// Errors an Upstreams implementation wraps so a guest gets the right status (ABI.md §6.5).
var (
	// ErrUnknownUpstream: no upstream server of that name is configured (NOT_FOUND).
	ErrUnknownUpstream = sandbox.ErrUnknownUpstream
	// ErrUpstreamUnavailable: the server could not be started, reached or initialized
	// (UNAVAILABLE).
	ErrUpstreamUnavailable = sandbox.ErrUpstreamUnavailable
)
