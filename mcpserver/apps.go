package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP Apps (the io.modelcontextprotocol/ui extension, SEP-1865, spec 2026-01-26): a tool names
// its view in _meta.ui.resourceUri (and, deprecated, the flat _meta["ui/resourceUri"]); the
// view is a ui:// resource of type AppMIMEType whose contents carry _meta.ui (csp,
// permissions, domain, prefersBorder). Guests of every kind declare both in their manifest
// (abi.Tool.Meta, abi.Resource.Meta, abi.ResourceContents.Meta); this file negotiates the
// extension:
//
//   - initialize and server/discover declare capabilities.extensions[AppsExtension] = {} once
//     a tool served here names a view;
//   - tools/list gives _meta.ui and _meta["ui/resourceUri"] only to a client that declared
//     the extension with AppMIMEType among its mimeTypes ("Servers SHOULD check client
//     capabilities before registering UI-enabled tools … Register text-only version … No UI
//     metadata", apps.mdx "Server Behavior"). Any other client gets the same tools without
//     those keys: the text-only variant; the tool answers it with text as before.
//
// The ui:// resources stay listed for every client (they are resources like any other).

// AppsExtension is the MCP Apps extension identifier.
const AppsExtension = "io.modelcontextprotocol/ui"

// AppMIMEType is the MIME type of an MCP Apps HTML view.
const AppMIMEType = "text/html;profile=mcp-app"

// appMetaKeys are the tool _meta keys of MCP Apps: "ui" (McpUiToolMeta) and the deprecated
// flat "ui/resourceUri".
var appMetaKeys = [...]string{"ui", "ui/resourceUri"}

// decodeMeta decodes a manifest's _meta (a tool's, a resource's): a JSON object, or absent
// (nil). Anything else is an error naming the field.
func decodeMeta(raw json.RawMessage) (mcp.Meta, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, errors.New("_meta must be a JSON object")
	}
	var m mcp.Meta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("_meta: %w", err)
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// namesView reports whether a tool's _meta names an MCP Apps view.
func namesView(meta mcp.Meta) bool {
	for _, k := range appMetaKeys {
		if _, ok := meta[k]; ok {
			return true
		}
	}
	return false
}

// withoutAppMeta returns meta without the MCP Apps keys (a copy; nil when nothing is left).
func withoutAppMeta(meta mcp.Meta) mcp.Meta {
	if !namesView(meta) {
		return meta
	}
	out := maps.Clone(meta)
	for _, k := range appMetaKeys {
		delete(out, k)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// declaresApps reports whether caps declares the MCP Apps extension with AppMIMEType (or
// without a mimeTypes list, which the spec requires but an early host may leave out).
func declaresApps(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	v, ok := caps.Extensions[AppsExtension]
	if !ok {
		return false
	}
	settings, _ := v.(map[string]any)
	types, ok := settings["mimeTypes"].([]any)
	if !ok {
		return settings["mimeTypes"] == nil
	}
	return slices.Contains(types, any(AppMIMEType))
}

var appsServers sync.Map // *mcp.Server → struct{}

// enableApps installs the MCP Apps middleware on s, once: from then on s declares the
// extension. Called when a guest or upstream tool names a view.
func enableApps(s *mcp.Server) {
	if _, loaded := appsServers.LoadOrStore(s, struct{}{}); !loaded {
		s.AddReceivingMiddleware(appsMiddleware)
	}
}

// appsMiddleware declares the extension and gives tools/list's app metadata only to clients
// that declared it (see the top of this file).
func appsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch method {
		case "initialize", "server/discover":
			return withAppsCapability(res), nil
		case "tools/list":
			r, ok := req.(*mcp.ListToolsRequest)
			if ok && declaresApps(r.ClientCapabilities()) {
				return res, nil
			}
			return textOnlyTools(res), nil
		}
		return res, nil
	}
}

// withAppsCapability returns res (an initialize or server/discover result) with
// capabilities.extensions[AppsExtension] = {}, on a copy.
func withAppsCapability(res mcp.Result) mcp.Result { return withExtension(res, AppsExtension) }

// textOnlyTools returns a tools/list result (the SDK's, or one the tasks middleware wrapped)
// whose tools carry no MCP Apps _meta keys; res itself and its tools are not changed.
func textOnlyTools(res mcp.Result) mcp.Result {
	strip := func(r *mcp.ListToolsResult) *mcp.ListToolsResult {
		if r == nil || !slices.ContainsFunc(r.Tools, func(t *mcp.Tool) bool { return t != nil && namesView(t.Meta) }) {
			return r
		}
		cp := *r
		cp.Tools = make([]*mcp.Tool, len(r.Tools))
		for i, t := range r.Tools {
			if t != nil && namesView(t.Meta) {
				tc := *t
				tc.Meta = withoutAppMeta(t.Meta)
				t = &tc
			}
			cp.Tools[i] = t
		}
		return &cp
	}
	switch r := res.(type) {
	case *mcp.ListToolsResult:
		return strip(r)
	case *listWithExecution: // tasks.go
		return &listWithExecution{ListToolsResult: strip(r.ListToolsResult), support: r.support}
	}
	return res
}
