package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What mcpserver/codemode needs of this package: the policy's answer for one identity and
// tool, and the client-request bridge of a Go tool handler.

// CodeModeResourcePrefix starts the URI of every code-mode resource (the declarations).
// Code mode filters their content per identity itself, so the policy serves them to every
// authenticated identity, as a guest-less resource would need a "*" rule.
const CodeModeResourcePrefix = "mcpwasm://code-mode/"

// ErrPolicyDenied is wrapped by Policy.Check's refusals.
var ErrPolicyDenied = errors.New("refused by the server's policy")

// Check reports whether the policy lets id call tool as served on s: nil when it does (and
// for a nil policy or a nil identity, which the policy does not judge: stdio, HTTP without
// authentication), else an error wrapping ErrPolicyDenied whose text is the refusal a
// tools/call of it gets (naming the rule when a scope is what is missing).
func (p *Policy) Check(s *mcp.Server, id *Identity, tool string) error {
	if p == nil || id == nil {
		return nil
	}
	d := p.decide(id, tool, toolGuest(s, tool))
	if d.allowed {
		return nil
	}
	return &policyError{msg: d.deniedMessage(id, tool)}
}

type policyError struct{ msg string }

func (e *policyError) Error() string { return e.msg }
func (e *policyError) Unwrap() error { return ErrPolicyDenied }

// RequestIdentity is the identity of req (a request of a server served by NewHTTPHandler
// with a ResourceServer), from ctx or the request itself; nil when it has none.
func RequestIdentity(ctx context.Context, req mcp.Request) *Identity {
	if id := IdentityFrom(ctx); id != nil {
		return id
	}
	return identityOfRequest(req)
}

// WithToolClientRequests wraps a Go tool handler as guest tools are wrapped (clientreq.go):
// in next, ClientFrom(ctx) asks the calling client (sampling, elicitation, roots; ABI.md
// §6.7) on every protocol revision: by a server→client request before 2026-07-28, by an
// input-required result (SEP-2322) from it on, where next runs again from the start with
// the answers. key authenticates request states (Options.RequestStateKey; nil: a random
// per-process key); outputLimit caps the input-required result in bytes (0: none).
func WithToolClientRequests(tool string, key []byte, outputLimit int, logger *slog.Logger, next mcp.ToolHandler) mcp.ToolHandler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return withClientRequests(tool, key, outputLimit, logger, next)
}

// ClientFrom returns the client of the tools/call whose handler WithToolClientRequests
// wrapped, or nil. Its Request takes a request kind (abi.KindElicitation, …) and the
// request's params JSON, with the host's options under "mcpwasm" (key, defer, optional);
// peer.ErrInputRequired means the answer comes in a later round: the handler should stop
// (its result is replaced by the input-required result).
func ClientFrom(ctx context.Context) peer.Client { return clientOf(ctx) }

// codeModeResource reports a code-mode resource URI (or template).
func codeModeResource(uri string) bool { return strings.HasPrefix(uri, CodeModeResourcePrefix) }
