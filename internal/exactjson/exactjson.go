// Package exactjson decodes MCP results without changing a JSON number. The SDK decodes
// CallToolResult.structuredContent and _meta into `any`, where every number becomes a
// float64: integers above 2^53 are rounded and a valid number beyond float64's range (1e400)
// is an error. Here those members stay raw JSON (json.RawMessage, which the SDK marshals
// verbatim); everything else is decoded by the SDK.
package exactjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawMembers are the members of a CallToolResult that hold arbitrary JSON.
var rawMembers = []string{"structuredContent", "_meta"}

// Split separates a CallToolResult's arbitrary-JSON members from the rest: rest is the
// result without them (safe for the SDK to decode), structured and meta are their raw JSON
// (nil if absent or null).
func Split(data []byte) (rest []byte, structured, meta json.RawMessage, err error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, nil, nil, err
	}
	if fields == nil {
		return nil, nil, nil, errors.New("result is null, not an object")
	}
	structured, meta = nonNull(fields["structuredContent"]), nonNull(fields["_meta"])
	for _, k := range rawMembers {
		delete(fields, k)
	}
	rest, err = json.Marshal(fields)
	return rest, structured, meta, err
}

func nonNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return b
}

// Restore sets res.StructuredContent and res.Meta from their raw JSON (as Split returned
// them), compacted but with every number as written.
func Restore(res *mcp.CallToolResult, structured, meta json.RawMessage) error {
	if structured != nil {
		var b bytes.Buffer
		if err := json.Compact(&b, structured); err != nil {
			return fmt.Errorf("structuredContent: %w", err)
		}
		res.StructuredContent = json.RawMessage(b.Bytes())
	}
	if meta != nil {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(meta, &m); err != nil {
			return fmt.Errorf("_meta: %w", err)
		}
		res.Meta = make(mcp.Meta, len(m))
		for k, v := range m {
			res.Meta[k] = v
		}
	}
	return nil
}

// DecodeToolResult decodes a CallToolResult with structuredContent and the values of _meta
// kept as raw JSON.
func DecodeToolResult(data []byte) (*mcp.CallToolResult, error) {
	rest, sc, meta, err := Split(data)
	if err != nil {
		return nil, err
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(rest, &res); err != nil {
		return nil, err
	}
	if err := Restore(&res, sc, meta); err != nil {
		return nil, err
	}
	return &res, nil
}
