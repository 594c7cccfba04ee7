package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// complete answers completion/complete (MCP 2025-11-25 "Utilities › Completion") with the
// guest that owns the referenced prompt or resource template (ABI.md §2.5). An unknown
// reference is -32602 Invalid Params; a prompt or template whose guest does not complete
// gets no values. At most abi.MaxCompletionValues values are returned: a longer list is cut
// and marked hasMore.
func (r *registry) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	if res, ok, err := r.completeExposed(ctx, p); ok { // exposeall.go
		return res, err
	}
	var g *runtime.Guest
	switch p.Ref.Type {
	case abi.RefPrompt:
		if g = r.prompt(p.Ref.Name); g == nil {
			return nil, invalidParams("unknown prompt %q", p.Ref.Name)
		}
	case abi.RefResource:
		if g = r.resource(p.Ref.URI); g == nil {
			return nil, invalidParams("unknown resource or resource template %q", p.Ref.URI)
		}
	default:
		return nil, invalidParams("unknown reference type %q (want %s or %s)", p.Ref.Type, abi.RefPrompt, abi.RefResource)
	}
	if !g.Completes() {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
	in := abi.CompleteRequest{
		Ref:      abi.CompleteRef{Type: p.Ref.Type, Name: p.Ref.Name, URI: p.Ref.URI},
		Argument: abi.CompleteArgument{Name: p.Argument.Name, Value: p.Argument.Value},
	}
	if p.Context != nil {
		in.Context = &abi.CompleteContext{Arguments: p.Context.Arguments}
	}
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	hooks := withRequest(ctx, &runtime.CallHooks{Session: req.Session}, req.Params.Meta)
	if s := r.server; s != nil {
		hooks.ListsChanged = func() { refreshGuest(s, g) } // refresh.go
	}
	out, err := g.Complete(runtime.WithCallHooks(ctx, hooks), body)
	if err != nil {
		if errors.Is(err, runtime.ErrInvalidArguments) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	var res abi.CompleteResult
	if err := decodeFeature(out, &res, ""); err != nil {
		return nil, err
	}
	c := res.Completion
	if c.Values == nil {
		c.Values = []string{}
	}
	if len(c.Values) > abi.MaxCompletionValues {
		c.Values, c.HasMore = c.Values[:abi.MaxCompletionValues], true
	}
	if c.Total != 0 && c.Total < len(c.Values) {
		c.Total = len(c.Values)
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: c.Values, Total: c.Total, HasMore: c.HasMore}}, nil
}

func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + fmt.Sprintf(format, args...)}
}
