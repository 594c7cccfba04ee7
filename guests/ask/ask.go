package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// SummarizeIn is the input of summarize.
type SummarizeIn struct {
	Text string `json:"text"`
}

// Summarize asks the client's model for a one-sentence summary of in.Text.
func Summarize(ctx context.Context, in SummarizeIn) (string, error) {
	res, err := guest.Sample(ctx, guest.SampleParams{
		MaxTokens:    200,
		SystemPrompt: "You summarize text in one sentence.",
		Messages:     []guest.SamplingMessage{{Role: "user", Content: textContent("Summarize: " + in.Text)}},
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("summary (%s): %s", res.Model, res.Content.Text), nil
}

// ConfirmIn is the input of confirm.
type ConfirmIn struct {
	Question string `json:"question"`
}

const confirmSchema = `{"type":"object","properties":{"ok":{"type":"boolean","title":"Yes?"}},"required":["ok"]}`

// Confirm asks the user in.Question and reports the answer: "yes", "no", or what the user
// did instead (declined, cancelled).
func Confirm(ctx context.Context, in ConfirmIn) (string, error) {
	res, err := guest.Elicit(ctx, guest.ElicitParams{Message: in.Question, RequestedSchema: json.RawMessage(confirmSchema)})
	if err != nil {
		return "", err
	}
	return answerText(res), nil
}

func answerText(res *guest.ElicitResult) string {
	if res.Action != "accept" {
		return "the user chose " + res.Action
	}
	var c struct {
		OK bool `json:"ok"`
	}
	if json.Unmarshal(res.Content, &c) != nil {
		return "the user answered " + string(res.Content)
	}
	if c.OK {
		return "yes"
	}
	return "no"
}

// DraftIn is the input of draft.
type DraftIn struct {
	Topic string `json:"topic"`
}

// Draft asks the model for a draft about in.Topic, then asks the user to approve it.
func Draft(ctx context.Context, in DraftIn) (string, error) {
	res, err := guest.Sample(ctx, guest.SampleParams{MaxTokens: 400,
		Messages: []guest.SamplingMessage{{Role: "user", Content: textContent("Write a short draft about " + in.Topic)}}})
	if err != nil {
		return "", err
	}
	draft := strings.TrimSpace(res.Content.Text)
	ans, err := guest.Elicit(ctx, guest.ElicitParams{Message: "Approve this draft? " + draft, RequestedSchema: json.RawMessage(confirmSchema)})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("draft: %s; approved: %s", draft, answerText(ans)), nil
}

// RootsIn is the (empty) input of roots.
type RootsIn struct{}

// ListRoots lists the client's roots, one "uri name" per line.
func ListRoots(ctx context.Context, _ RootsIn) (string, error) {
	roots, err := guest.Roots(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, r := range roots {
		fmt.Fprintf(&b, "%s %s\n", r.URI, r.Name)
	}
	return fmt.Sprintf("%d roots\n%s", len(roots), b.String()), nil
}
