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

	"github.com/mcpwasm/mcpwasm/internal/jsonwire"

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
	if res, ok := DecodeTextResult(data); ok {
		return res, nil
	}
	return decodeSDK(data)
}

// decodeSDK is DecodeToolResult through the SDK's decoding, for every shape.
func decodeSDK(data []byte) (*mcp.CallToolResult, error) {
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

// DecodeTextResult decodes, in one pass over data, the CallToolResult most tools return:
// members content, isError, structuredContent and _meta only, each spelled without escapes and
// given once; content an array of {"type":"text","text":"…"} blocks with no other member;
// isError true or false. ok is false for any other input, which DecodeToolResult decodes
// through the SDK, with its errors. What DecodeTextResult returns marshals to the bytes the
// SDK's decoding marshals to (FuzzDecodeTextResult). Every text block has its text, so a
// result it accepts has the fields the MCP schema requires of its content.
//
// It exists for speed: the SDK's decoding parses the result three times and allocates a 32 KiB
// buffer per call (go-sdk internal/json over segmentio's Decoder), 20 µs of a 100-byte
// tools/call over stdio.
func DecodeTextResult(data []byte) (res *mcp.CallToolResult, ok bool) {
	if !json.Valid(data) || jsonwire.Kind(jsonwire.TrimWS(data)) != '{' {
		return nil, false
	}
	var sc, meta json.RawMessage
	var seen [4]bool
	ok = true
	res = &mcp.CallToolResult{}
	jsonwire.ForEachMember(data, func(key []byte, vs, ve int) {
		v := data[vs:ve]
		k := textResultMember(key)
		if !ok || k < 0 || seen[k] {
			ok = false
			return
		}
		seen[k] = true
		switch k {
		case 0:
			res.Content, ok = textBlocks(v)
		case 1:
			switch string(v) {
			case "true":
				res.IsError = true
			case "false":
			default:
				ok = false
			}
		case 2:
			sc = nonNull(v)
		case 3:
			meta = nonNull(v)
		}
	})
	if !ok || Restore(res, sc, meta) != nil {
		return nil, false
	}
	if res.Content == nil {
		res.Content = []mcp.Content{} // as the SDK decodes a result without content
	}
	return res, true
}

// textResultMember is the index of a raw key literal among the members DecodeTextResult
// takes, or -1.
func textResultMember(key []byte) int {
	switch string(key) {
	case `"content"`:
		return 0
	case `"isError"`:
		return 1
	case `"structuredContent"`:
		return 2
	case `"_meta"`:
		return 3
	}
	return -1
}

// textBlocks decodes a content array of text blocks ({"type":"text","text":"…"} and nothing
// else); ok is false for anything else.
func textBlocks(v []byte) (blocks []mcp.Content, ok bool) {
	if jsonwire.Kind(v) != '[' {
		return nil, false
	}
	ok = true
	blocks = []mcp.Content{}
	jsonwire.ForEachElement(v, func(es, ee int) {
		b := v[es:ee]
		if !ok || jsonwire.Kind(b) != '{' {
			ok = false
			return
		}
		var typ, text bool
		block := &mcp.TextContent{}
		jsonwire.ForEachMember(b, func(key []byte, vs, ve int) {
			switch val := b[vs:ve]; {
			case !ok:
			case string(key) == `"type"` && !typ && string(val) == `"text"`:
				typ = true
			case string(key) == `"text"` && !text:
				block.Text, text = jsonwire.DecodeString(val)
				ok = text
			default:
				ok = false
			}
		})
		ok = ok && typ && text
		blocks = append(blocks, block)
	})
	return blocks, ok
}
