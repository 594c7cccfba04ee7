package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// maxClientResponseBytes caps one client answer handed to a guest, in bytes (16 MiB).
const maxClientResponseBytes = 16 << 20

// clientKind is one of the client request kinds and its grant.
type clientKind struct {
	name       string
	of         func(policy.Grants) bool
	ofRequests func(abi.Requests) bool
}

var clientKinds = [...]clientKind{
	{abi.KindSampling, func(g policy.Grants) bool { return g.Sampling }, func(r abi.Requests) bool { return r.Sampling }},
	{abi.KindElicitation, func(g policy.Grants) bool { return g.Elicitation }, func(r abi.Requests) bool { return r.Elicitation }},
	{abi.KindRoots, func(g policy.Grants) bool { return g.Roots }, func(r abi.Requests) bool { return r.Roots }},
}

type clientKey struct{}

// WithClient returns a context whose requests of the client kinds go to c.
func WithClient(ctx context.Context, c peer.Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// clientRequest serves abi.KindSampling, abi.KindElicitation and abi.KindRoots: the kind
// must be in the tool's effective grants (granted ∩ requested), and the body a JSON object;
// it goes to the Client in ctx (WithClient), which is the current call's client only.
func (c *Tool) clientRequest(ctx context.Context, kind string, body []byte) (abi.Status, []byte) {
	for _, k := range clientKinds {
		if k.name == kind && !k.of(c.effective) {
			return statusOf(deny("%s: not granted to %s", kind, c.subject()))
		}
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	if !json.Valid(body) {
		return abi.StatusInvalid, ErrorBody(kind + ": request is not valid JSON")
	}
	if body[0] != '{' {
		return abi.StatusInvalid, ErrorBody(kind + ": request must be a JSON object")
	}
	cl, _ := ctx.Value(clientKey{}).(peer.Client)
	if cl == nil {
		return abi.StatusUnavailable, ErrorBody(kind + ": " + peer.ErrClientUnavailable.Error() + ": the call has no MCP client session")
	}
	out, err := cl.Request(ctx, kind, body)
	switch {
	case err == nil && len(out) > maxClientResponseBytes:
		return abi.StatusTooLarge, ErrorBody(fmt.Sprintf("%s: answer of %d bytes is over the %d-byte cap", kind, len(out), maxClientResponseBytes))
	case err == nil:
		return abi.StatusOK, out
	case errors.Is(err, peer.ErrInputRequired):
		return abi.StatusUnavailable, nil // the caller stops the guest (kind/mcpwasm: hostRequest)
	case errors.Is(err, peer.ErrClientUnavailable):
		return abi.StatusUnavailable, ErrorBody(kind + ": " + err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return abi.StatusTimeout, ErrorBody(kind + ": time limit exceeded")
	case errors.Is(err, context.Canceled):
		return abi.StatusCancelled, ErrorBody(kind + ": cancelled")
	}
	return abi.StatusFailed, ErrorBody(kind + ": " + err.Error())
}

// IsInputRequired reports whether an answer of Tool.Request means the guest must be stopped
// because the client's answer comes in a later round (peer.ErrInputRequired): an UNAVAILABLE
// status with no body, which no other path returns.
func IsInputRequired(st abi.Status, body []byte) bool {
	return st == abi.StatusUnavailable && body == nil
}
