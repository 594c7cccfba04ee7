package runtime

import (
	"context"

	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
)

// Client sends a running guest's requests to the MCP client of the current tool call: the
// request kinds sampling, elicitation and roots (ABI.md §6.7; MCP spec 2025-11-25 "Client
// Features"). Package runtime does not speak MCP: package mcpserver implements Client
// on the MCP Go SDK's server session, and passes it per call in CallHooks.Client.
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
	ErrClientUnavailable = sandbox.ErrClientUnavailable
	// ErrClientFailed: the client answered with a JSON-RPC error (FAILED).
	ErrClientFailed = sandbox.ErrClientFailed
	// ErrInputRequired: the answer comes in a later round of the tool call (MCP SEP-2322
	// multi round-trip). Guest.Call stops the guest and its error wraps ErrInputRequired;
	// the caller answers the client with an input-required result and runs the call again
	// with the answers.
	ErrInputRequired = sandbox.ErrInputRequired
)
