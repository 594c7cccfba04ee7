package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// maxMCPResponseBytes caps one mcp.list or mcp.call answer handed to a guest, in bytes: the
// default result limit (16 MiB), since the guest usually returns something derived from it.
const maxMCPResponseBytes = 16 << 20

// mcpRequest serves abi.KindMCPList and abi.KindMCPCall: the named server must be in the
// tool's effective mcp grant (granted ∩ requested), like net and exec.
func (c *Tool) mcpRequest(ctx context.Context, kind string, body []byte) (abi.Status, []byte) {
	var req abi.MCPCallRequest // a superset of abi.MCPListRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return abi.StatusInvalid, ErrorBody(kind + ": request is not valid JSON: " + err.Error())
	}
	if req.Server == "" {
		return abi.StatusInvalid, ErrorBody(kind + `: "server" is required`)
	}
	if kind == abi.KindMCPCall {
		if req.Tool == "" {
			return abi.StatusInvalid, ErrorBody(kind + `: "tool" is required`)
		}
		args := bytes.TrimSpace(req.Arguments)
		switch {
		case len(args) == 0 || string(args) == "null":
			req.Arguments = json.RawMessage("{}")
		case args[0] != '{':
			return abi.StatusInvalid, ErrorBody(kind + `: "arguments" must be a JSON object`)
		}
	}
	if !slices.Contains(c.effective.MCP, req.Server) {
		return statusOf(deny("mcp: upstream %q is not granted to %s", clip(req.Server), c.subject()))
	}
	ups := c.upstreams
	if ups == nil {
		return abi.StatusNotFound, ErrorBody(fmt.Sprintf("mcp: upstream %q: %v (the host has no upstream servers)", clip(req.Server), peer.ErrUnknownUpstream))
	}
	var out []byte
	var err error
	if kind == abi.KindMCPList {
		out, err = ups.ListTools(ctx, req.Server)
	} else {
		out, err = ups.CallTool(ctx, req.Server, req.Tool, req.Arguments)
	}
	switch {
	case err == nil && len(out) > maxMCPResponseBytes:
		return abi.StatusTooLarge, ErrorBody(fmt.Sprintf("mcp: answer of upstream %q is %d bytes, over the %d-byte cap", req.Server, len(out), maxMCPResponseBytes))
	case err == nil:
		return abi.StatusOK, out
	case errors.Is(err, peer.ErrUnknownUpstream):
		return abi.StatusNotFound, ErrorBody("mcp: " + err.Error())
	case errors.Is(err, peer.ErrUpstreamUnavailable):
		return abi.StatusUnavailable, ErrorBody("mcp: " + err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return abi.StatusTimeout, ErrorBody("mcp: time limit exceeded: " + err.Error())
	case errors.Is(err, context.Canceled):
		return abi.StatusCancelled, ErrorBody("mcp: cancelled")
	}
	return abi.StatusFailed, ErrorBody("mcp: " + err.Error())
}
