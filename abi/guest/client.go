package guest

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpwasm/mcpwasm/abi"
)

// Errors a *RequestError matches with errors.Is, one per non-OK status (ABI.md §6.4):
// errors.Is(err, guest.ErrDenied) is true when the host refused the capability.
var (
	ErrDenied      = errors.New("DENIED")
	ErrNotFound    = errors.New("NOT_FOUND")
	ErrInvalid     = errors.New("INVALID")
	ErrTooLarge    = errors.New("TOO_LARGE")
	ErrTimeout     = errors.New("TIMEOUT")
	ErrFailed      = errors.New("FAILED")
	ErrCancelled   = errors.New("CANCELLED")
	ErrUnavailable = errors.New("UNAVAILABLE")
)

var statusErrors = [...]error{abi.StatusDenied: ErrDenied, abi.StatusNotFound: ErrNotFound,
	abi.StatusInvalid: ErrInvalid, abi.StatusTooLarge: ErrTooLarge, abi.StatusTimeout: ErrTimeout,
	abi.StatusFailed: ErrFailed, abi.StatusCancelled: ErrCancelled, abi.StatusUnavailable: ErrUnavailable}

// Is reports whether target is the sentinel error of e's status (ErrDenied, …).
func (e *RequestError) Is(target error) bool {
	return e.Status > 0 && int(e.Status) < len(statusErrors) && statusErrors[e.Status] == target
}

// SamplingMessage is one message of a sampling request (MCP 2025-11-25 "Client Features ›
// Sampling"): Role "user" or "assistant", and a text, image or audio content block.
type SamplingMessage struct {
	Role    string      `json:"role"`
	Content abi.Content `json:"content"`
}

// SampleParams are the params of MCP sampling/createMessage. MaxTokens is required by the
// spec; ModelPreferences and Metadata pass through as JSON.
type SampleParams struct {
	Messages         []SamplingMessage `json:"messages"`
	MaxTokens        int               `json:"maxTokens"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"` // "none", "thisServer", "allServers"
	ModelPreferences json.RawMessage   `json:"modelPreferences,omitempty"`
	Metadata         json.RawMessage   `json:"metadata,omitempty"`
}

// SampleResult is the client's CreateMessageResult: the model's message (Role "assistant"),
// the model that produced it, and why it stopped ("endTurn", "stopSequence", "maxTokens", …).
type SampleResult struct {
	Role       string      `json:"role"`
	Content    abi.Content `json:"content"`
	Model      string      `json:"model"`
	StopReason string      `json:"stopReason,omitempty"`
}

// Sample asks the client of the current tool call to sample its model (request kind
// sampling, ABI.md §6.7); it needs the sampling grant. Errors are *RequestError:
// errors.Is(err, ErrDenied) when not granted, ErrUnavailable when the client cannot sample,
// ErrFailed when the client refused (e.g. the user rejected the request).
func Sample(ctx context.Context, p SampleParams) (*SampleResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.Messages == nil {
		p.Messages = []SamplingMessage{}
	}
	var res SampleResult
	if err := requestJSON(abi.KindSampling, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// SampleText is Sample with one user message of text, at most maxTokens in the answer; it
// returns the answer's text.
func SampleText(ctx context.Context, prompt string, maxTokens int) (string, error) {
	res, err := Sample(ctx, SampleParams{MaxTokens: maxTokens,
		Messages: []SamplingMessage{{Role: "user", Content: abi.Content{Type: "text", Text: prompt}}}})
	if err != nil {
		return "", err
	}
	return res.Content.Text, nil
}

// ElicitParams are the params of MCP elicitation/create. Form mode: Message and
// RequestedSchema (a flat JSON Schema object of primitive properties). URL mode: Mode "url",
// URL, ElicitationID and Message.
type ElicitParams struct {
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	Mode            string          `json:"mode,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// ElicitResult is the client's ElicitResult: Action "accept" (Content holds the answer as a
// JSON object), "decline" or "cancel".
type ElicitResult struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
}

// Elicit asks the user through the client of the current tool call (request kind
// elicitation, ABI.md §6.7); it needs the elicitation grant. A decline or a cancel is a
// result, not an error. Errors are *RequestError (see Sample).
func Elicit(ctx context.Context, p ElicitParams) (*ElicitResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var res ElicitResult
	if err := requestJSON(abi.KindElicitation, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Root is one of the client's roots: a file:// URI and an optional name.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// Roots lists the roots of the client of the current tool call (request kind roots, ABI.md
// §6.7); it needs the roots grant. Errors are *RequestError (see Sample).
func Roots(ctx context.Context) ([]Root, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var res struct {
		Roots []Root `json:"roots"`
	}
	if err := requestJSON(abi.KindRoots, struct{}{}, &res); err != nil {
		return nil, err
	}
	return res.Roots, nil
}
