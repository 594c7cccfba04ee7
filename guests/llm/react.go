package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpwasm/mcpwasm/guests/calc/expr"
)

// Bounds of react_loop's max_rounds.
const (
	DefaultRounds = 4
	MinRounds     = 1
	MaxRounds     = 8
)

// ReactIn is the react_loop tool's arguments (schema in schema.go).
type ReactIn struct {
	Prompt    string `json:"prompt"`
	MaxRounds *int   `json:"max_rounds,omitempty"`
}

// ReactOut is the react_loop tool's structured result.
type ReactOut struct {
	Answer string `json:"answer"`
	Rounds int    `json:"rounds"` // rounds used
	Trace  []Step `json:"trace"`
}

// Step is one round of the loop: the model's reply, parsed, and what the guest answered.
type Step struct {
	Round       int    `json:"round"`
	Thought     string `json:"thought,omitempty"`
	Action      string `json:"action,omitempty"` // calc or echo
	Input       string `json:"input,omitempty"`
	Observation string `json:"observation,omitempty"`
	Final       string `json:"final,omitempty"`
	Error       string `json:"error,omitempty"` // the reply broke the protocol; told to the model
}

// The protocol. Every reply is one step:
//
//	Thought: <reasoning>            optional, any number of lines
//	Action: calc: <expression>      then exactly one of these three
//	Action: echo: <text>
//	Final: <answer>                 may continue on the following lines
//
// Blank lines are ignored. Every other line before the Action or Final line must start
// with "Thought:"; nothing but blank lines may follow an Action line (the guest answers it
// with "Observation: <result>" as the next user message); the Final line and every line
// after it are the answer. Keywords and tool names are case-sensitive. A reply that breaks
// a rule uses up its round: the guest answers "Observation: protocol error: <rule>" and
// the model may try again.
const systemPrompt = `You solve the user's task step by step and may use two tools. Each reply is exactly one step in this format:

Thought: <your reasoning; optional; any number of Thought lines>
then exactly one of:
Action: calc: <arithmetic expression>
Action: echo: <text>
Final: <your answer>

Rules:
- Every non-blank line before the Action or Final line starts with "Thought:".
- After an Action line write nothing more and stop: the next message is "Observation: <result>".
- The Final line ends the task; the answer may continue on the lines after it.
- calc evaluates numbers, + - * / %% ^ (power), parentheses, sqrt abs min max floor ceil round, pi and e; no variables.
- echo returns its text unchanged.
- There are no other tools. You have at most %d replies: give Final before they run out.`

// Reply is a parsed model reply.
type Reply struct {
	Thought string
	Action  string // "calc" or "echo"; empty for a final answer
	Input   string
	Final   string
	IsFinal bool
}

// ParseReply parses one reply strictly by the protocol above.
func ParseReply(text string) (Reply, error) {
	var r Reply
	var thoughts []string
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			continue
		case strings.HasPrefix(trimmed, "Thought:"):
			thoughts = append(thoughts, strings.TrimSpace(strings.TrimPrefix(trimmed, "Thought:")))
		case strings.HasPrefix(trimmed, "Action:"):
			tool, input, ok := strings.Cut(strings.TrimPrefix(trimmed, "Action:"), ":")
			tool, input = strings.TrimSpace(tool), strings.TrimSpace(input)
			if !ok {
				return Reply{}, fmt.Errorf(`line %d: an Action is "Action: calc: <expression>" or "Action: echo: <text>"`, i+1)
			}
			if tool != "calc" && tool != "echo" {
				return Reply{}, fmt.Errorf("line %d: unknown tool %q (the tools are calc and echo)", i+1, tool)
			}
			for j := i + 1; j < len(lines); j++ {
				if strings.TrimSpace(lines[j]) != "" {
					return Reply{}, fmt.Errorf("line %d: text after the Action line (one Action per reply, then wait for its Observation)", j+1)
				}
			}
			r.Action, r.Input = tool, input
			r.Thought = strings.Join(thoughts, "\n")
			return r, nil
		case strings.HasPrefix(trimmed, "Final:"):
			rest := append([]string{strings.TrimPrefix(trimmed, "Final:")}, lines[i+1:]...)
			r.Final = strings.TrimSpace(strings.Join(rest, "\n"))
			if r.Final == "" {
				return Reply{}, fmt.Errorf("line %d: the Final answer is empty", i+1)
			}
			r.IsFinal = true
			r.Thought = strings.Join(thoughts, "\n")
			return r, nil
		default:
			return Reply{}, fmt.Errorf(`line %d does not start with "Thought:", "Action:" or "Final:": %q`, i+1, clip(trimmed, 80))
		}
	}
	return Reply{}, errors.New(`no "Action:" or "Final:" line`)
}

// runTool runs one inner tool and returns the observation text.
func runTool(tool, input string) string {
	switch tool {
	case "calc":
		v, err := expr.Eval(input)
		if err != nil {
			return "error: " + err.Error()
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case "echo":
		return input
	}
	return fmt.Sprintf("error: unknown tool %q", tool) // unreachable: ParseReply checks
}

// React is the react_loop tool's handler.
func React(ctx context.Context, in ReactIn) (ReactOut, error) {
	if err := checkPrompt(in.Prompt); err != nil {
		return ReactOut{}, err
	}
	rounds := clampInt(in.MaxRounds, DefaultRounds, MinRounds, MaxRounds)
	s, err := newSampler()
	if err != nil {
		return ReactOut{}, err
	}
	messages := []Message{
		{Role: "system", Content: fmt.Sprintf(systemPrompt, rounds)},
		{Role: "user", Content: in.Prompt},
	}
	var trace []Step
	for round := 1; round <= rounds; round++ {
		if round > 1 && cancelled() {
			return ReactOut{}, fmt.Errorf("cancelled after round %d of %d", round-1, rounds)
		}
		text, err := s.Sample(ctx, messages, nil)
		if nm := (*NoModelError)(nil); errors.As(err, &nm) {
			return ReactOut{}, err // about the setup, not this round
		}
		if err != nil {
			return ReactOut{}, fmt.Errorf("round %d of %d: %w", round, rounds, err)
		}
		step := Step{Round: round}
		r, perr := ParseReply(text)
		var observation, note string
		switch {
		case perr != nil:
			step.Error = perr.Error()
			observation = "protocol error: " + perr.Error()
			note = "protocol error"
		case r.IsFinal:
			step.Thought, step.Final = r.Thought, r.Final
			trace = append(trace, step)
			progress(float64(round), float64(rounds), fmt.Sprintf("round %d of %d: final answer", round, rounds))
			return ReactOut{Answer: r.Final, Rounds: round, Trace: trace}, nil
		default:
			step.Thought, step.Action, step.Input = r.Thought, r.Action, r.Input
			observation = runTool(r.Action, r.Input)
			step.Observation = observation
			note = fmt.Sprintf("%s: %s → %s", r.Action, clip(r.Input, 60), clip(observation, 60))
		}
		trace = append(trace, step)
		progress(float64(round), float64(rounds), fmt.Sprintf("round %d of %d: %s", round, rounds, note))
		messages = append(messages,
			Message{Role: "assistant", Content: text},
			Message{Role: "user", Content: "Observation: " + observation})
	}
	return ReactOut{}, fmt.Errorf("no Final answer after %d rounds (max_rounds %d); the trace:\n%s", rounds, rounds, traceText(trace))
}

// traceText renders a trace for an error message.
func traceText(trace []Step) string {
	var b strings.Builder
	for i, s := range trace {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch {
		case s.Error != "":
			fmt.Fprintf(&b, "%d. protocol error: %s", s.Round, s.Error)
		default:
			fmt.Fprintf(&b, "%d. %s: %s → %s", s.Round, s.Action, clip(s.Input, 200), clip(s.Observation, 200))
		}
	}
	return b.String()
}
