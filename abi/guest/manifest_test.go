package guest

import (
	"encoding/json"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
)

const odd = "a<b>&\"\\\n\u2028é\xff"

// TestAppendManifest compares appendManifest with json.Marshal, which describe used.
func TestAppendManifest(t *testing.T) {
	full := abi.Manifest{Name: odd, Version: "1.0.0", Description: odd,
		Tools: []abi.Tool{
			{Name: "t", InputSchema: json.RawMessage(" { \"type\" : \"object\", \"description\": \"<&>\u2028\" } ")},
			{Name: "u", Title: odd, Description: odd, InputSchema: json.RawMessage(`{}`), OutputSchema: json.RawMessage(`{"a":[1, 2]}`),
				Annotations: json.RawMessage(`{"readOnlyHint":true}`), Icons: json.RawMessage(`[]`),
				Requests: abi.Requests{Net: []string{"a.com", odd}, Exec: []string{"/bin/x"}, FS: []abi.FSRequest{{Path: "/a"}, {Path: odd, RW: true}},
					Env: []string{"X"}, Clock: true, Random: true, MCP: []string{"m"}, Sampling: true, Elicitation: true, Roots: true}},
			{Name: "v", InputSchema: json.RawMessage(`{}`), Requests: abi.Requests{Net: []string{}}},
			{Name: "w", InputSchema: json.RawMessage(`{}`), Requests: abi.Requests{Roots: true}},
			{Name: "app", InputSchema: json.RawMessage(`{}`), Meta: json.RawMessage(` {"ui": {"resourceUri": "ui://a/<b>&"}, "ui/resourceUri": "ui://a"} `), Requests: abi.Requests{Clock: true}},
		},
		Resources: []abi.Resource{{URI: "x://a", Name: "a"}, {URI: odd, Name: odd, Title: odd, Description: odd, MIMEType: "text/plain"},
			{URI: "ui://a", Name: "v", MIMEType: "text/html;profile=mcp-app", Meta: json.RawMessage(`{"ui": {"prefersBorder": true, "csp": {"connectDomains": ["https://<x>"]}}}`)}},
		ResourceTemplates: []abi.ResourceTemplate{{URITemplate: "x://{a}", Name: "t", Title: "T", Description: "d", MIMEType: "m"},
			{URITemplate: "ui://{a}", Name: "u", Meta: json.RawMessage(`{"k":1}`)}},
		Prompts: []abi.Prompt{{Name: "p"}, {Name: "q", Title: odd, Description: "d",
			Arguments: []abi.PromptArgument{{Name: "a"}, {Name: "b", Title: "B", Description: odd, Required: true}}}},
		Completions: true, Requests: abi.Requests{Clock: true, FS: []abi.FSRequest{}},
	}
	for _, m := range []abi.Manifest{{Tools: []abi.Tool{}}, {Name: "x", Tools: []abi.Tool{}, Resources: []abi.Resource{}}, full} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendManifest(nil, &m)
		if err != nil || string(got) != string(want) {
			t.Errorf("appendManifest =\n%s, %v\njson.Marshal =\n%s", got, err, want)
		}
	}
	bad := abi.Manifest{Tools: []abi.Tool{{Name: "x", InputSchema: json.RawMessage(`{"a":}`)}}}
	_, wantErr := json.Marshal(bad)
	if _, err := appendManifest(nil, &bad); err == nil || err.Error() != wantErr.Error() {
		t.Errorf("appendManifest of an invalid schema: %v, want %v", err, wantErr)
	}
}

// TestAppendResults compares the encoders of read, prompt, complete and error bodies with
// encoding/json without HTML escaping, which those exports used.
func TestAppendResults(t *testing.T) {
	check := func(got []byte, v any) {
		t.Helper()
		want, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	for _, r := range []*abi.ResourceResult{nil, {}, {Contents: []abi.ResourceContents{}},
		{Contents: []abi.ResourceContents{{URI: odd}, {URI: "x", MIMEType: odd, Text: odd, Blob: []byte("\x00\xffblob")}}},
		{Contents: []abi.ResourceContents{{URI: "ui://v", MIMEType: "text/html;profile=mcp-app", Text: "<p>&</p>", Meta: json.RawMessage(` {"ui": {"prefersBorder": false, "csp": {"resourceDomains": ["https://<cdn>"]}}} `)}}}} {
		check(appendResourceResult(nil, r), r)
	}
	contents := []abi.Content{{Type: "text"}, {Type: "text", Text: odd}, {Type: "image", Data: []byte{1, 2, 3}, MIMEType: "image/png"},
		{Type: "resource_link", URI: odd, Name: odd, MIMEType: "m", Text: "t"},
		{Type: "resource", Resource: &abi.ResourceContents{URI: "u", Text: odd, Blob: []byte("b")}}}
	for _, r := range []*abi.PromptResult{nil, {}, {Description: odd, Messages: []abi.PromptMessage{}},
		{Messages: []abi.PromptMessage{{Role: "user", Content: contents[0]}, {Role: odd, Content: contents[1]}, {Role: "assistant", Content: contents[2]},
			{Role: "user", Content: contents[3]}, {Role: "user", Content: contents[4]}}}} {
		check(appendPromptResult(nil, r), r)
	}
	for _, c := range []abi.Completion{{Values: []string{}}, {Values: []string{"a", odd}, Total: 7, HasMore: true}} {
		check(appendCompleteResult(nil, &c), abi.CompleteResult{Completion: c})
	}
	for _, e := range []abi.ErrorBody{{Error: odd}, {Error: "x", Code: abi.CodeInvalidParams}} {
		check(appendErrorBody(nil, e.Error, e.Code), e)
	}
	// A result's embedded resource, as json.Marshal wrote it (HTML-escaped).
	res := &abi.Content{Type: "resource", Resource: &abi.ResourceContents{URI: "<u>", Text: "&"}}
	wantRes, _ := json.Marshal(res.Resource)
	if got := string(appendContent(nil, res)); got != `{"type":"resource","resource":`+string(wantRes)+`}` {
		t.Errorf("embedded resource = %s, want resource %s", got, wantRes)
	}
}
