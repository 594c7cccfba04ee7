// Command conformance is the mcpwasm guest behind the MCP conformance server suite
// (@modelcontextprotocol/conformance, .ci/conformance.sh) and the host's completion and
// subscription tests: the suite's test_* tools, resources (one subscribable), resource
// template, prompts, and completions for the prompt and the template, all through the Go
// guest SDK. Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -o conformance.wasm ./testdata/guests/conformance
//
// Behaviour the suite checks (texts, MIME types, argument names) follows the scenario texts
// of the suite (`conformance list --server`, the package's dist/index.js).
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// A 1x1 PNG and a short silent WAV, base64-decoded into the content blocks.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"
)

// watchedURI is the resource the suite subscribes to; tool test_update_resource announces a
// change to it (request kind resource.updated).
const watchedURI = "test://watched-resource"

const noArgs = `{"type":"object","properties":{}}`

func init() {
	guest.SetInfo("conformance", "1.0.0", "The tools, resources and prompts the MCP conformance server suite uses")
	// The client request kinds of the test_sampling, test_elicitation* and
	// test_input_required_result_* tools (ABI.md §6.7); .ci/conformance.sh grants them.
	guest.SetRequests(abi.Requests{Sampling: true, Elicitation: true, Roots: true})
	fixed := func(name, desc string, res *abi.Result) {
		guest.AddRawTool(abi.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(noArgs)},
			func(context.Context, json.RawMessage) (*abi.Result, error) { return res, nil })
	}
	png, wav := decode(pngBase64), decode(wavBase64)
	fixed("test_simple_text", "Returns one text block", abi.TextResult("This is a simple text response for testing."))
	fixed("test_image_content", "Returns a 1x1 PNG", &abi.Result{Content: []abi.Content{{Type: "image", Data: png, MIMEType: "image/png"}}})
	fixed("test_audio_content", "Returns a short silent WAV", &abi.Result{Content: []abi.Content{{Type: "audio", Data: wav, MIMEType: "audio/wav"}}})
	fixed("test_embedded_resource", "Returns an embedded text resource", &abi.Result{Content: []abi.Content{{Type: "resource",
		Resource: &abi.ResourceContents{URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}}}})
	fixed("test_multiple_content_types", "Returns text, image and resource blocks", &abi.Result{Content: []abi.Content{
		{Type: "text", Text: "Multiple content types test:"},
		{Type: "image", Data: png, MIMEType: "image/png"},
		{Type: "resource", Resource: &abi.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}},
	}})
	fixed("test_error_handling", "Always returns a tool error", abi.ErrorResult("This tool intentionally returns an error for testing"))

	guest.AddRawTool(abi.Tool{Name: "test_tool_with_logging", Description: "Logs three info lines, then returns", InputSchema: json.RawMessage(noArgs)},
		func(context.Context, json.RawMessage) (*abi.Result, error) {
			for _, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				guest.Log(abi.LevelInfo, msg)
			}
			return abi.TextResult("Tool with logging executed successfully"), nil
		})
	guest.AddRawTool(abi.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50, 100 of 100, then returns", InputSchema: json.RawMessage(noArgs)},
		func(context.Context, json.RawMessage) (*abi.Result, error) {
			for _, p := range []float64{0, 50, 100} {
				guest.Progress(p, 100, fmt.Sprintf("Completed step %.0f of 100", p))
			}
			return abi.TextResult("Tool with progress executed successfully"), nil
		})
	guest.AddRawTool(abi.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features",
		InputSchema: json.RawMessage(schema202012)},
		func(context.Context, json.RawMessage) (*abi.Result, error) {
			return abi.TextResult("JSON Schema 2020-12 tool called"), nil
		})
	guest.AddRawTool(abi.Tool{Name: "test_update_resource", Description: "Announces that " + watchedURI + " changed (resources/subscribe)",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string"}}}`)},
		func(_ context.Context, args json.RawMessage) (*abi.Result, error) {
			var in struct {
				URI string `json:"uri"`
			}
			_ = json.Unmarshal(args, &in)
			if in.URI == "" {
				in.URI = watchedURI
			}
			if err := guest.ResourceUpdated(in.URI); err != nil {
				return abi.ErrorResult(err.Error()), nil
			}
			return abi.TextResult("updated " + in.URI), nil
		})
	addDiagnosticTools()
	addClientRequestTools()
	addInputRequiredTools()
	addTaskTools() // tasks.go
	addResources()
	addPrompts()
}

// addDiagnosticTools adds the tools the 2026-07-28 scenarios probe the host with
// (server-stateless, http-custom-header-server-validation): the host, not the guest, must
// drop a log line the client did not ask for, send nothing but notifications on a response
// stream, and check Mcp-Param-* headers against x-mcp-header arguments (SEP-2243).
func addDiagnosticTools() {
	guest.AddRawTool(abi.Tool{Name: "test_logging_tool", Description: "Logs one info line; the host drops it unless the client asked for logs", InputSchema: json.RawMessage(noArgs)},
		func(context.Context, json.RawMessage) (*abi.Result, error) {
			guest.Log(abi.LevelInfo, "test_logging_tool executed")
			return abi.TextResult("Log attempted; the host gates it on the client's log level."), nil
		})
	guest.AddRawTool(abi.Tool{Name: "test_streaming_elicitation", Description: "Reports progress during the call, then returns a plain result", InputSchema: json.RawMessage(noArgs)},
		func(context.Context, json.RawMessage) (*abi.Result, error) {
			for _, p := range []float64{1, 2} {
				guest.Progress(p, 2, "streaming")
			}
			return abi.TextResult("Streaming completed without independent requests."), nil
		})
	guest.AddRawTool(abi.Tool{Name: "test_x_mcp_header", Description: "Tests SEP-2243 Mcp-Param-* server-side validation",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","description":"mirrored into Mcp-Param-Region","x-mcp-header":"Region"},"level":{"type":"integer","description":"non-mirrored argument"}}}`)},
		func(_ context.Context, args json.RawMessage) (*abi.Result, error) {
			return abi.TextResult("x-mcp-header arguments: " + string(args)), nil
		})
}

// addClientRequestTools adds the tools that ask the client something during the call:
// sampling and elicitation (request kinds "sampling" and "elicitation", which the host
// serves to guests whose operator grants them).
func addClientRequestTools() {
	ask := func(kind string, params any) (json.RawMessage, error) {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		return guest.Request(kind, b)
	}
	guest.AddRawTool(abi.Tool{Name: "test_sampling", Description: "Asks the client's LLM (sampling/createMessage)",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}`)},
		func(_ context.Context, args json.RawMessage) (*abi.Result, error) {
			var in struct {
				Prompt string `json:"prompt"`
			}
			_ = json.Unmarshal(args, &in)
			out, err := ask("sampling", map[string]any{
				"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": in.Prompt}}},
				"maxTokens": 100,
			})
			if err != nil {
				return abi.ErrorResult("sampling failed: " + err.Error()), nil
			}
			var res struct {
				Content struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			}
			_ = json.Unmarshal(out, &res)
			text := res.Content.Text
			if res.Content.Type != "text" {
				text = "(non-text response)"
			}
			return abi.TextResult("LLM response: " + text), nil
		})
	// The host, not the guest, must answer -32021 when a client without the sampling
	// capability calls a tool that needs it (SEP-2575): the guest just asks.
	guest.AddRawTool(abi.Tool{Name: "test_missing_capability", Description: "Needs the client's sampling capability (SEP-2575 -32021 when it is missing)", InputSchema: json.RawMessage(noArgs)},
		func(context.Context, json.RawMessage) (*abi.Result, error) {
			if _, err := ask("sampling", map[string]any{
				"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "ping"}}},
				"maxTokens": 10,
			}); err != nil {
				return abi.ErrorResult("sampling failed: " + err.Error()), nil
			}
			return abi.TextResult("Client declared the sampling capability; tool executed."), nil
		})
	elicit := func(name, desc, message string, schema string, prefix string, params json.RawMessage) {
		guest.AddRawTool(abi.Tool{Name: name, Description: desc, InputSchema: params},
			func(_ context.Context, args json.RawMessage) (*abi.Result, error) {
				msg := message
				if msg == "" {
					var in struct {
						Message string `json:"message"`
					}
					_ = json.Unmarshal(args, &in)
					msg = in.Message
				}
				out, err := ask("elicitation", map[string]any{"message": msg, "requestedSchema": json.RawMessage(schema)})
				if err != nil {
					return abi.ErrorResult("elicitation failed: " + err.Error()), nil
				}
				var res struct {
					Action  string          `json:"action"`
					Content json.RawMessage `json:"content"`
				}
				_ = json.Unmarshal(out, &res)
				return abi.TextResult(fmt.Sprintf("%s: action=%s, content=%s", prefix, res.Action, res.Content)), nil
			})
	}
	elicit("test_elicitation", "Asks the user for a username and an email (elicitation/create)", "",
		`{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`,
		"User response", json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}`))
	elicit("test_elicitation_sep1034_defaults", "Elicitation with a default for every primitive type (SEP-1034)", "Test defaults for primitives",
		`{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}}}`,
		"Elicitation completed", json.RawMessage(noArgs))
	elicit("test_elicitation_sep1330_enums", "Elicitation with the five enum schema variants (SEP-1330)", "Test enum schema variants",
		`{"type":"object","properties":{`+
			`"untitledSingle":{"type":"string","description":"Untitled single-select","enum":["option1","option2","option3"]},`+
			`"titledSingle":{"type":"string","description":"Titled single-select","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},`+
			`"legacyEnum":{"type":"string","description":"Legacy titled enum","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},`+
			`"untitledMulti":{"type":"array","description":"Untitled multi-select","items":{"type":"string","enum":["option1","option2","option3"]}},`+
			`"titledMulti":{"type":"array","description":"Titled multi-select","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`,
		"Elicitation completed", json.RawMessage(noArgs))
}

// cities are the completion candidates of test_prompt_with_arguments' arguments and of the
// template's {id}.
var cities = []string{"paris", "park", "party", "prague", "porto", "test", "testing", "tokyo"}

func addResources() {
	text := func(uri, mime, body string) *abi.ResourceResult {
		return &abi.ResourceResult{Contents: []abi.ResourceContents{{URI: uri, MIMEType: mime, Text: body}}}
	}
	guest.AddResource(abi.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource", MIMEType: "text/plain"},
		func(context.Context, string) (*abi.ResourceResult, error) {
			return text("test://static-text", "text/plain", "This is the content of the static text resource."), nil
		})
	guest.AddResource(abi.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource (a 1x1 PNG)", MIMEType: "image/png"},
		func(context.Context, string) (*abi.ResourceResult, error) {
			return &abi.ResourceResult{Contents: []abi.ResourceContents{{URI: "test://static-binary", MIMEType: "image/png", Blob: decode(pngBase64)}}}, nil
		})
	guest.AddResource(abi.Resource{URI: watchedURI, Name: "watched-resource", Description: "A resource to subscribe to; test_update_resource announces changes", MIMEType: "text/plain"},
		func(context.Context, string) (*abi.ResourceResult, error) {
			return text(watchedURI, "text/plain", "Watched resource content"), nil
		})
	const tmpl = "test://template/{id}/data"
	guest.AddResourceTemplate(abi.ResourceTemplate{URITemplate: tmpl, Name: "template", Description: "JSON data for the id in the URI", MIMEType: "application/json"},
		func(_ context.Context, uri string) (*abi.ResourceResult, error) {
			id, ok := strings.CutPrefix(uri, "test://template/")
			id, ok2 := strings.CutSuffix(id, "/data")
			if !ok || !ok2 || id == "" {
				return nil, fmt.Errorf("%w: %s", guest.ErrResourceNotFound, uri)
			}
			b, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return text(uri, "application/json", string(b)), nil
		})
	guest.CompleteResourceTemplate(tmpl, func(_ context.Context, req abi.CompleteRequest) (*abi.Completion, error) {
		if req.Argument.Name != "id" {
			return nil, fmt.Errorf("%w: template %s has no variable %q", guest.ErrInvalidArguments, tmpl, req.Argument.Name)
		}
		if req.Argument.Value == "#" { // more than a completion may carry: the host cuts to 100
			c := &abi.Completion{Total: 150}
			for i := range 150 {
				c.Values = append(c.Values, fmt.Sprint(i))
			}
			return c, nil
		}
		return match(req.Argument.Value), nil
	})
}

func addPrompts() {
	msg := func(c abi.Content) abi.PromptMessage { return abi.PromptMessage{Role: "user", Content: c} }
	textMsg := func(s string) abi.PromptMessage { return msg(abi.Content{Type: "text", Text: s}) }
	guest.AddPrompt(abi.Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments"},
		func(context.Context, map[string]string) (*abi.PromptResult, error) {
			return &abi.PromptResult{Messages: []abi.PromptMessage{textMsg("This is a simple prompt for testing.")}}, nil
		})
	guest.AddPrompt(abi.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two required arguments", Arguments: []abi.PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true},
		{Name: "arg2", Description: "Second test argument", Required: true},
	}}, func(_ context.Context, args map[string]string) (*abi.PromptResult, error) {
		return &abi.PromptResult{Messages: []abi.PromptMessage{textMsg(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"]))}}, nil
	})
	guest.CompletePrompt("test_prompt_with_arguments", func(_ context.Context, req abi.CompleteRequest) (*abi.Completion, error) {
		if req.Argument.Name != "arg1" && req.Argument.Name != "arg2" {
			return nil, fmt.Errorf("%w: prompt test_prompt_with_arguments has no argument %q", guest.ErrInvalidArguments, req.Argument.Name)
		}
		return match(req.Argument.Value), nil
	})
	guest.AddPrompt(abi.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt with an embedded resource", Arguments: []abi.PromptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
	}}, func(_ context.Context, args map[string]string) (*abi.PromptResult, error) {
		return &abi.PromptResult{Messages: []abi.PromptMessage{
			msg(abi.Content{Type: "resource", Resource: &abi.ResourceContents{URI: args["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
			textMsg("Please process the embedded resource above."),
		}}, nil
	})
	guest.AddPrompt(abi.Prompt{Name: "test_prompt_with_image", Description: "A prompt with image content"},
		func(context.Context, map[string]string) (*abi.PromptResult, error) {
			return &abi.PromptResult{Messages: []abi.PromptMessage{
				msg(abi.Content{Type: "image", Data: decode(pngBase64), MIMEType: "image/png"}),
				textMsg("Please analyze the image above."),
			}}, nil
		})
}

// match returns the candidates that start with prefix, in order.
func match(prefix string) *abi.Completion {
	vals := slices.DeleteFunc(slices.Clone(cities), func(c string) bool { return !strings.HasPrefix(c, prefix) })
	return &abi.Completion{Values: vals, Total: len(vals)}
}

func main() {}

func decode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
