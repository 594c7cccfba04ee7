package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// MaxSampleTokens is the maxTokens of an MCP sampling request.
const MaxSampleTokens = 1024

// sampleMCP sends one sampling request to the client of the current call; tests replace it.
var sampleMCP = guest.Sample

// mcpSampler is a Sampler on MCP sampling: sampling/createMessage sent to the client of the
// current tool call through the host (request kind sampling, ABI.md §6.7). System messages
// become the request's systemPrompt.
type mcpSampler struct{}

func (mcpSampler) Sample(ctx context.Context, messages []Message, temperature *float64) (string, error) {
	p := guest.SampleParams{MaxTokens: MaxSampleTokens, Temperature: temperature}
	var system []string
	for _, m := range messages {
		if m.Role == "system" {
			system = append(system, m.Content)
			continue
		}
		p.Messages = append(p.Messages, guest.SamplingMessage{Role: m.Role, Content: abi.Content{Type: "text", Text: m.Content}})
	}
	p.SystemPrompt = strings.Join(system, "\n\n")
	res, err := sampleMCP(ctx, p)
	if err != nil {
		return "", err
	}
	if res.Content.Type != "text" {
		return "", fmt.Errorf("MCP sampling: the client answered %q content, want text", res.Content.Type)
	}
	if len(res.Content.Text) > MaxAnswerBytes {
		return "", fmt.Errorf("MCP sampling: answer of %d bytes is over the %d-byte cap", len(res.Content.Text), MaxAnswerBytes)
	}
	return res.Content.Text, nil
}

// NoModelError is the error of a call that has neither model: MCP sampling was refused
// (not granted, or the client cannot sample) and the endpoint is not configured.
type NoModelError struct {
	Endpoint error // why the endpoint cannot be used (*NotConfiguredError or a bad URL)
	Sampling error // why MCP sampling was refused (a *guest.RequestError)
}

func (e *NoModelError) Error() string {
	return e.Endpoint.Error() + " MCP sampling is not available either (" + e.Sampling.Error() +
		`): grant "sampling" to the guest and use a client that supports sampling, or configure the endpoint.`
}

func (e *NoModelError) Unwrap() []error { return []error{e.Endpoint, e.Sampling} }

// preferMCP is the Sampler of one tool call: MCP sampling while the client answers it; once
// it is refused (DENIED: the operator did not grant sampling; UNAVAILABLE: the client cannot
// sample), the endpoint for the rest of the call, or a *NoModelError when there is none.
type preferMCP struct {
	mcp      Sampler
	endpoint func() (Sampler, error)
	fallback Sampler // set once MCP sampling was refused
}

func (p *preferMCP) Sample(ctx context.Context, messages []Message, temperature *float64) (string, error) {
	if p.fallback != nil {
		return p.fallback.Sample(ctx, messages, temperature)
	}
	out, err := p.mcp.Sample(ctx, messages, temperature)
	if err == nil || !(errors.Is(err, guest.ErrDenied) || errors.Is(err, guest.ErrUnavailable)) {
		return out, err
	}
	ep, cerr := p.endpoint()
	if cerr != nil {
		return "", &NoModelError{Endpoint: cerr, Sampling: err}
	}
	p.fallback = ep
	return ep.Sample(ctx, messages, temperature)
}
