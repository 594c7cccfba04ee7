package runtime

import (
	"context"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
)

// capCheck holds what one tool may do through the request import, computed once at load.
type capCheck struct {
	guest, tool string
	perTool     bool   // the operator narrowed grants per tool: denials name the tool
	granted     Grants // the operator's grants for this tool
	effective   Grants // granted ∩ requested
	net         NetOptions
	exec        []*execProgram // effective exec grants, resolved at load
}

// subject names who was refused, for denial messages.
func (c *capCheck) subject() string {
	if c.perTool {
		return fmt.Sprintf("tool %q of guest %q", c.tool, c.guest)
	}
	return fmt.Sprintf("guest %q", c.guest)
}

// request dispatches one request import call of a running tool (ABI.md §6.1).
func (g *Guest) request(ctx context.Context, toolName, kind string, req []byte) (abi.Status, []byte) {
	t, ok := g.tools[toolName]
	if !ok {
		return abi.StatusUnavailable, errorBody("request outside a tool call")
	}
	switch kind {
	case abi.KindHTTP:
		return t.caps.httpRequest(ctx, req)
	case abi.KindExec:
		return t.caps.execRequest(ctx, req)
	case abi.KindMCPList, abi.KindMCPCall: // ABI.md §6.5 (mcpcall.go)
		return t.caps.mcpRequest(ctx, g.host.upstreams, kind, req)
	}
	return abi.StatusNotFound, errorBody(fmt.Sprintf("unknown request kind %q", kind))
}
