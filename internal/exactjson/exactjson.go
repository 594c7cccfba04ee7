// Package exactjson decodes MCP results without changing a JSON number. The SDK decodes
// CallToolResult.structuredContent and _meta into `any`, where every number becomes a
// float64: integers above 2^53 are rounded and a valid number beyond float64's range (1e400)
// is an error. Here those members, and the _meta of each content block and embedded resource,
// stay raw JSON (json.RawMessage, which the SDK marshals verbatim); everything else is decoded
// by the SDK, after Check has refused, with a readable reason, what is not a CallToolResult
// (wrong types, unknown block types, duplicate keys).
package exactjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/internal/jsonwire"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Exact holds the members of a CallToolResult that hold arbitrary JSON, as Split took them
// out: structuredContent, _meta, and each content block's _meta and its embedded resource's
// _meta. A nil member was absent or null.
type Exact struct {
	Structured, Meta json.RawMessage
	Blocks           []BlockMeta // by content index; shorter than content when the rest have none
}

// BlockMeta is one content block's _meta and, for an embedded resource, resource._meta.
type BlockMeta struct{ Meta, ResourceMeta json.RawMessage }

// Split separates a CallToolResult's arbitrary-JSON members (Exact) from the rest: rest is the
// result reduced to the members the SDK reads besides them (content, isError, resultType), and
// each content block to the members its type defines (type, annotations and those of
// blockFields), which is safe for the SDK to decode. An
// error says data is not a JSON object; Split does not Check it.
func Split(data []byte) (rest []byte, x *Exact, err error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, nil, fmt.Errorf("the result is %s, want an object", kindName(jsonwire.TrimWS(data)))
	}
	if fields == nil {
		return nil, nil, errors.New("the result is null, want an object")
	}
	x = &Exact{Structured: nonNull(fields["structuredContent"]), Meta: nonNull(fields["_meta"])}
	for k := range fields { // the SDK reads no other member: the rest would be dropped anyway
		if k != "content" && k != "isError" && k != "resultType" {
			delete(fields, k)
		}
	}
	if c := fields["content"]; jsonwire.Kind(jsonwire.TrimWS(c)) == '[' {
		var blocks []json.RawMessage
		if err := json.Unmarshal(c, &blocks); err != nil {
			return nil, nil, err
		}
		for i, b := range blocks {
			var bm BlockMeta
			if blocks[i], bm, err = splitBlock(b); err != nil {
				return nil, nil, err
			}
			if bm.Meta != nil || bm.ResourceMeta != nil {
				x.Blocks = append(x.Blocks, make([]BlockMeta, i+1-len(x.Blocks))...)
				x.Blocks[i] = bm
			}
		}
		if fields["content"], err = json.Marshal(blocks); err != nil {
			return nil, nil, err
		}
	}
	rest, err = json.Marshal(fields)
	return rest, x, err
}

// splitBlock takes a content block's _meta (and resource._meta) out of it and drops the
// members its type does not define; a block that is not an object of a known type is left
// as it is, for the SDK to refuse.
func splitBlock(b json.RawMessage) (json.RawMessage, BlockMeta, error) {
	var m map[string]json.RawMessage
	if jsonwire.Kind(jsonwire.TrimWS(b)) != '{' || json.Unmarshal(b, &m) != nil {
		return b, BlockMeta{}, nil
	}
	var typ string
	if json.Unmarshal(m["type"], &typ) != nil {
		return b, BlockMeta{}, nil
	}
	fields, ok := blockFields[typ]
	if !ok {
		return b, BlockMeta{}, nil
	}
	var bm BlockMeta
	bm.Meta = nonNull(m["_meta"])
	keep := map[string]json.RawMessage{"type": m["type"]}
	if a, ok := m["annotations"]; ok {
		keep["annotations"] = a
	}
	for _, f := range fields {
		if v, ok := m[f.name]; ok {
			keep[f.name] = v
		}
	}
	if r := keep["resource"]; jsonwire.Kind(jsonwire.TrimWS(r)) == '{' {
		var rm map[string]json.RawMessage
		if err := json.Unmarshal(r, &rm); err != nil {
			return nil, bm, err
		}
		bm.ResourceMeta = nonNull(rm["_meta"])
		delete(rm, "_meta")
		var err error
		if keep["resource"], err = json.Marshal(rm); err != nil {
			return nil, bm, err
		}
	}
	out, err := json.Marshal(keep)
	return out, bm, err
}

func nonNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return b
}

// Restore sets res's arbitrary-JSON members from x (as Split took them out of the result
// res was decoded from: valid JSON, which Restore does not check again): StructuredContent compacted but with every number as written, and
// each _meta a mcp.Meta whose values are json.RawMessage.
func (x *Exact) Restore(res *mcp.CallToolResult) error {
	if sc := x.Structured; sc != nil {
		if !jsonwire.Compacted(sc) { // valid JSON, as Split took it: Compact would not change it
			var b bytes.Buffer
			if err := json.Compact(&b, sc); err != nil {
				return fmt.Errorf("structuredContent: %w", err)
			}
			sc = b.Bytes()
		}
		res.StructuredContent = json.RawMessage(ValidUTF8(sc))
	}
	var err error
	if res.Meta, err = rawMeta("_meta", x.Meta, res.Meta); err != nil {
		return err
	}
	for i, bm := range x.Blocks {
		if i >= len(res.Content) {
			break
		}
		at := "content[" + strconv.Itoa(i) + "]._meta"
		switch c := res.Content[i].(type) {
		case *mcp.TextContent:
			c.Meta, err = rawMeta(at, bm.Meta, c.Meta)
		case *mcp.ImageContent:
			c.Meta, err = rawMeta(at, bm.Meta, c.Meta)
		case *mcp.AudioContent:
			c.Meta, err = rawMeta(at, bm.Meta, c.Meta)
		case *mcp.ResourceLink:
			c.Meta, err = rawMeta(at, bm.Meta, c.Meta)
		case *mcp.EmbeddedResource:
			if c.Meta, err = rawMeta(at, bm.Meta, c.Meta); err == nil && c.Resource != nil {
				c.Resource.Meta, err = rawMeta("content["+strconv.Itoa(i)+"].resource._meta", bm.ResourceMeta, c.Resource.Meta)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// rawMeta decodes a _meta object into a mcp.Meta of json.RawMessage values; nil raw leaves
// old.
func rawMeta(at string, raw json.RawMessage, old mcp.Meta) (mcp.Meta, error) {
	if raw == nil {
		return old, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %s, want an object", at, kindName(jsonwire.TrimWS(raw)))
	}
	meta := make(mcp.Meta, len(m))
	for k, v := range m {
		meta[k] = json.RawMessage(ValidUTF8(v))
	}
	return meta, nil
}

// ValidUTF8 returns raw JSON with each byte that is not part of valid UTF-8 replaced by
// U+FFFD, as encoding/json and the SDK do in the strings they decode; b itself if it is valid.
// Such bytes can only be inside string literals of valid JSON, so the result is valid JSON
// too, and it is UTF-8 as RFC 8259 §8.1 requires of JSON sent to another system. Escapes
// (a lone surrogate \ud800) are ASCII and stay as written.
func ValidUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = append(out, "\uFFFD"[:0]...)
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

// DecodeToolResult checks data (Check is the one place that decides what is refused: a
// refusal is its error, a readable reason naming the member) and decodes it as a
// CallToolResult with structuredContent and the values of every _meta (the result's, each
// content block's, each embedded resource's) kept as raw JSON: no number is changed. A result
// of text blocks takes DecodeTextResult's one pass.
func DecodeToolResult(data []byte) (*mcp.CallToolResult, error) {
	if res, ok := DecodeTextResult(data); ok {
		return res, nil
	}
	if err := Check(data); err != nil {
		return nil, err
	}
	return decodeSDK(data)
}

// decodeSDK is DecodeToolResult through the SDK's decoding, for every shape, without Check.
func decodeSDK(data []byte) (*mcp.CallToolResult, error) {
	rest, x, err := Split(data)
	if err != nil {
		return nil, err
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(rest, &res); err != nil {
		return nil, err
	}
	if err := x.Restore(&res); err != nil {
		return nil, err
	}
	return &res, nil
}

// DecodeTextResult decodes, in one pass over data, the CallToolResult most tools return:
// members content, isError, structuredContent and _meta only, each spelled without escapes and
// given once; content an array of {"type":"text","text":"…"} blocks with no other member;
// isError true or false; no key twice in structuredContent or _meta. ok is false for any
// other input, which DecodeToolResult checks (Check) and decodes through the SDK. What
// DecodeTextResult returns marshals to the bytes the SDK's decoding marshals to, and it takes
// only what Check accepts (FuzzDecodeTextResult). Every text block has its text, so a result
// it accepts has the fields the MCP schema requires of its content.
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
	if !ok || hasDuplicate(sc) || hasDuplicate(meta) || (&Exact{Structured: sc, Meta: meta}).Restore(res) != nil {
		return nil, false
	}
	if res.Content == nil {
		res.Content = []mcp.Content{} // as the SDK decodes a result without content
	}
	return res, true
}

// hasDuplicate reports whether the raw JSON v gives a key twice in some object.
func hasDuplicate(v []byte) bool {
	_, _, dup := jsonwire.DuplicateKey(v)
	return dup
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
