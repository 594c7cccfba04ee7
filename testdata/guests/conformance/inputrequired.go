package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// The test_input_required_result_* tools of the suite's SEP-2322 scenarios
// (input-required-result-*). Each asks the client like any guest does (request kinds
// elicitation, sampling, roots); over 2026-07-28 the host turns the requests into
// input-required results and replays the answers, over 2025-11-25 it sends them on the
// session. The "mcpwasm" member of a request body (ABI.md §6.7) names its inputRequests key
// as the scenarios expect ("key"), lets several requests go out in one round ("defer"), and
// lets a request the client has no capability for be skipped ("optional").

// opts is the host's "mcpwasm" member of a client request body.
type opts struct {
	Key      string `json:"key,omitempty"`
	Defer    bool   `json:"defer,omitempty"`
	Optional bool   `json:"optional,omitempty"`
}

// askKeyed sends a client request of kind with params (a JSON object) and the host options.
func askKeyed(kind string, params map[string]any, o opts) (json.RawMessage, error) {
	p := map[string]any{"mcpwasm": o}
	for k, v := range params {
		p[k] = v
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return guest.Request(kind, b)
}

func nameSchema(prop string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"` + prop + `":{"type":"string"}},"required":["` + prop + `"]}`)
}

func elicitParams(message string, schema json.RawMessage) map[string]any {
	return map[string]any{"message": message, "requestedSchema": schema}
}

func sampleParams(text string, maxTokens int) map[string]any {
	return map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}},
		"maxTokens": maxTokens,
	}
}

// elicitField returns content[field] of an accepted ElicitResult, or "".
func elicitField(out json.RawMessage, field string) string {
	var res struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	_ = json.Unmarshal(out, &res)
	if res.Action != "accept" {
		return ""
	}
	v, _ := res.Content[field].(string)
	return v
}

func sampleText(out json.RawMessage) string {
	var res struct {
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(out, &res)
	if res.Content.Type != "text" {
		return "(non-text response)"
	}
	return res.Content.Text
}

func rootURIs(out json.RawMessage) []string {
	var res struct {
		Roots []struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	_ = json.Unmarshal(out, &res)
	uris := make([]string, 0, len(res.Roots))
	for _, r := range res.Roots {
		uris = append(uris, r.URI)
	}
	return uris
}

func addInputRequiredTools() {
	// A prompt asks the client too (the host grants prompts the client request kinds only).
	guest.AddPrompt(abi.Prompt{Name: "test_input_required_result_prompt", Description: "Asks the user for context (elicitation, key user_context), then renders it"},
		func(context.Context, map[string]string) (*abi.PromptResult, error) {
			out, err := askKeyed(abi.KindElicitation, elicitParams("What context should the prompt use?", nameSchema("context")), opts{Key: "user_context"})
			if err != nil {
				return nil, fmt.Errorf("elicitation failed: %w", err)
			}
			return &abi.PromptResult{Description: "A prompt with elicited context", Messages: []abi.PromptMessage{
				{Role: "user", Content: abi.Content{Type: "text", Text: "Context: " + elicitField(out, "context")}},
			}}, nil
		})

	tool := func(name, desc string, h func() (*abi.Result, error)) {
		guest.AddRawTool(abi.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(noArgs)},
			func(context.Context, json.RawMessage) (*abi.Result, error) {
				res, err := h()
				if err != nil {
					return abi.ErrorResult(err.Error()), nil
				}
				return res, nil
			})
	}
	confirm := func() (*abi.Result, error) {
		out, err := askKeyed(abi.KindElicitation, elicitParams("Please confirm",
			json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)), opts{Key: "confirm"})
		if err != nil {
			return nil, fmt.Errorf("elicitation failed: %w", err)
		}
		// The host verified the requestState (HMAC) before the guest ran again.
		return abi.TextResult("state-ok: confirmation " + string(out)), nil
	}
	tool("test_input_required_result_elicitation", "Asks the user's name (elicitation, key user_name)", func() (*abi.Result, error) {
		out, err := askKeyed(abi.KindElicitation, elicitParams("What is your name?", nameSchema("name")), opts{Key: "user_name"})
		if err != nil {
			return nil, fmt.Errorf("elicitation failed: %w", err)
		}
		return abi.TextResult(fmt.Sprintf("Hello, %s!", elicitField(out, "name"))), nil
	})
	tool("test_input_required_result_sampling", "Asks the client's model for the capital of France (sampling, key capital_question)", func() (*abi.Result, error) {
		out, err := askKeyed(abi.KindSampling, sampleParams("What is the capital of France?", 100), opts{Key: "capital_question"})
		if err != nil {
			return nil, fmt.Errorf("sampling failed: %w", err)
		}
		return abi.TextResult("Sampling response: " + sampleText(out)), nil
	})
	tool("test_input_required_result_list_roots", "Lists the client's roots (roots, key client_roots)", func() (*abi.Result, error) {
		out, err := askKeyed(abi.KindRoots, map[string]any{}, opts{Key: "client_roots"})
		if err != nil {
			return nil, fmt.Errorf("roots failed: %w", err)
		}
		uris := rootURIs(out)
		return abi.TextResult(fmt.Sprintf("Client exposed %d root(s): %s", len(uris), strings.Join(uris, ", "))), nil
	})
	tool("test_input_required_result_request_state", "Asks for a confirmation; the answer comes back with the signed requestState", confirm)
	tool("test_input_required_result_tampered_state", "Asks for a confirmation; a tampered requestState is rejected by the host", confirm)
	tool("test_input_required_result_multiple_inputs", "Asks for a name, a greeting and the roots in one round", func() (*abi.Result, error) {
		name, err1 := askKeyed(abi.KindElicitation, elicitParams("What is your name?", nameSchema("name")), opts{Key: "user_name", Defer: true})
		greeting, err2 := askKeyed(abi.KindSampling, sampleParams("Generate a greeting", 50), opts{Key: "greeting", Defer: true})
		roots, err3 := askKeyed(abi.KindRoots, map[string]any{}, opts{Key: "client_roots", Defer: true})
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, err // over 2026-07-28 in the first round, the host answers for the guest
		}
		return abi.TextResult(fmt.Sprintf("%s %s — %d root(s) visible", sampleText(greeting), elicitField(name, "name"), len(rootURIs(roots)))), nil
	})
	tool("test_input_required_result_multi_round", "Asks a name, then a favourite colour: two rounds", func() (*abi.Result, error) {
		name, err := askKeyed(abi.KindElicitation, elicitParams("Step 1: What is your name?", nameSchema("name")), opts{Key: "step1"})
		if err != nil {
			return nil, fmt.Errorf("elicitation failed: %w", err)
		}
		color, err := askKeyed(abi.KindElicitation, elicitParams("Step 2: What is your favorite color?", nameSchema("color")), opts{Key: "step2"})
		if err != nil {
			return nil, fmt.Errorf("elicitation failed: %w", err)
		}
		return abi.TextResult(fmt.Sprintf("Multi-round complete: %s likes %s", elicitField(name, "name"), elicitField(color, "color"))), nil
	})
	tool("test_input_required_result_capabilities", "Asks only what the client's capabilities cover (elicitation, sampling, roots, each optional)", func() (*abi.Result, error) {
		var got []string
		var pendingErr error
		for _, q := range []struct {
			kind   string
			params map[string]any
			key    string
		}{
			{abi.KindElicitation, elicitParams("What is your name?", nameSchema("name")), "user_name"},
			{abi.KindSampling, sampleParams("Generate a short greeting", 50), "greeting"},
			{abi.KindRoots, map[string]any{}, "client_roots"},
		} {
			_, err := askKeyed(q.kind, q.params, opts{Key: q.key, Defer: true, Optional: true})
			switch {
			case err == nil:
				got = append(got, q.key)
			case !errors.Is(err, guest.ErrUnavailable):
				return nil, err
			case strings.Contains(err.Error(), "next round"):
				pendingErr = err
			}
		}
		if pendingErr != nil {
			return nil, pendingErr
		}
		if len(got) == 0 {
			return abi.TextResult("No declared client capability supports an input request"), nil
		}
		return abi.TextResult("Capability-aware input requests fulfilled: " + strings.Join(got, ", ")), nil
	})
}
