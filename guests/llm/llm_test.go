package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

var ctx = context.Background()

// Native unit tests of the pure logic (voting, parsing, retries, configuration). The
// module itself runs under the host in wasm_test.go.

func TestNormalizeAndTally(t *testing.T) {
	if got := Normalize("  The   Answer\tIS\n42 "); got != "the answer is 42" {
		t.Errorf("Normalize = %q", got)
	}
	got := Tally([]string{"Paris", "Lyon", " paris\n", "LYON", "Nice", "PARIS"})
	want := []Group{{Answer: "Paris", Votes: 3}, {Answer: "Lyon", Votes: 2}, {Answer: "Nice", Votes: 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tally (-want +got):\n%s", diff)
	}
	// Equal votes keep first-appearance order.
	got = Tally([]string{"b", "a", "a", "b", "c"})
	if want := []Group{{"b", 2}, {"a", 2}, {"c", 1}}; !slices.Equal(got, want) {
		t.Errorf("Tally ties = %v, want %v", got, want)
	}
}

func TestParseVote(t *testing.T) {
	for _, tc := range []struct {
		reply string
		k     int
		want  int
		err   string
	}{
		{"2", 3, 2, ""},
		{" 1.\n", 2, 1, ""},
		{"two", 2, 0, `the vote "two" is not a number`},
		{"Answer 2", 2, 0, `the vote "Answer 2" is not a number`},
		{"+1", 2, 0, `the vote "+1" is not a number`},
		{"3", 2, 0, "the vote 3 is not between 1 and 2"},
		{"0", 2, 0, "the vote 0 is not between 1 and 2"},
	} {
		got, err := ParseVote(tc.reply, tc.k)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("ParseVote(%q, %d) = %d, %v; want %d, %q", tc.reply, tc.k, got, err, tc.want, tc.err)
		}
	}
}

func TestParseReply(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       Reply
		err        string
	}{
		{"calc", "Thought: multiply first\nAction: calc: 17 * 23\n", Reply{Thought: "multiply first", Action: "calc", Input: "17 * 23"}, ""},
		{"echo, CRLF, blank lines", "\r\nThought: a\r\nThought: b\r\n\r\nAction: echo: hi: there\r\n\r\n", Reply{Thought: "a\nb", Action: "echo", Input: "hi: there"}, ""},
		{"final only", "Final: 391", Reply{Final: "391", IsFinal: true}, ""},
		{"final multi-line", "Thought: done\nFinal: line one\nline two\n", Reply{Thought: "done", Final: "line one\nline two", IsFinal: true}, ""},
		{"free text", "Sure! Let me compute.\nAction: calc: 1+1", Reply{}, `line 1 does not start with "Thought:", "Action:" or "Final:": "Sure! Let me compute."`},
		{"two actions", "Action: calc: 1+1\nAction: calc: 2+2", Reply{}, "line 2: text after the Action line (one Action per reply, then wait for its Observation)"},
		{"invented observation", "Action: calc: 1+1\nObservation: 2", Reply{}, "line 2: text after the Action line (one Action per reply, then wait for its Observation)"},
		{"unknown tool", "Action: python: print(1)", Reply{}, `line 1: unknown tool "python" (the tools are calc and echo)`},
		{"tool case", "Action: Calc: 1", Reply{}, `line 1: unknown tool "Calc" (the tools are calc and echo)`},
		{"no input separator", "Action: calc 1+1", Reply{}, `line 1: an Action is "Action: calc: <expression>" or "Action: echo: <text>"`},
		{"empty final", "Final:   \n\n", Reply{}, "line 1: the Final answer is empty"},
		{"nothing", "Thought: hmm", Reply{}, `no "Action:" or "Final:" line`},
		{"empty", "", Reply{}, `no "Action:" or "Final:" line`},
		{"lower-case keyword", "final: 3", Reply{}, `line 1 does not start with "Thought:", "Action:" or "Final:": "final: 3"`},
	} {
		got, err := ParseReply(tc.text)
		if (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err || got != tc.want {
			t.Errorf("%s: ParseReply = %+v, %v; want %+v, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

func TestRunTool(t *testing.T) {
	for _, tc := range []struct{ tool, input, want string }{
		{"calc", "17*23", "391"},
		{"calc", "2^0.5", "1.4142135623730951"},
		{"calc", "1/0", "error: division by zero"},
		{"calc", "import os", `error: unknown name "import" at offset 0`},
		{"echo", "hello", "hello"},
	} {
		if got := runTool(tc.tool, tc.input); got != tc.want {
			t.Errorf("runTool(%s, %q) = %q, want %q", tc.tool, tc.input, got, tc.want)
		}
	}
}

func TestClamp(t *testing.T) {
	p := func(n int) *int { return &n }
	for _, tc := range []struct {
		in   *int
		want int
	}{{nil, 3}, {p(0), 1}, {p(-5), 1}, {p(1), 1}, {p(9), 9}, {p(10), 9}, {p(1 << 40), 9}} {
		if got := clampInt(tc.in, DefaultN, MinN, MaxN); got != tc.want {
			t.Errorf("clampInt(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// scripted is a Sampler that answers from a list and records what it was asked.
type scripted struct {
	replies []string
	errs    map[int]error // by 0-based request
	seen    [][]Message
	temps   []*float64
}

func (s *scripted) Sample(_ context.Context, m []Message, temp *float64) (string, error) {
	i := len(s.seen)
	s.seen = append(s.seen, slices.Clone(m))
	s.temps = append(s.temps, temp)
	if err := s.errs[i]; err != nil {
		return "", err
	}
	if i >= len(s.replies) {
		return "", fmt.Errorf("scripted: no reply %d", i)
	}
	return s.replies[i], nil
}

func useSampler(t *testing.T, s Sampler) {
	t.Helper()
	old := newSampler
	newSampler = func() (Sampler, error) { return s, nil }
	t.Cleanup(func() { newSampler = old })
}

func TestConsensus(t *testing.T) {
	s := &scripted{replies: []string{"Paris", "paris ", "Lyon"}}
	useSampler(t, s)
	temp := 0.7
	out, err := Consensus(ctx, ConsensusIn{Prompt: "Capital of France?", Temperature: &temp})
	want := ConsensusOut{Answer: "Paris", Agreement: 0.6667, Votes: 2, N: 3, Strategy: "majority", Answers: []string{"Paris", "paris ", "Lyon"}}
	if err != nil || !reflect.DeepEqual(out, want) {
		t.Errorf("Consensus = %+v, %v; want %+v", out, err, want)
	}
	if len(s.seen) != 3 || s.seen[0][0] != (Message{Role: "user", Content: "Capital of France?"}) || *s.temps[2] != 0.7 {
		t.Errorf("requests: %v temps %v", s.seen, s.temps)
	}

	// Unanimous without agreement: a tool error showing the answers.
	useSampler(t, &scripted{replies: []string{"4", "four", "4"}})
	_, err = Consensus(ctx, ConsensusIn{Prompt: "2+2?", Strategy: "unanimous"})
	if want := "no unanimous agreement: 2 distinct answers among 3 samples:\n1. 4\n2. four\n3. 4"; err == nil || err.Error() != want {
		t.Errorf("unanimous: %v, want %q", err, want)
	}
	useSampler(t, &scripted{replies: []string{"Four", " four"}})
	n := 2
	if out, err := Consensus(ctx, ConsensusIn{Prompt: "2+2?", Strategy: "unanimous", N: &n}); err != nil || out.Agreement != 1 || out.Answer != "Four" {
		t.Errorf("unanimous agreement: %+v, %v", out, err)
	}

	// A tie is broken by a numeric vote at temperature 0.
	s = &scripted{replies: []string{"A", "B", "2"}}
	useSampler(t, s)
	out, err = Consensus(ctx, ConsensusIn{Prompt: "pick", N: &n})
	if err != nil || out.Answer != "B" || out.Votes != 1 || out.Agreement != 0.5 || !out.TieBreak {
		t.Errorf("tie: %+v, %v", out, err)
	}
	if len(s.seen) != 3 || !strings.Contains(s.seen[2][0].Content, "1. A\n2. B") || *s.temps[2] != 0 {
		t.Errorf("tie-break request: %+v", s.seen[2])
	}
	// A vote that is not a number is a tool error naming it.
	useSampler(t, &scripted{replies: []string{"A", "B", "I prefer B"}})
	_, err = Consensus(ctx, ConsensusIn{Prompt: "pick", N: &n})
	if want := "2 answers tied with 1 votes each and the tie-break vote failed: the vote \"I prefer B\" is not a number; the answers:\n1. A\n2. B"; err == nil || err.Error() != want {
		t.Errorf("non-numeric vote: %v\nwant %q", err, want)
	}
}

func TestConsensusErrors(t *testing.T) {
	s := &scripted{replies: []string{"x"}, errs: map[int]error{1: errors.New("boom")}}
	useSampler(t, s)
	if _, err := Consensus(ctx, ConsensusIn{Prompt: "q"}); err == nil || err.Error() != "sample 2 of 3: boom" {
		t.Errorf("sampler error: %v", err)
	}
	bad := 2.5
	for _, tc := range []struct {
		in   ConsensusIn
		want string
	}{
		{ConsensusIn{Prompt: "  "}, "prompt is empty"},
		{ConsensusIn{Prompt: strings.Repeat("x", MaxPromptBytes+1)}, "prompt is 32769 bytes, over the limit of 32768"},
		{ConsensusIn{Prompt: "q", Strategy: "plurality"}, `strategy must be majority or unanimous, got "plurality"`},
		{ConsensusIn{Prompt: "q", Temperature: &bad}, "temperature must be between 0 and 2, got 2.5"},
	} {
		s := &scripted{}
		useSampler(t, s)
		if _, err := Consensus(ctx, tc.in); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.in, err, tc.want)
		}
		if len(s.seen) != 0 {
			t.Errorf("%+v: sampled", tc.in)
		}
	}
}

func TestReact(t *testing.T) {
	s := &scripted{replies: []string{
		"Thought: multiply\nAction: calc: 17*23",
		"I think the answer is 391",
		"Action: echo: 391",
		"Thought: done\nFinal: 391",
	}}
	useSampler(t, s)
	var reports []string
	oldP := progress
	progress = func(p, total float64, msg string) { reports = append(reports, fmt.Sprintf("%v/%v %s", p, total, msg)) }
	t.Cleanup(func() { progress = oldP })
	out, err := React(ctx, ReactIn{Prompt: "What is 17*23?"})
	if err != nil {
		t.Fatal(err)
	}
	want := ReactOut{Answer: "391", Rounds: 4, Trace: []Step{
		{Round: 1, Thought: "multiply", Action: "calc", Input: "17*23", Observation: "391"},
		{Round: 2, Error: `line 1 does not start with "Thought:", "Action:" or "Final:": "I think the answer is 391"`},
		{Round: 3, Action: "echo", Input: "391", Observation: "391"},
		{Round: 4, Thought: "done", Final: "391"},
	}}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("React (-want +got):\n%s", diff)
	}
	wantReports := []string{
		"1/4 round 1 of 4: calc: 17*23 → 391",
		"2/4 round 2 of 4: protocol error",
		"3/4 round 3 of 4: echo: 391 → 391",
		"4/4 round 4 of 4: final answer",
	}
	if !slices.Equal(reports, wantReports) {
		t.Errorf("progress = %q\nwant %q", reports, wantReports)
	}
	// The model saw the protocol, its task, and each observation in turn.
	last := s.seen[3]
	if len(last) != 8 || last[0].Role != "system" || !strings.Contains(last[0].Content, "at most 4 replies") ||
		last[1].Content != "What is 17*23?" || last[3].Content != "Observation: 391" ||
		!strings.HasPrefix(last[5].Content, "Observation: protocol error: line 1 does not start") {
		t.Errorf("messages of round 4: %+v", last)
	}
}

func TestReactBoundsAndCancel(t *testing.T) {
	loop := make([]string, 20)
	for i := range loop {
		loop[i] = "Action: calc: 1+1"
	}
	p := func(n int) *int { return &n }
	for _, tc := range []struct {
		max  *int
		want int
	}{{nil, 4}, {p(0), 1}, {p(100), 8}} {
		s := &scripted{replies: loop}
		useSampler(t, s)
		_, err := React(ctx, ReactIn{Prompt: "loop", MaxRounds: tc.max})
		if len(s.seen) != tc.want || err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("no Final answer after %d rounds", tc.want)) {
			t.Errorf("max_rounds %v: %d requests, %v; want %d", tc.max, len(s.seen), err, tc.want)
		}
	}
	// Cancelled after round 2: no third request.
	s := &scripted{replies: loop}
	useSampler(t, s)
	old := cancelled
	cancelled = func() bool { return len(s.seen) >= 2 }
	t.Cleanup(func() { cancelled = old })
	if _, err := React(ctx, ReactIn{Prompt: "loop"}); err == nil || err.Error() != "cancelled after round 2 of 4" || len(s.seen) != 2 {
		t.Errorf("cancel: %v after %d requests", err, len(s.seen))
	}
}

func TestLoadConfig(t *testing.T) {
	env := map[string]string{}
	old := lookupEnv
	lookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	t.Cleanup(func() { lookupEnv = old })

	_, err := LoadConfig()
	want := `the model endpoint is not configured: env "MCPWASM_LLM_BASE_URL" is not granted or not set (grant it in the guest's "env" grant and set it where mcpwasm serve runs); ` +
		`env "MCPWASM_LLM_MODEL" is not granted or not set (grant it in the guest's "env" grant and set it where mcpwasm serve runs). An "env" entry "NAME" passes the server's value ` +
		`(a variable the server's environment lacks stays missing); "NAME=value" sets one. ` +
		`mcpwasm call passes a server it spawns only a minimal environment: add --env NAME for each.`
	if err == nil || err.Error() != want {
		t.Errorf("nothing set: %v\nwant %q", err, want)
	}
	env[EnvBaseURL] = "http://localhost:11434/v1/"
	env[EnvModel] = " " // empty counts as missing
	var nc *NotConfiguredError
	if _, err := LoadConfig(); !errors.As(err, &nc) || !slices.Equal(nc.Missing, []string{EnvModel}) {
		t.Errorf("model empty: %v", err)
	}
	env[EnvModel] = "llama3"
	if c, err := LoadConfig(); err != nil || c != (Config{BaseURL: "http://localhost:11434/v1", Model: "llama3"}) {
		t.Errorf("configured: %+v, %v", c, err)
	}
	env[EnvBaseURL] = "localhost:11434"
	if _, err := LoadConfig(); err == nil || !strings.HasPrefix(err.Error(), `env "MCPWASM_LLM_BASE_URL" is "localhost:11434": want an http or https base URL`) {
		t.Errorf("bad URL: %v", err)
	}
}

// fakeClock records waits; real says whether it has real time.
type fakeClock struct {
	real  bool
	slept []time.Duration
}

func (c *fakeClock) Real() bool { return c.real }
func (c *fakeClock) Sleep(d time.Duration) bool {
	c.slept = append(c.slept, d)
	return true
}

func completion(content string) *abi.HTTPResponse {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
	return &abi.HTTPResponse{Status: 200, Body: string(b)}
}

func status(code int, retryAfter, body string) *abi.HTTPResponse {
	r := &abi.HTTPResponse{Status: code, Body: body, Headers: map[string][]string{}}
	if retryAfter != "" {
		r.Headers["Retry-After"] = []string{retryAfter}
	}
	return r
}

func TestEndpoint(t *testing.T) {
	const url = "https://llm.example.test/v1/chat/completions"
	denied := &guest.RequestError{Kind: "http", Status: abi.StatusDenied, Message: `net: host "llm.example.test" is not granted to guest "llm"`}
	for _, tc := range []struct {
		name  string
		real  bool
		resps []*abi.HTTPResponse
		err   error
		want  string // answer, or "error: …"
		calls int
		slept []time.Duration
	}{
		{name: "ok", resps: []*abi.HTTPResponse{completion("hi")}, want: "hi", calls: 1},
		{name: "429 retry-after 0 without clock", resps: []*abi.HTTPResponse{status(429, "0", ""), completion("hi")}, want: "hi", calls: 2, slept: []time.Duration{0}},
		{name: "429 retry-after 2 without clock", resps: []*abi.HTTPResponse{status(429, "2", `{"error":{"message":"slow down"}}`)}, calls: 1,
			want: `error: model endpoint ` + url + `: HTTP 429 Too Many Requests: slow down (rate limited; not retried: the guest would wait 2s first and has no real clock (grant "clock" to let it wait and retry))`},
		{name: "429 retry-after 2 with clock", real: true, resps: []*abi.HTTPResponse{status(429, "2", ""), completion("hi")}, want: "hi", calls: 2, slept: []time.Duration{2 * time.Second}},
		{name: "429 retry-after too long", real: true, resps: []*abi.HTTPResponse{status(429, "60", "")}, calls: 1,
			want: "error: model endpoint " + url + ": HTTP 429 Too Many Requests (rate limited; the server asks to retry after 1m0s, longer than the 10s left of the call's 10s retry budget)"},
		{name: "5xx backoff with clock", real: true, resps: []*abi.HTTPResponse{status(503, "", ""), status(502, "", ""), completion("hi")}, want: "hi", calls: 3,
			slept: []time.Duration{500 * time.Millisecond, time.Second}},
		{name: "5xx gives up", real: true, resps: []*abi.HTTPResponse{status(500, "", "oops"), status(500, "", "oops"), status(500, "", "oops again")}, calls: 3,
			slept: []time.Duration{500 * time.Millisecond, time.Second},
			want:  "error: model endpoint " + url + ": HTTP 500 Internal Server Error: oops again (gave up after 3 attempts)"},
		{name: "501 not retried", real: true, resps: []*abi.HTTPResponse{status(501, "", "")}, calls: 1,
			want: "error: model endpoint " + url + ": HTTP 501 Not Implemented"},
		{name: "401", resps: []*abi.HTTPResponse{status(401, "", `{"error":{"message":"Incorrect API key provided"}}`)}, calls: 1,
			want: "error: model endpoint " + url + ": HTTP 401 Unauthorized: Incorrect API key provided (check the API key in MCPWASM_LLM_API_KEY)"},
		{name: "404", resps: []*abi.HTTPResponse{status(404, "", `{"error":"model not found"}`)}, calls: 1,
			want: "error: model endpoint " + url + ": HTTP 404 Not Found: model not found (check MCPWASM_LLM_BASE_URL (the guest posts to {base}/chat/completions) and MCPWASM_LLM_MODEL)"},
		{name: "not JSON", resps: []*abi.HTTPResponse{{Status: 200, Body: "<html>gateway</html>"}}, calls: 1,
			want: `error: malformed response from the model endpoint: not chat-completions JSON (invalid character '<' looking for beginning of value): "<html>gateway</html>"`},
		{name: "no choices", resps: []*abi.HTTPResponse{{Status: 200, Body: `{"choices":[]}`}}, calls: 1,
			want: `error: malformed response from the model endpoint: no choices: "{\"choices\":[]}"`},
		{name: "no content", resps: []*abi.HTTPResponse{{Status: 200, Body: `{"choices":[{"message":{"role":"assistant"}}]}`}}, calls: 1,
			want: `error: malformed response from the model endpoint: the first choice has no message content: "{\"choices\":[{\"message\":{\"role\":\"assistant\"}}]}"`},
		{name: "binary", resps: []*abi.HTTPResponse{{Status: 200, BodyBase64: "AAA="}}, calls: 1,
			want: "error: malformed response from the model endpoint: the body is not UTF-8 text"},
		{name: "over-long answer", resps: []*abi.HTTPResponse{completion(strings.Repeat("a", MaxAnswerBytes+1))}, calls: 1,
			want: "error: the model's answer is 16385 bytes, over the limit of 16384"},
		{name: "net denied", err: denied, calls: 1,
			want: `error: model endpoint ` + url + `: net: host "llm.example.test" is not granted to guest "llm" (add "llm.example.test" to the guest's "net" grant)`},
	} {
		var seen []abi.HTTPRequest
		clk := &fakeClock{real: tc.real}
		e := &endpoint{cfg: Config{BaseURL: "https://llm.example.test/v1", Model: "m", APIKey: "sk"}, clock: clk,
			do: func(r abi.HTTPRequest) (*abi.HTTPResponse, error) {
				seen = append(seen, r)
				if tc.err != nil {
					return nil, tc.err
				}
				return tc.resps[len(seen)-1], nil
			}}
		got, err := e.Sample(ctx, []Message{{Role: "user", Content: "q"}}, nil)
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tc.want || len(seen) != tc.calls || !slices.Equal(clk.slept, tc.slept) {
			t.Errorf("%s: got %q after %d requests, slept %v\nwant %q after %d, slept %v", tc.name, got, len(seen), clk.slept, tc.want, tc.calls, tc.slept)
		}
		if len(seen) > 0 {
			r := seen[0]
			if r.Method != "POST" || r.URL != url || r.Headers["Authorization"][0] != "Bearer sk" || r.Body != `{"model":"m","messages":[{"role":"user","content":"q"}]}` {
				t.Errorf("%s: request %+v", tc.name, r)
			}
		}
	}
}

// The retry budget is per call: waits add up over every sample of the call.
func TestEndpointRetryBudget(t *testing.T) {
	clk := &fakeClock{real: true}
	n := 0
	e := &endpoint{cfg: Config{BaseURL: "https://llm.example.test/v1", Model: "m"}, clock: clk,
		do: func(r abi.HTTPRequest) (*abi.HTTPResponse, error) {
			n++
			if n%2 == 1 {
				return status(429, "6", ""), nil
			}
			return completion("ok"), nil
		}}
	if got, err := e.Sample(ctx, nil, nil); got != "ok" || err != nil {
		t.Fatalf("first sample: %q, %v", got, err)
	}
	_, err := e.Sample(ctx, nil, nil)
	want := "model endpoint https://llm.example.test/v1/chat/completions: HTTP 429 Too Many Requests (rate limited; the server asks to retry after 6s, longer than the 4s left of the call's 10s retry budget)"
	if err == nil || err.Error() != want || n != 3 || !slices.Equal(clk.slept, []time.Duration{6 * time.Second}) {
		t.Errorf("second sample: %v after %d requests, slept %v\nwant %q", err, n, clk.slept, want)
	}
}

// Backoff waits count against the budget too, and say they are the guest's own.
func TestEndpointBackoffBudget(t *testing.T) {
	clk := &fakeClock{real: true}
	e := &endpoint{cfg: Config{BaseURL: "https://llm.example.test/v1", Model: "m"}, clock: clk, waited: MaxWait - time.Second,
		do: func(r abi.HTTPRequest) (*abi.HTTPResponse, error) { return status(502, "", ""), nil }}
	_, err := e.Sample(ctx, nil, nil)
	want := "model endpoint https://llm.example.test/v1/chat/completions: HTTP 502 Bad Gateway (the next retry would wait 1s, longer than the 500ms left of the call's 10s retry budget)"
	if err == nil || err.Error() != want || !slices.Equal(clk.slept, []time.Duration{500 * time.Millisecond}) {
		t.Errorf("got %v, slept %v\nwant %q", err, clk.slept, want)
	}
}

// The hand-written schemas list exactly the fields of the Go types.
func TestSchemasMatchTypes(t *testing.T) {
	check := func(name string, raw json.RawMessage, typ reflect.Type) {
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := s.Resolve(nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		inferred, err := jsonschema.ForType(typ, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for k := range s.Properties {
			got = append(got, k)
		}
		for k := range inferred.Properties {
			want = append(want, k)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s properties %v, the Go type has %v", name, got, want)
		}
	}
	check("consensus input", consensusInput, reflect.TypeFor[ConsensusIn]())
	check("consensus output", consensusOutput, reflect.TypeFor[ConsensusOut]())
	check("react input", reactInput, reflect.TypeFor[ReactIn]())
	check("react output", reactOutput, reflect.TypeFor[ReactOut]())
}
