package guest

import (
	"encoding/base64"
	"strconv"

	"github.com/mcpwasm/mcpwasm/abi"
)

// This file encodes the SDK's other fixed shapes by hand — the manifest, resource and prompt
// results, completions, error bodies — byte for byte as encoding/json did: json.Marshal
// (HTML escaping on) for the manifest and anything abi.Content.MarshalJSON wrote, encoding/json
// without HTML escaping for the rest. manifest_test.go compares them on many values.

// appendStr appends s as a JSON string, HTML-escaped if html.
//
//go:noinline
func appendStr(dst []byte, s string, html bool) []byte {
	if html {
		return appendStringHTML(dst, s)
	}
	return appendString(dst, s)
}

// appendField appends ,"key": (without the comma for the first member).
//
//go:noinline
func appendField(dst []byte, first *bool, key string) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// appendOptStr appends "key":s unless s is empty (omitempty).
//
//go:noinline
func appendOptStr(dst []byte, first *bool, key, s string, html bool) []byte {
	if s == "" {
		return dst
	}
	return appendStr(appendField(dst, first, key), s, html)
}

// appendRaw appends a json.RawMessage as json.Marshal does: compacted, HTML-escaped. nil
// is null.
func appendRaw(dst []byte, raw []byte) ([]byte, error) {
	if raw == nil {
		return append(dst, "null"...), nil
	}
	dst, err := appendCompact(dst, raw, true)
	if err != nil {
		return dst, &wrapped{"json: error calling MarshalJSON for type json.RawMessage: " + err.Error(), err}
	}
	return dst, nil
}

func appendStrings(dst []byte, ss []string, html bool) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendStr(dst, s, html)
	}
	return append(dst, ']')
}

// appendManifest appends m as json.Marshal writes it.
func appendManifest(dst []byte, m *abi.Manifest) ([]byte, error) {
	first := true
	dst = append(dst, '{')
	dst = appendStr(appendField(dst, &first, "name"), m.Name, true)
	dst = appendOptStr(dst, &first, "version", m.Version, true)
	dst = appendOptStr(dst, &first, "description", m.Description, true)
	dst = appendField(dst, &first, "tools")
	if m.Tools == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
	}
	for i := range m.Tools {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendTool(dst, &m.Tools[i]); err != nil {
			return dst, err
		}
	}
	if m.Tools != nil {
		dst = append(dst, ']')
	}
	if len(m.Resources) > 0 {
		dst = append(appendField(dst, &first, "resources"), '[')
		for i, r := range m.Resources {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendResource(dst, "uri", r.URI, r.Name, r.Title, r.Description, r.MIMEType, r.Meta); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	if len(m.ResourceTemplates) > 0 {
		dst = append(appendField(dst, &first, "resourceTemplates"), '[')
		for i, r := range m.ResourceTemplates {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendResource(dst, "uriTemplate", r.URITemplate, r.Name, r.Title, r.Description, r.MIMEType, r.Meta); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	if len(m.Prompts) > 0 {
		dst = append(appendField(dst, &first, "prompts"), '[')
		for i := range m.Prompts {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendPrompt(dst, &m.Prompts[i])
		}
		dst = append(dst, ']')
	}
	if m.Completions {
		dst = append(appendField(dst, &first, "completions"), "true"...)
	}
	if !zeroRequests(&m.Requests) {
		dst = appendRequests(appendField(dst, &first, "requests"), &m.Requests)
	}
	return append(dst, '}'), nil
}

func appendTool(dst []byte, t *abi.Tool) ([]byte, error) {
	first := true
	dst = append(dst, '{')
	dst = appendStr(appendField(dst, &first, "name"), t.Name, true)
	dst = appendOptStr(dst, &first, "title", t.Title, true)
	dst = appendOptStr(dst, &first, "description", t.Description, true)
	var err error
	if dst, err = appendRaw(appendField(dst, &first, "inputSchema"), t.InputSchema); err != nil {
		return dst, err
	}
	for _, f := range [...]struct {
		key string
		raw []byte
	}{{"outputSchema", t.OutputSchema}, {"annotations", t.Annotations}, {"icons", t.Icons}, {"_meta", t.Meta}} {
		if len(f.raw) > 0 {
			if dst, err = appendRaw(appendField(dst, &first, f.key), f.raw); err != nil {
				return dst, err
			}
		}
	}
	if !zeroRequests(&t.Requests) {
		dst = appendRequests(appendField(dst, &first, "requests"), &t.Requests)
	}
	return append(dst, '}'), nil
}

func appendResource(dst []byte, uriKey, uri, name, title, description, mimeType string, meta []byte) ([]byte, error) {
	first := true
	dst = append(dst, '{')
	dst = appendStr(appendField(dst, &first, uriKey), uri, true)
	dst = appendStr(appendField(dst, &first, "name"), name, true)
	dst = appendOptStr(dst, &first, "title", title, true)
	dst = appendOptStr(dst, &first, "description", description, true)
	dst = appendOptStr(dst, &first, "mimeType", mimeType, true)
	if len(meta) > 0 {
		var err error
		if dst, err = appendRaw(appendField(dst, &first, "_meta"), meta); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func appendPrompt(dst []byte, p *abi.Prompt) []byte {
	first := true
	dst = append(dst, '{')
	dst = appendStr(appendField(dst, &first, "name"), p.Name, true)
	dst = appendOptStr(dst, &first, "title", p.Title, true)
	dst = appendOptStr(dst, &first, "description", p.Description, true)
	if len(p.Arguments) > 0 {
		dst = append(appendField(dst, &first, "arguments"), '[')
		for i, a := range p.Arguments {
			if i > 0 {
				dst = append(dst, ',')
			}
			f := true
			dst = append(dst, '{')
			dst = appendStr(appendField(dst, &f, "name"), a.Name, true)
			dst = appendOptStr(dst, &f, "title", a.Title, true)
			dst = appendOptStr(dst, &f, "description", a.Description, true)
			if a.Required {
				dst = append(appendField(dst, &f, "required"), "true"...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// zeroRequests is omitzero's test: every field zero (a non-nil empty slice is not).
func zeroRequests(r *abi.Requests) bool {
	return r.Net == nil && r.Exec == nil && r.FS == nil && r.Env == nil && !r.Clock && !r.Random &&
		r.MCP == nil && !r.Sampling && !r.Elicitation && !r.Roots
}

func appendRequests(dst []byte, r *abi.Requests) []byte {
	first := true
	dst = append(dst, '{')
	for _, f := range [...]struct {
		key string
		ss  []string
	}{{"net", r.Net}, {"exec", r.Exec}} {
		if len(f.ss) > 0 {
			dst = appendStrings(appendField(dst, &first, f.key), f.ss, true)
		}
	}
	if len(r.FS) > 0 {
		dst = append(appendField(dst, &first, "fs"), '[')
		for i, fs := range r.FS {
			if i > 0 {
				dst = append(dst, ',')
			}
			f := true
			dst = append(dst, '{')
			dst = appendStr(appendField(dst, &f, "path"), fs.Path, true)
			if fs.RW {
				dst = append(appendField(dst, &f, "rw"), "true"...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if len(r.Env) > 0 {
		dst = appendStrings(appendField(dst, &first, "env"), r.Env, true)
	}
	for _, f := range [...]struct {
		key string
		on  bool
	}{{"clock", r.Clock}, {"random", r.Random}} {
		if f.on {
			dst = append(appendField(dst, &first, f.key), "true"...)
		}
	}
	if len(r.MCP) > 0 {
		dst = appendStrings(appendField(dst, &first, "mcp"), r.MCP, true)
	}
	for _, f := range [...]struct {
		key string
		on  bool
	}{{"sampling", r.Sampling}, {"elicitation", r.Elicitation}, {"roots", r.Roots}} {
		if f.on {
			dst = append(appendField(dst, &first, f.key), "true"...)
		}
	}
	return append(dst, '}')
}

// appendResourceContents appends c as encoding/json writes it (HTML-escaped if html).
func appendResourceContents(dst []byte, c *abi.ResourceContents, html bool) []byte {
	first := true
	dst = append(dst, '{')
	dst = appendStr(appendField(dst, &first, "uri"), c.URI, html)
	dst = appendOptStr(dst, &first, "mimeType", c.MIMEType, html)
	dst = appendOptStr(dst, &first, "text", c.Text, html)
	if len(c.Blob) > 0 {
		dst = append(appendField(dst, &first, "blob"), '"')
		dst = base64.StdEncoding.AppendEncode(dst, c.Blob)
		dst = append(dst, '"')
	}
	if len(c.Meta) > 0 {
		// A _meta that is not JSON is written as it is; the host refuses the result, naming it.
		field := appendField(dst, &first, "_meta")
		if out, err := appendCompact(field, c.Meta, html); err == nil {
			dst = out
		} else {
			dst = append(field, c.Meta...)
		}
	}
	return append(dst, '}')
}

// appendResourceResult appends r as encoding/json without HTML escaping writes it.
func appendResourceResult(dst []byte, r *abi.ResourceResult) []byte {
	if r == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"contents":`...)
	if r.Contents == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range r.Contents {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendResourceContents(dst, &r.Contents[i], false)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendContentHTML appends c as abi.Content.MarshalJSON writes it (with json.Marshal, so
// HTML-escaped): a text block is exactly {"type","text"}; other blocks their non-empty fields.
func appendContentHTML(dst []byte, c *abi.Content) []byte {
	first := true
	dst = append(dst, '{')
	dst = appendStr(appendField(dst, &first, "type"), c.Type, true)
	if c.Type == "text" {
		dst = appendStr(appendField(dst, &first, "text"), c.Text, true)
		return append(dst, '}')
	}
	dst = appendOptStr(dst, &first, "text", c.Text, true)
	if len(c.Data) > 0 {
		dst = append(appendField(dst, &first, "data"), '"')
		dst = base64.StdEncoding.AppendEncode(dst, c.Data)
		dst = append(dst, '"')
	}
	dst = appendOptStr(dst, &first, "mimeType", c.MIMEType, true)
	dst = appendOptStr(dst, &first, "uri", c.URI, true)
	dst = appendOptStr(dst, &first, "name", c.Name, true)
	if c.Resource != nil {
		dst = appendResourceContents(appendField(dst, &first, "resource"), c.Resource, true)
	}
	return append(dst, '}')
}

// appendPromptResult appends r as encoding/json without HTML escaping writes it (its
// contents, written by abi.Content.MarshalJSON, are HTML-escaped).
func appendPromptResult(dst []byte, r *abi.PromptResult) []byte {
	if r == nil {
		return append(dst, "null"...)
	}
	first := true
	dst = append(dst, '{')
	dst = appendOptStr(dst, &first, "description", r.Description, false)
	dst = appendField(dst, &first, "messages")
	if r.Messages == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range r.Messages {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"role":`...)
			dst = appendString(dst, r.Messages[i].Role)
			dst = append(dst, `,"content":`...)
			dst = appendContentHTML(dst, &r.Messages[i].Content)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendErrorBody appends abi.ErrorBody{msg, code} as encoding/json without HTML escaping
// writes it.
func appendErrorBody(dst []byte, msg string, code int) []byte {
	dst = append(dst, `{"error":`...)
	dst = appendString(dst, msg)
	if code != 0 {
		dst = append(dst, `,"code":`...)
		dst = strconv.AppendInt(dst, int64(code), 10)
	}
	return append(dst, '}')
}

// appendCompleteResult appends abi.CompleteResult{c} as encoding/json without HTML escaping
// writes it.
func appendCompleteResult(dst []byte, c *abi.Completion) []byte {
	dst = append(dst, `{"completion":{"values":`...)
	dst = appendStrings(dst, c.Values, false)
	if c.Total != 0 {
		dst = append(dst, `,"total":`...)
		dst = strconv.AppendInt(dst, int64(c.Total), 10)
	}
	if c.HasMore {
		dst = append(dst, `,"hasMore":true`...)
	}
	return append(dst, '}', '}')
}
