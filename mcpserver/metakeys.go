package mcpserver

import (
	"fmt"
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

// checkGuestMeta refuses a guest's result _meta that holds a key of the reserved namespace
// (reservedMetaKey), naming the first such key in sorted order: those keys are the
// protocol's, which the host writes (io.modelcontextprotocol/serverInfo at 2026-07-28,
// io.modelcontextprotocol/related-task for tasks); a guest that sets one would speak for the
// host. The error reads `_meta key "io.modelcontextprotocol/serverInfo" is reserved for MCP
// (a prefix whose second label is modelcontextprotocol or mcp)`.
func checkGuestMeta(meta mcp.Meta) error {
	var bad []string
	for k := range meta {
		if reservedMetaKey(k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return fmt.Errorf("_meta key %q is reserved for MCP (its prefix names modelcontextprotocol or mcp)", bad[0])
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
