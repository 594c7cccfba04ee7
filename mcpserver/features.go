package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// manifestValues are a guest's tools, resources, resource templates and prompts as the SDK
// takes them, each checked by checkForSDK.
type manifestValues struct {
	tools     []*mcp.Tool
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
	m         *abi.Manifest
	// taskSupport is the execution.taskSupport each tool declares, by index of tools.
	taskSupport []string
	// dropped lists the _meta keys of MCP's reserved namespace taken out of tools and
	// resources (metakeys.go); registerGuest logs them.
	dropped []droppedMeta
}

// droppedMeta is the reserved _meta keys dropped from one tool ("tool"), resource
// ("resource") or template ("resource template") named name.
type droppedMeta struct {
	kind, name string
	keys       []string
}

// guestMeta is a manifest _meta without its reserved keys, recording those in v.dropped.
func (v *manifestValues) guestMeta(kind, name string, raw json.RawMessage) (mcp.Meta, error) {
	meta, err := decodeMeta(raw) // apps.go
	if err != nil {
		return nil, err
	}
	meta, keys := withoutReservedMeta(meta)
	if keys != nil {
		v.dropped = append(v.dropped, droppedMeta{kind, name, keys})
	}
	return meta, nil
}

// sdkValues converts and checks the manifest m of guest (see checkForSDK); the error names
// the guest and the first tool, resource, template or prompt that the SDK cannot take.
func sdkValues(guest string, m *abi.Manifest) (*manifestValues, error) {
	v := &manifestValues{m: m}
	for _, td := range m.Tools {
		t, err := mcpTool(td)
		if err == nil {
			err = checkForSDK(t)
		}
		var support string
		if err == nil && td.Execution != nil {
			support = td.Execution.TaskSupport
			err = CheckTaskSupport("execution.taskSupport", support)
		}
		if err != nil {
			return nil, fmt.Errorf("guest %q tool %q: %w", guest, td.Name, err)
		}
		var keys []string
		if t.Meta, keys = withoutReservedMeta(t.Meta); keys != nil {
			v.dropped = append(v.dropped, droppedMeta{"tool", td.Name, keys})
		}
		v.tools = append(v.tools, t)
		v.taskSupport = append(v.taskSupport, support)
	}
	for _, r := range m.Resources {
		mr := &mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}
		meta, err := v.guestMeta("resource", r.URI, r.Meta)
		if err == nil {
			mr.Meta = meta
			err = checkForSDK(mr)
		}
		if err != nil {
			return nil, fmt.Errorf("guest %q resource %q: %w", guest, r.URI, err)
		}
		v.resources = append(v.resources, mr)
	}
	for _, r := range m.ResourceTemplates {
		mt := &mcp.ResourceTemplate{URITemplate: r.URITemplate, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}
		meta, err := v.guestMeta("resource template", r.URITemplate, r.Meta)
		if err == nil {
			mt.Meta = meta
			err = checkForSDK(mt)
		}
		if err != nil {
			return nil, fmt.Errorf("guest %q resource template %q: %w", guest, r.URITemplate, err)
		}
		v.templates = append(v.templates, mt)
	}
	for _, p := range m.Prompts {
		mp := &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
		if err := checkForSDK(mp); err != nil {
			return nil, fmt.Errorf("guest %q prompt %q: %w", guest, p.Name, err)
		}
		v.prompts = append(v.prompts, mp)
	}
	return v, nil
}

// addFeatures registers the resources, templates and prompts on s. The SDK advertises the resources and prompts
// capabilities only once something is registered. Those whose text hides characters are
// withheld unless o allows them (hygiene.go).
func (f *manifestValues) addFeatures(s *mcp.Server, g *runtime.Guest, o *GuestOptions) {
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		hooks := withRequest(ctx, &runtime.CallHooks{Session: req.Session}, req.Params.Meta)
		hooks.ListsChanged = func() { refreshGuest(s, g) } // refresh.go
		out, err := g.ReadResource(runtime.WithCallHooks(ctx, hooks), req.Params.URI)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		var res mcp.ReadResourceResult
		if err := decodeFeature(out, &res, req.Params.URI); err != nil {
			return nil, err
		}
		res.Meta = dropReservedMeta(o.Logger, res.Meta, "guest", g.Name(), "resource", req.Params.URI) // metakeys.go
		for _, c := range res.Contents {
			if c != nil {
				c.Meta = dropReservedMeta(o.Logger, c.Meta, "guest", g.Name(), "resource", req.Params.URI, "contents", c.URI)
			}
		}
		return &res, nil
	}
	for i, r := range f.m.Resources {
		if withheldFeature(g, checkHiddenFields("resource", r.URI, resourceFields(r)), o) {
			continue
		}
		s.AddResource(f.resources[i], read)
	}
	for i, r := range f.m.ResourceTemplates {
		if withheldFeature(g, checkHiddenFields("resource template", r.URITemplate, templateFields(r)), o) {
			continue
		}
		s.AddResourceTemplate(f.templates[i], read)
	}
	for i, p := range f.m.Prompts {
		if withheldFeature(g, checkHiddenFields("prompt", p.Name, promptFields(p)), o) {
			continue
		}
		s.AddPrompt(f.prompts[i], withPromptClientRequests(p.Name, o.RequestStateKey, g.Limits("").OutputBytes, o.Logger, promptHandler(s, g, p, o.Logger))) // clientreq.go
	}
}

func promptHandler(s *mcp.Server, g *runtime.Guest, p abi.Prompt, logger *slog.Logger) mcp.PromptHandler {
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
		hooks := withRequest(ctx, &runtime.CallHooks{Client: clientOf(ctx), Session: req.Session}, req.Params.Meta) // clientreq.go
		hooks.ListsChanged = func() { refreshGuest(s, g) }                                                          // refresh.go
		out, err := g.GetPrompt(runtime.WithCallHooks(ctx, hooks), p.Name, args)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		var res mcp.GetPromptResult
		if err := decodeFeature(out, &res, ""); err != nil {
			return nil, err
		}
		res.Meta = dropReservedMeta(logger, res.Meta, "guest", g.Name(), "prompt", p.Name) // metakeys.go
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
