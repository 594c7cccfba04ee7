// Package digest names content by SHA-256: the "sha256:<hex>" digest of a value's canonical
// JSON, which pins an exposed upstream's tools (mcpserver.PinTool) and locks a guest's tools
// and manifest (internal/ship lock files) — one rule, so a pin and a lock entry of the same
// definition are the same string.
package digest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Canonical returns v as canonical JSON: object keys sorted, no insignificant space, numbers
// as written (never through float64, so 1.50 stays 1.50). The error is json.Marshal's.
func Canonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return json.Marshal(x) // maps marshal with sorted keys
}

// Of is "sha256:" and the lower-case hex SHA-256 of v's canonical JSON (Canonical). A value
// that does not marshal (a channel, a json.RawMessage that is not JSON) digests its error
// text: still a stable value, and never that of a value that marshals.
func Of(v any) string {
	b, err := Canonical(v)
	if err != nil {
		b = []byte(err.Error())
	}
	return "sha256:" + Hex(b)
}

// Tool returns the digests (Of) of a tool definition's fields by their MCP names: "title",
// "description", "inputSchema", "outputSchema", "annotations", "icons", "_meta" (the whole
// object: an MCP App's ui.resourceUri and anything else a client acts on) and "execution"
// (its taskSupport; "" counts as "forbidden", MCP's default). A pin of an
// upstream's tool (mcpserver.PinTool, from an mcp.Tool) and a lock entry of a guest's
// (internal/ship.ToolFields, from an abi.Tool) are both this map, so equal definitions have
// equal digests whichever type carried them.
func Tool(title, description string, inputSchema, outputSchema, annotations, icons, meta any, taskSupport string) map[string]string {
	if taskSupport == "" {
		taskSupport = "forbidden"
	}
	return map[string]string{
		"_meta":        Of(meta),
		"execution":    Of(map[string]string{"taskSupport": taskSupport}),
		"title":        Of(title),
		"description":  Of(description),
		"inputSchema":  Of(inputSchema),
		"outputSchema": Of(outputSchema),
		"annotations":  Of(annotations),
		"icons":        Of(icons),
	}
}

// Hex is the lower-case hex SHA-256 of b (64 digits, no prefix).
func Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
