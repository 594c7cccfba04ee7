package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addResourcesAndPrompts registers g's resources, resource templates and prompts on s. The
// SDK advertises the resources and prompts capabilities only once something is registered.
// Those whose text hides characters are withheld unless o allows them (hygiene.go).
func addResourcesAndPrompts(s *mcp.Server, g *runtime.Guest, o *GuestOptions) {
	m := g.Manifest()
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		out, err := g.ReadResource(runtime.WithSession(ctx, req.Session), req.Params.URI)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		var res mcp.ReadResourceResult
		if err := decodeFeature(out, &res, req.Params.URI); err != nil {
			return nil, err
		}
		return &res, nil
	}
	for _, r := range m.Resources {
		if withheldFeature(g, checkHiddenFields("resource", r.URI, resourceFields(r)), o) {
			continue
		}
		s.AddResource(&mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}, read)
	}
	for _, r := range m.ResourceTemplates {
		if withheldFeature(g, checkHiddenFields("resource template", r.URITemplate, templateFields(r)), o) {
			continue
		}
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: r.URITemplate, Name: r.Name, Title: r.Title,
			Description: r.Description, MIMEType: r.MIMEType}, read)
	}
	for _, p := range m.Prompts {
		if withheldFeature(g, checkHiddenFields("prompt", p.Name, promptFields(p)), o) {
			continue
		}
		mp := &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
		s.AddPrompt(mp, withPromptClientRequests(p.Name, o.RequestStateKey, o.Logger, promptHandler(g, p))) // clientreq.go
	}
}

func promptHandler(g *runtime.Guest, p abi.Prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		for _, a := range p.Arguments {
			if _, ok := req.Params.Arguments[a.Name]; a.Required && !ok {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("prompt %q: missing required argument %q", p.Name, a.Name)}
			}
		}
		args, err := json.Marshal(req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		hooks := &runtime.CallHooks{Client: clientOf(ctx)} // clientreq.go
		out, err := g.GetPrompt(runtime.WithCallHooks(runtime.WithSession(ctx, req.Session), hooks), p.Name, args)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		var res mcp.GetPromptResult
		if err := decodeFeature(out, &res, ""); err != nil {
			return nil, err
		}
		return &res, nil
	}
}

// decodeFeature decodes a guest's read/prompt answer into res, or its abi.ErrorBody into a
// JSON-RPC error (ABI.md §2.4).
func decodeFeature(out []byte, res any, uri string) error {
	var eb abi.ErrorBody
	if json.Unmarshal(out, &eb) == nil && eb.Error != "" {
		switch eb.Code {
		case abi.CodeResourceNotFound:
			return mcp.ResourceNotFoundError(uri)
		case 0:
			eb.Code = jsonrpc.CodeInternalError
		}
		return &jsonrpc.Error{Code: int64(eb.Code), Message: eb.Error}
	}
	if err := json.Unmarshal(out, res); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%v: malformed guest answer: %v", runtime.ErrABI, err)}
	}
	return nil
}
