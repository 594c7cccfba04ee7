package mcpserver

import (
	"encoding/json"
	"fmt"
)

// contentFields are the fields the MCP schema requires of each content block type beyond
// "type" (2025-06-18 and 2025-11-25 alike: TextContent, ImageContent, AudioContent,
// ResourceLink, EmbeddedResource). A field listed with nonEmpty must also not be "": an empty
// media type, URI or name names nothing, and clients that forward such a block pass the model
// data it cannot use.
var contentFields = map[string][]struct {
	name     string
	nonEmpty bool
}{
	"text":          {{"text", false}},
	"image":         {{"data", false}, {"mimeType", true}},
	"audio":         {{"data", false}, {"mimeType", true}},
	"resource_link": {{"uri", true}, {"name", true}},
	"resource":      {{"resource", false}},
}

// checkContentFields reports the first content block of a guest's CallToolResult JSON that
// lacks a field the schema requires (see contentFields), naming the block and the field:
// `content[0] (image): mimeType is missing`. Block types the schema does not know are left to
// the decoder, which refuses them.
func checkContentFields(out []byte) error {
	var res struct {
		Content []map[string]json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return err
	}
	for i, b := range res.Content {
		var typ string
		if json.Unmarshal(b["type"], &typ) != nil {
			continue
		}
		for _, f := range contentFields[typ] {
			if err := requireField(b, f.name, f.nonEmpty); err != nil {
				return fmt.Errorf("content[%d] (%s): %w", i, typ, err)
			}
		}
		if typ == "resource" {
			if err := checkEmbeddedResource(b["resource"]); err != nil {
				return fmt.Errorf("content[%d] (resource): %w", i, err)
			}
		}
	}
	return nil
}

// requireField checks that obj[name] is present and a JSON string (non-empty if nonEmpty);
// "resource" must be an object.
func requireField(obj map[string]json.RawMessage, name string, nonEmpty bool) error {
	raw, ok := obj[name]
	if !ok || string(raw) == "null" {
		return fmt.Errorf("%s is missing", name)
	}
	if name == "resource" {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return fmt.Errorf("%s is not an object", name)
		}
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return fmt.Errorf("%s is not a string", name)
	}
	if nonEmpty && s == "" {
		return fmt.Errorf("%s is empty", name)
	}
	return nil
}

// checkEmbeddedResource checks an EmbeddedResource's resource: TextResourceContents (uri,
// text) or BlobResourceContents (uri, blob).
func checkEmbeddedResource(raw json.RawMessage) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	if err := requireField(m, "uri", true); err != nil {
		return fmt.Errorf("resource.%w", err)
	}
	_, text := m["text"]
	_, blob := m["blob"]
	if !text && !blob {
		return fmt.Errorf("resource has neither text nor blob")
	}
	for _, f := range []string{"text", "blob"} {
		if _, ok := m[f]; ok {
			if err := requireField(m, f, false); err != nil {
				return fmt.Errorf("resource.%w", err)
			}
		}
	}
	return nil
}
