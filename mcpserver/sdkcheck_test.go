package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addToSDK hands v to a fresh SDK server's Add* and returns what it panicked with, or nil.
func addToSDK(v any) (panicked any) {
	defer func() { panicked = recover() }()
	s := mcp.NewServer(&mcp.Implementation{Name: "probe"}, nil)
	switch v := v.(type) {
	case *mcp.Tool:
		s.AddTool(v, nil)
	case *mcp.Resource:
		s.AddResource(v, nil)
	case *mcp.ResourceTemplate:
		s.AddResourceTemplate(v, nil)
	case *mcp.Prompt:
		s.AddPrompt(v, nil)
	}
	return nil
}

// mapSchema is deepSchema as an upstream's tool carries it (decoded JSON, not text).
func mapSchema(levels int) map[string]any {
	m := map[string]any{"type": "object"}
	for range levels {
		m = map[string]any{"type": "object", "properties": map[string]any{"a": m}}
	}
	return m
}

// checkForSDK refuses each value the SDK panics on, naming the problem, and accepts the
// values next to them. The panicking cases are checked against the SDK itself, so an SDK
// upgrade that changes a condition shows here.
func TestCheckForSDK(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	obj := raw(`{"type":"object"}`)
	deep := func(levels int) json.RawMessage {
		return raw(strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"object"}` + strings.Repeat(`}}`, levels))
	}
	tests := []struct {
		name   string
		v      any
		want   string // "" accepted
		panics bool   // the SDK panics on it
	}{
		{"ok tool", &mcp.Tool{Name: "t", InputSchema: obj}, "", false},
		{"schema 1000 deep", &mcp.Tool{Name: "t", InputSchema: deep(499)}, "", false},
		{"schema 1003 deep", &mcp.Tool{Name: "t", InputSchema: deep(501)}, "inputSchema nests deeper than 1000 levels", true},
		{"upstream schema 1001 levels", &mcp.Tool{Name: "t", InputSchema: mapSchema(1001)}, "inputSchema nests deeper than 1000 levels", true},
		{"output schema too deep", &mcp.Tool{Name: "t", InputSchema: obj, OutputSchema: deep(501)}, "outputSchema nests deeper than 1000 levels", true},
		{"no input schema", &mcp.Tool{Name: "t"}, "inputSchema is missing", true},
		{"input schema not an object", &mcp.Tool{Name: "t", InputSchema: raw(`[]`)}, `inputSchema is not a JSON object: json: cannot unmarshal "[]" into Go value of type map[string]interface {}`, true},
		{"input schema null", &mcp.Tool{Name: "t", InputSchema: raw(`null`)}, "inputSchema is not a JSON object: null", true},
		{"input schema of type string", &mcp.Tool{Name: "t", InputSchema: raw(`{"type":"string"}`)}, `inputSchema must have type "object" (got string)`, true},
		{"number the SDK cannot decode", &mcp.Tool{Name: "t", InputSchema: raw(`{"type":"object","x-n":1e400}`)},
			`inputSchema is not a JSON object: json: cannot unmarshal "1e400" into Go struct field map[string]interface {}.x-n of type float64`, true},
		{"header on an object", &mcp.Tool{Name: "t", InputSchema: raw(`{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}`)},
			`inputSchema property "a": x-mcp-header can only be applied to string, integer or boolean properties`, true},
		{"header not a token", &mcp.Tool{Name: "t", InputSchema: raw(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`)},
			`inputSchema property "a": x-mcp-header must be a non-empty HTTP header name`, true},
		{"header null", &mcp.Tool{Name: "t", InputSchema: raw(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":null}}}`)},
			`inputSchema property "a": x-mcp-header must be a non-empty HTTP header name`, true},
		{"header repeated deeper", &mcp.Tool{Name: "t", InputSchema: raw(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"H"},"b":{"type":"object","properties":{"c":{"type":"integer","x-mcp-header":"h"}}}}}`)},
			`x-mcp-header`, true},
		{"header ok", &mcp.Tool{Name: "t", InputSchema: raw(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X-A"}}}`)}, "", false},
		{"empty tool name", &mcp.Tool{InputSchema: obj}, "name is empty", false},
		{"resource uri", &mcp.Resource{URI: "not a uri ::", Name: "r"}, `uri is not a URI: parse "not a uri ::": first path segment in URL cannot contain colon`, true},
		{"resource uri control", &mcp.Resource{URI: "x://a\x7f", Name: "r"}, `uri is not a URI: parse "x://a\x7f": net/url: invalid control character in URL`, true},
		{"resource ok", &mcp.Resource{URI: "test://a", Name: "r"}, "", false},
		{"resource empty uri", &mcp.Resource{Name: "r"}, "uri is empty", false},
		{"template invalid", &mcp.ResourceTemplate{URITemplate: "test://{a", Name: "r"}, `uriTemplate is not an RFC 6570 URI template: incomplete expression: test://{a_`, true},
		{"template ok", &mcp.ResourceTemplate{URITemplate: "test://{a}", Name: "r"}, "", false},
		{"empty prompt name", &mcp.Prompt{}, "name is empty", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := checkForSDK(tt.v); err != nil {
				got = err.Error()
			}
			if got != tt.want && !(tt.want == "x-mcp-header" && strings.Contains(got, "repeats another")) {
				t.Errorf("checkForSDK = %q, want %q", got, tt.want)
			}
			if p := addToSDK(tt.v); (p != nil) != tt.panics {
				t.Errorf("the SDK panics: %v, want %v (%v)", p != nil, tt.panics, p)
			}
		})
	}
}

// FuzzRegisterManifest: whatever a guest's manifest holds, the values AddGuest makes of it
// either fail checkForSDK (a load error) or register on the SDK without a panic.
func FuzzRegisterManifest(f *testing.F) {
	for _, s := range []string{
		`{"name":"g","tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X-A"}}}}]}`,
		`{"name":"g","tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}}],"resources":[{"uri":"not a uri ::","name":"r"}]}`,
		`{"name":"g","resourceTemplates":[{"uriTemplate":"x://{a}{?b,c}","name":"t"}],"prompts":[{"name":"p","arguments":[{"name":"a"}]}]}`,
		`{"name":"g","tools":[{"name":"","inputSchema":{"type":"object","x":1e400},"annotations":{"title":"x"},"icons":[{"src":"x"}]}]}`,
		`{"name":"g","tools":[{"name":"t","inputSchema":` + strings.Repeat(`{"type":"object","properties":{"a":`, 500) + `{}` + strings.Repeat(`}}`, 500) + `}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, manifest []byte) {
		var m abi.Manifest
		if json.Unmarshal(manifest, &m) != nil {
			return
		}
		v, err := sdkValues("g", &m)
		if err != nil {
			return
		}
		s := mcp.NewServer(&mcp.Implementation{Name: "fuzz"}, nil)
		add := func(kind, name string, add func()) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s %q passed checkForSDK but the SDK panicked: %v", kind, name, r)
				}
			}()
			add()
		}
		for _, tl := range v.tools {
			add("tool", tl.Name, func() { s.AddTool(tl, nil) })
		}
		for _, r := range v.resources {
			add("resource", r.URI, func() { s.AddResource(r, nil) })
		}
		for _, r := range v.templates {
			add("resource template", r.URITemplate, func() { s.AddResourceTemplate(r, nil) })
		}
		for _, p := range v.prompts {
			add("prompt", p.Name, func() { s.AddPrompt(p, nil) })
		}
	})
}
