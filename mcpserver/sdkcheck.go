package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	sdkjson "github.com/segmentio/encoding/json"
	"github.com/yosida95/uritemplate/v3"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What the MCP Go SDK panics on. mcp.Server's AddTool, AddResource and AddResourceTemplate
// panic on a value they cannot use (go-sdk v1.8.0, server.go), and every value we hand them
// comes from a guest's manifest or an upstream's tools/list. checkForSDK is the one gate in
// front of every Add* call (AddGuest, ReplaceGuest and Expose go through it): it refuses, with
// an error, each condition under which the SDK would panic, and a few it would accept but that
// no client can use (an empty name). Keep it in step with the SDK when upgrading;
// FuzzRegisterManifest checks that nothing it passes makes the SDK panic.
//
// The SDK's conditions, by call:
//   - AddTool: the input schema is missing; it does not marshal to JSON, or that JSON nests
//     deeper than sdkMaxDepth, or does not decode (with the SDK's decoder) into a JSON object,
//     or its "type" is not "object"; the output schema does not marshal, nests too deep, or
//     does not decode; an "x-mcp-header" annotation in the input schema's properties (at any
//     depth of "properties") is on a non-primitive property, is not a non-empty HTTP token, or
//     repeats another (case-insensitively). An invalid name is only logged by the SDK.
//   - AddResource: the URI does not parse (url.Parse).
//   - AddResourceTemplate: the URI template does not parse (RFC 6570).
//   - AddPrompt: nothing; the name is its key.

// sdkMaxDepth is the SDK's JSON nesting limit (internal/json: objects and arrays deeper than
// this fail to decode).
const sdkMaxDepth = 1000

// checkForSDK reports why v — a *mcp.Tool, *mcp.Resource, *mcp.ResourceTemplate or
// *mcp.Prompt — must not be handed to the SDK, or nil. The error does not name v; callers
// add the guest or upstream and the tool.
func checkForSDK(v any) error {
	switch v := v.(type) {
	case *mcp.Tool:
		return checkToolForSDK(v)
	case *mcp.Resource:
		if v.URI == "" {
			return errors.New("uri is empty")
		}
		if _, err := url.Parse(v.URI); err != nil {
			return fmt.Errorf("uri is not a URI: %w", err)
		}
		if v.Name == "" {
			return errors.New("name is empty")
		}
	case *mcp.ResourceTemplate:
		if v.URITemplate == "" {
			return errors.New("uriTemplate is empty")
		}
		if _, err := uritemplate.New(v.URITemplate); err != nil {
			return fmt.Errorf("uriTemplate is not an RFC 6570 URI template: %w", err)
		}
		if v.Name == "" {
			return errors.New("name is empty")
		}
	case *mcp.Prompt:
		if v.Name == "" {
			return errors.New("name is empty")
		}
	default:
		return fmt.Errorf("%T is not an MCP feature", v)
	}
	return nil
}

func checkToolForSDK(t *mcp.Tool) error {
	if t.Name == "" {
		return errors.New("name is empty")
	}
	if t.InputSchema == nil {
		return errors.New("inputSchema is missing")
	}
	in, err := sdkSchemaJSON("inputSchema", t.InputSchema)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := sdkUnmarshal(in, &m); err != nil || m == nil {
		return fmt.Errorf("inputSchema is not a JSON object: %v", errOr(err, "null"))
	}
	if m["type"] != "object" {
		return fmt.Errorf(`inputSchema must have type "object" (got %v)`, m["type"])
	}
	if t.OutputSchema != nil {
		out, err := sdkSchemaJSON("outputSchema", t.OutputSchema)
		if err != nil {
			return err
		}
		var v any
		if err := sdkUnmarshal(out, &v); err != nil {
			return fmt.Errorf("outputSchema: %w", err)
		}
	}
	return checkHeaderAnnotations(m)
}

// sdkSchemaJSON marshals a schema as the SDK does, refusing JSON nested deeper than it reads.
func sdkSchemaJSON(field string, schema any) ([]byte, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	if d := jsonDepth(b); d > sdkMaxDepth {
		return nil, fmt.Errorf("%s nests deeper than %d levels", field, sdkMaxDepth)
	}
	return b, nil
}

// sdkUnmarshal decodes as the SDK's internal/json does (the same decoder, with exact field
// names), after the depth check the caller made.
func sdkUnmarshal(b []byte, v any) error {
	d := sdkjson.NewDecoder(strings.NewReader(string(b)))
	d.DontMatchCaseInsensitiveStructFields()
	return d.Decode(v)
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// jsonDepth is the deepest nesting of objects and arrays in the JSON text b.
func jsonDepth(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// checkHeaderAnnotations checks the "x-mcp-header" annotations of a tool's input schema (its
// "properties", recursively) as the SDK does when adding the tool (SEP-2243): each on a
// string, integer or boolean property, a non-empty HTTP token, none repeated ignoring case.
// It is stricter than the SDK where the SDK gives up (a property whose "type" is not a
// string makes it skip every check): such an annotation is refused too.
func checkHeaderAnnotations(schema map[string]any) error {
	seen := map[string]bool{}
	var walk func(props any, prefix string) error
	walk = func(props any, prefix string) error {
		pm, _ := props.(map[string]any)
		for name, p := range pm {
			path := name
			if prefix != "" {
				path = prefix + "." + name
			}
			prop, _ := p.(map[string]any)
			if prop == nil {
				continue
			}
			if h, ok := prop["x-mcp-header"]; ok { // null too: the SDK reads it as ""
				if typ := prop["type"]; typ != "string" && typ != "integer" && typ != "boolean" {
					return fmt.Errorf("inputSchema property %q: x-mcp-header can only be applied to string, integer or boolean properties", path)
				}
				hs, _ := h.(string)
				if hs == "" || !isHTTPToken(hs) {
					return fmt.Errorf("inputSchema property %q: x-mcp-header must be a non-empty HTTP header name", path)
				}
				if seen[strings.ToLower(hs)] {
					return fmt.Errorf("inputSchema property %q: x-mcp-header %q repeats another", path, hs)
				}
				seen[strings.ToLower(hs)] = true
			}
			if err := walk(prop["properties"], path); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(schema["properties"], "")
}

// isHTTPToken reports whether s is an RFC 9110 token (an HTTP field name).
func isHTTPToken(s string) bool {
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", c):
		default:
			return false
		}
	}
	return true
}
