package mcpserver

import (
	"log/slog"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reservedMetaKey reports whether key is in the _meta namespace MCP reserves for itself
// (Basic › General fields › _meta): its prefix (the labels before "/") has
// "modelcontextprotocol" or "mcp" as its second label (2025-11-25 and later:
// io.modelcontextprotocol/, dev.mcp/, com.mcp.tools/), or — as 2025-06-18 had it — as any
// label but the last (modelcontextprotocol.io/, tools.mcp.com/). Labels are compared without
// case, as DNS names are. com.example.mcp/ is not reserved under either rule.
func reservedMetaKey(key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	labels := strings.Split(prefix, ".")
	mcpLabel := func(l string) bool {
		return strings.EqualFold(l, "modelcontextprotocol") || strings.EqualFold(l, "mcp")
	}
	if len(labels) >= 2 && mcpLabel(labels[1]) {
		return true
	}
	return slices.ContainsFunc(labels[:len(labels)-1], mcpLabel)
}

// dropReservedMeta returns meta without the keys of MCP's reserved namespace
// (reservedMetaKey), logging a warning that names them and the source (slog attributes
// such as "guest", NAME, "tool", TOOL). Those keys are the protocol's, written by the host
// (io.modelcontextprotocol/serverInfo at 2026-07-28, which go-sdk adds only when a result has
// none): a guest's would speak for the host, and an upstream's relayed result carries its
// own hop's. meta itself is not changed.
func dropReservedMeta(logger *slog.Logger, meta mcp.Meta, source ...any) mcp.Meta {
	out, dropped := withoutReservedMeta(meta)
	if dropped != nil {
		logger.Warn("result _meta keys in MCP's reserved namespace dropped", append(source, "keys", dropped)...)
	}
	return out
}

// sdkMetaKeys are the reserved _meta keys an MCP SDK writes on every result by itself:
// go-sdk (and the other SDKs at 2026-07-28) puts the server's Implementation under
// io.modelcontextprotocol/serverInfo unless the handler set it.
var sdkMetaKeys = []string{mcp.MetaKeyServerInfo}

// dropUpstreamMeta is dropReservedMeta for an upstream MCP server's result: the keys its SDK
// wrote by itself (sdkMetaKeys) are dropped too, since they describe the upstream's hop, but
// only logged at debug — every 2026-07-28 result carries them, so a warning would say nothing
// an operator can act on (issue 45 item 9). Any other reserved key still warns.
func dropUpstreamMeta(logger *slog.Logger, meta mcp.Meta, source ...any) mcp.Meta {
	out, dropped := withoutReservedMeta(meta)
	var loud, quiet []string
	for _, k := range dropped {
		if slices.Contains(sdkMetaKeys, k) {
			quiet = append(quiet, k)
		} else {
			loud = append(loud, k)
		}
	}
	if quiet != nil {
		logger.Debug("result _meta keys its MCP SDK wrote dropped", append(source, "keys", quiet)...)
	}
	if loud != nil {
		logger.Warn("result _meta keys in MCP's reserved namespace dropped", append(source, "keys", loud)...)
	}
	return out
}

// withoutReservedMeta returns meta without the keys of the reserved namespace, and those keys
// (sorted); meta itself is not changed. An upstream MCP server's result carries them for its
// own hop (its serverInfo at 2026-07-28): they say nothing true about this server.
func withoutReservedMeta(meta mcp.Meta) (mcp.Meta, []string) {
	var dropped []string
	for k := range meta {
		if reservedMetaKey(k) {
			dropped = append(dropped, k)
		}
	}
	if len(dropped) == 0 {
		return meta, nil
	}
	slices.Sort(dropped)
	out := make(mcp.Meta, len(meta)-len(dropped))
	for k, v := range meta {
		if !reservedMetaKey(k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		out = nil
	}
	return out, dropped
}
