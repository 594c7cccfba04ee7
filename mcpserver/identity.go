package mcpserver

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Identity is who made an HTTP request, as the resource server established it (resource.go):
// the subject and issuer of a validated access token, its groups (from the issuer's groups
// claim) and scopes. The static bearer token (HTTPOptions.BearerToken) is one identity,
// StaticTokenSubject with no issuer. Values are read-only once made.
type Identity struct {
	Subject string   // the token's "sub" (RFC 7519 §4.1.2), or StaticTokenSubject
	Issuer  string   // the token's "iss", exactly as configured; "" for the static token
	Groups  []string // from the issuer's groups claim; nil when it has none
	Scopes  []string // from "scope" (space-separated, RFC 9068 §2.2.3) or "scp"
}

// StaticTokenSubject is the Subject of the identity that presents HTTPOptions.BearerToken.
const StaticTokenSubject = "static-token"

// Key is a string naming the identity uniquely across issuers: "ISSUER SUBJECT" (a space
// cannot occur in an issuer URL). It is what sessions are bound to and quotas keyed by.
func (id *Identity) Key() string {
	if id == nil {
		return ""
	}
	return id.Issuer + " " + id.Subject
}

// HasScope reports whether the identity holds scope s.
func (id *Identity) HasScope(s string) bool { return id != nil && slices.Contains(id.Scopes, s) }

type identityKey struct{}

// WithIdentity returns ctx carrying id (for IdentityFrom).
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity of the request ctx belongs to, or nil when there is none
// (stdio, HTTP without authentication). It works in HTTP middleware after authentication and
// in MCP method and tool handlers of a server served by NewHTTPHandler (identityMiddleware
// puts it in their context from the request's auth.TokenInfo).
func IdentityFrom(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}

// ClientKey is the key per-client quotas use: "sub:" + the identity's Key where there is an
// authenticated identity, else "session:" + the MCP session id, else "anonymous".
func ClientKey(ctx context.Context, sessionID string) string {
	if id := IdentityFrom(ctx); id != nil {
		return "sub:" + id.Key()
	}
	if sessionID != "" {
		return "session:" + sessionID
	}
	return "anonymous"
}

// identityExtraKey is where the Identity sits in auth.TokenInfo.Extra.
const identityExtraKey = "mcpwasm.identity"

// identityOfRequest returns the identity the HTTP layer attached to req (nil: none).
func identityOfRequest(req mcp.Request) *Identity {
	if req == nil {
		return nil
	}
	extra := req.GetExtra()
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	id, _ := extra.TokenInfo.Extra[identityExtraKey].(*Identity)
	return id
}

// identityMiddleware puts the request's identity into the context of every MCP method
// handler (the SDK serves a session's requests in the session's context, not the HTTP
// request's: the identity travels in RequestExtra.TokenInfo).
func identityMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if id := identityOfRequest(req); id != nil && IdentityFrom(ctx) == nil {
			ctx = WithIdentity(ctx, id)
		}
		return next(ctx, method, req)
	}
}
