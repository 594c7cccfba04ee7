package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// Bounds of consensus's arguments.
const (
	DefaultN = 3
	MinN     = 1
	MaxN     = 9
	// MaxPromptBytes caps the prompt of both tools.
	MaxPromptBytes = 32 << 10
)

// ConsensusIn is the consensus tool's arguments (schema in schema.go).
type ConsensusIn struct {
	Prompt      string   `json:"prompt"`
	N           *int     `json:"n,omitempty"`
	Strategy    string   `json:"strategy,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
}

// ConsensusOut is the consensus tool's structured result.
type ConsensusOut struct {
	Answer    string   `json:"answer"`              // the agreed answer, as first sampled
	Agreement float64  `json:"agreement"`           // votes / n, rounded to 4 decimals
	Votes     int      `json:"votes"`               // samples that gave the answer
	N         int      `json:"n"`                   // samples taken (n after clamping)
	Strategy  string   `json:"strategy"`            // majority or unanimous
	Answers   []string `json:"answers"`             // every sample, in order
	TieBreak  bool     `json:"tie_break,omitempty"` // a tie was broken by a model vote
}

// Hooks into the host, replaced by tests: whether the call was cancelled, and progress.
var (
	cancelled = guest.Cancelled
	progress  = guest.Progress
)

// clampInt returns p's value (def when nil) clamped to [lo, hi].
func clampInt(p *int, def, lo, hi int) int {
	if p == nil {
		return def
	}
	return max(lo, min(hi, *p))
}

func checkPrompt(p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return errors.New("prompt is empty")
	case len(p) > MaxPromptBytes:
		return fmt.Errorf("prompt is %d bytes, over the limit of %d", len(p), MaxPromptBytes)
	}
	return nil
}

// Consensus is the consensus tool's handler.
func Consensus(ctx context.Context, in ConsensusIn) (ConsensusOut, error) {
	if err := checkPrompt(in.Prompt); err != nil {
		return ConsensusOut{}, err
	}
	strategy := in.Strategy
	if strategy == "" {
		strategy = "majority"
	}
	if strategy != "majority" && strategy != "unanimous" {
		return ConsensusOut{}, fmt.Errorf("strategy must be majority or unanimous, got %q", in.Strategy)
	}
	if t := in.Temperature; t != nil && (*t < 0 || *t > 2 || math.IsNaN(*t)) {
		return ConsensusOut{}, fmt.Errorf("temperature must be between 0 and 2, got %v", *t)
	}
	n := clampInt(in.N, DefaultN, MinN, MaxN)
	s, err := newSampler()
	if err != nil {
		return ConsensusOut{}, err
	}
	answers := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		if i > 1 && cancelled() {
			return ConsensusOut{}, fmt.Errorf("cancelled after %d of %d samples", i-1, n)
		}
		a, err := s.Sample(ctx, []Message{{Role: "user", Content: in.Prompt}}, in.Temperature)
		if nm := (*NoModelError)(nil); errors.As(err, &nm) {
			return ConsensusOut{}, err // about the setup, not this sample
		}
		if err != nil {
			return ConsensusOut{}, fmt.Errorf("sample %d of %d: %w", i, n, err)
		}
		answers = append(answers, a)
		progress(float64(i), float64(n), fmt.Sprintf("sample %d of %d", i, n))
	}
	out := ConsensusOut{N: n, Strategy: strategy, Answers: answers}
	groups := Tally(answers)
	switch {
	case strategy == "unanimous" && len(groups) > 1:
		return ConsensusOut{}, fmt.Errorf("no unanimous agreement: %d distinct answers among %d samples:\n%s", len(groups), n, numbered(answers))
	case len(groups) > 1 && groups[1].Votes == groups[0].Votes:
		tied := 1
		for tied < len(groups) && groups[tied].Votes == groups[0].Votes {
			tied++
		}
		if cancelled() {
			return ConsensusOut{}, fmt.Errorf("cancelled before the tie-break vote")
		}
		pick, err := tieBreak(ctx, s, in.Prompt, groups[:tied])
		if err != nil {
			return ConsensusOut{}, err
		}
		groups[0] = groups[pick]
		out.TieBreak = true
	}
	out.Answer, out.Votes = groups[0].Answer, groups[0].Votes
	out.Agreement = math.Round(float64(out.Votes)/float64(n)*1e4) / 1e4
	return out, nil
}

// Normalize is the form answers are compared in: whitespace runs collapsed to one space,
// trimmed, lower-cased.
func Normalize(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Group is one distinct answer and how many samples gave it.
type Group struct {
	Answer string // as first sampled, trimmed
	Votes  int
}

// Tally groups answers by Normalize, most votes first; equal votes keep the order in
// which the answers first appeared.
func Tally(answers []string) []Group {
	var groups []Group
	index := map[string]int{}
	for _, a := range answers {
		k := Normalize(a)
		if j, ok := index[k]; ok {
			groups[j].Votes++
			continue
		}
		index[k] = len(groups)
		groups = append(groups, Group{Answer: strings.TrimSpace(a), Votes: 1})
	}
	// Insertion sort: at most 9 groups, and stable.
	for i := 1; i < len(groups); i++ {
		for j := i; j > 0 && groups[j].Votes > groups[j-1].Votes; j-- {
			groups[j], groups[j-1] = groups[j-1], groups[j]
		}
	}
	return groups
}

// tieBreak asks the model once which of the tied answers is best, by number, and returns
// the index of its pick. A reply that is not one of the numbers is an error.
func tieBreak(ctx context.Context, s Sampler, prompt string, tied []Group) (int, error) {
	cands := make([]string, len(tied))
	for i, g := range tied {
		cands[i] = g.Answer
	}
	q := fmt.Sprintf("Question:\n%s\n\nCandidate answers:\n%s\n\nWhich candidate answers the question best? Reply with only its number (1 to %d).",
		prompt, numbered(cands), len(tied))
	zero := 0.0
	reply, err := s.Sample(ctx, []Message{{Role: "user", Content: q}}, &zero)
	if err != nil {
		return 0, fmt.Errorf("tie-break vote: %w", err)
	}
	pick, err := ParseVote(reply, len(tied))
	if err != nil {
		return 0, fmt.Errorf("%d answers tied with %d votes each and the tie-break vote failed: %w; the answers:\n%s",
			len(tied), tied[0].Votes, err, numbered(cands))
	}
	return pick - 1, nil
}

// ParseVote reads a vote for one of 1..k: the reply must be just that number (surrounding
// whitespace and one trailing period allowed).
func ParseVote(reply string, k int) (int, error) {
	s := strings.TrimSuffix(strings.TrimSpace(reply), ".")
	n, err := strconv.Atoi(s)
	if err != nil || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("the vote %q is not a number", clip(strings.TrimSpace(reply), 100))
	}
	if n < 1 || n > k {
		return 0, fmt.Errorf("the vote %d is not between 1 and %d", n, k)
	}
	return n, nil
}

// numbered lists items as "1. …" lines.
func numbered(items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d. %s", i+1, strings.TrimSpace(it))
	}
	return b.String()
}
