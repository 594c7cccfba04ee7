package main

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

type fixedSampler struct {
	answer string
	calls  int
}

func (f *fixedSampler) Sample(context.Context, []Message, *float64) (string, error) {
	f.calls++
	return f.answer, nil
}

// preferMCP samples through the client while it answers; after a refusal it uses the
// endpoint for the rest of the call; with neither the error names both reasons.
func TestPreferMCP(t *testing.T) {
	ctx := context.Background()
	var got guest.SampleParams
	refusal := error(nil)
	old := sampleMCP
	sampleMCP = func(_ context.Context, p guest.SampleParams) (*guest.SampleResult, error) {
		got = p
		if refusal != nil {
			return nil, refusal
		}
		return &guest.SampleResult{Role: "assistant", Model: "m", Content: abi.Content{Type: "text", Text: "from the client"}}, nil
	}
	t.Cleanup(func() { sampleMCP = old })

	ep := &fixedSampler{answer: "from the endpoint"}
	p := &preferMCP{mcp: mcpSampler{}, endpoint: func() (Sampler, error) { return ep, nil }}
	msgs := []Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}}
	if a, err := p.Sample(ctx, msgs, nil); a != "from the client" || err != nil || ep.calls != 0 {
		t.Errorf("granted: %q, %v, endpoint calls %d", a, err, ep.calls)
	}
	if got.SystemPrompt != "be brief" || len(got.Messages) != 1 || got.Messages[0].Content.Text != "hi" || got.MaxTokens != MaxSampleTokens {
		t.Errorf("sampling params = %+v", got)
	}

	refusal = &guest.RequestError{Kind: "sampling", Status: abi.StatusDenied, Message: `sampling: not granted to guest "llm"`}
	p = &preferMCP{mcp: mcpSampler{}, endpoint: func() (Sampler, error) { return ep, nil }}
	for range 2 {
		if a, err := p.Sample(ctx, msgs, nil); a != "from the endpoint" || err != nil {
			t.Errorf("denied: %q, %v", a, err)
		}
	}
	if ep.calls != 2 {
		t.Errorf("endpoint calls = %d, want 2", ep.calls)
	}

	refusal = &guest.RequestError{Kind: "sampling", Status: abi.StatusUnavailable, Message: "sampling: client unavailable: the client did not declare the sampling capability"}
	p = &preferMCP{mcp: mcpSampler{}, endpoint: func() (Sampler, error) { return nil, &NotConfiguredError{Missing: []string{EnvModel}} }}
	_, err := p.Sample(ctx, msgs, nil)
	var nm *NoModelError
	if !errors.As(err, &nm) || !errors.Is(err, guest.ErrUnavailable) {
		t.Fatalf("neither: %v", err)
	}
	want := (&NotConfiguredError{Missing: []string{EnvModel}}).Error() +
		" MCP sampling is not available either (sampling: UNAVAILABLE: sampling: client unavailable: the client did not declare the sampling capability): " +
		`grant "sampling" to the guest and use a client that supports sampling, or configure the endpoint.`
	if err.Error() != want {
		t.Errorf("neither:\n got %q\nwant %q", err, want)
	}

	refusal = &guest.RequestError{Kind: "sampling", Status: abi.StatusFailed, Message: "sampling: client request failed: the client answered: user rejected"}
	p = &preferMCP{mcp: mcpSampler{}, endpoint: func() (Sampler, error) { return ep, nil }}
	if _, err := p.Sample(ctx, msgs, nil); !errors.Is(err, guest.ErrFailed) {
		t.Errorf("a client's refusal is not a reason to switch models: %v", err)
	}
}
