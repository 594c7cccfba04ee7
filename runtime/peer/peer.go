// Package peer declares what an embedder plugs into the host for a guest's outward requests
// that are not plain capabilities: the MCP client of the current call (Client), the
// upstream MCP servers (Upstreams), and how net grants reach the network (Net, Resolver),
// with the errors an implementation wraps so a guest gets the right status. It is a leaf:
// package mcpserver implements Client, package upstream implements Upstreams, and package
// runtime takes them in its Options and CallHooks.
package peer

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"time"
)

// Client sends a running guest's requests to the MCP client of the current tool call: the
// request kinds sampling, elicitation and roots (ABI.md §6.7; MCP spec 2025-11-25 "Client
// Features"). Package runtime does not speak MCP: package mcpserver implements Client
// on the MCP Go SDK's server session, and passes it per call in runtime.CallHooks.Client.
//
// kind is abi.KindSampling, abi.KindElicitation or abi.KindRoots; params is the MCP request's
// params JSON (an object, already checked against the tool's grants); the answer is the
// client's result JSON (CreateMessageResult, ElicitResult, ListRootsResult). Request may
// block until the client answers; it must return when ctx (the call's deadline and
// cancellation) is done. Errors wrap ErrClientUnavailable, ErrClientFailed or
// ErrInputRequired, or ctx's error; anything else is FAILED.
type Client interface {
	Request(ctx context.Context, kind string, params []byte) ([]byte, error)
}

// Errors a Client wraps so a guest gets the right status (ABI.md §6.7).
var (
	// ErrClientUnavailable: the client did not declare the capability, or the session cannot
	// carry a server→client request (UNAVAILABLE); the message says which.
	ErrClientUnavailable = errors.New("client unavailable")
	// ErrClientFailed: the client answered with a JSON-RPC error (FAILED).
	ErrClientFailed = errors.New("client request failed")
	// ErrInputRequired: the answer comes in a later round of the tool call (MCP SEP-2322
	// multi round-trip). runtime's Guest.Call stops the guest and its error wraps
	// ErrInputRequired; the caller answers the client with an input-required result and runs
	// the call again with the answers. The guest never sees a status for it.
	ErrInputRequired = errors.New("client input required")
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
	ErrUnknownUpstream = errors.New("unknown upstream server")
	// ErrUpstreamUnavailable: the server could not be started, reached or initialized
	// (UNAVAILABLE).
	ErrUpstreamUnavailable = errors.New("upstream server unavailable")
)

// Resolver looks up a host name's addresses; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Net configures how net grants reach the network. The zero value is valid: every zero
// field takes the default its comment names.
type Net struct {
	// Resolver resolves host names; nil means net.DefaultResolver. Tests and special networks
	// substitute their own.
	Resolver Resolver
	// DialContext opens a connection to an already checked "ip:port"; nil means a net.Dialer
	// with a 10 s timeout.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// MaxResponseBytes caps a response body, in bytes; zero means 10 MiB.
	MaxResponseBytes int
	// Timeout caps one request including redirects; zero means 30 s. The call's own time
	// limit applies too.
	Timeout time.Duration
	// MaxRedirects caps redirect hops; zero means 5.
	MaxRedirects int
}

// Process is a running instance of a whole-server guest (runtime.Server.Start): a stdio MCP
// server inside this process. Write reaches its stdin; Read reads its stdout, one JSON-RPC
// message a line (a line that is not JSON stops it, and Read fails naming the line);
// CloseWrite closes its stdin; Close closes stdin, stops it after a grace and returns when it
// has ended. Done is closed when it has ended, and Err then says why (nil before). Stop ends
// it now. Close is idempotent.
type Process interface {
	io.ReadWriteCloser
	CloseWrite() error
	Done() <-chan struct{}
	Err() error
	Stop()
}
