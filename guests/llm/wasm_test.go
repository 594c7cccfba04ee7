package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// These tests build the guest to wasm and run it under runtime.Host with grants, its net
// grant routed by a fake resolver and dialer to an httptest server that plays an
// OpenAI-compatible endpoint, and one test serves it with the mcpwasm binary over stdio.

var work struct {
	dir  string // temp dir: built modules, the mcpwasm binary, the compilation cache
	once sync.Once
	wasm []byte
	err  error

	binOnce sync.Once
	bin     string
	binErr  error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpwasm-llm-")
	if err != nil {
		panic(err)
	}
	work.dir = dir
	logMsg = func(abi.Level, string) {} // the native tests' retries need no stderr lines
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// llmWasm builds this guest once per test binary, as guests/granted.sh does.
func llmWasm(t *testing.T) []byte {
	t.Helper()
	work.once.Do(func() {
		out := filepath.Join(work.dir, "llm.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			work.err = fmt.Errorf("building guests/llm: %v\n%s", err, b)
			return
		}
		work.wasm, work.err = os.ReadFile(out)
	})
	if work.err != nil {
		t.Fatal(work.err)
	}
	return work.wasm
}

// The endpoint's host name, and the public-looking address the fake resolver gives it.
const (
	apiHost = "llm.example.test"
	apiAddr = "203.0.113.10"
	baseURL = "http://" + apiHost + "/v1"
)

// fakeAPI is an OpenAI-compatible chat-completions endpoint. reply answers request n
// (0-based); every request is recorded.
type fakeAPI struct {
	srv   *httptest.Server
	reply func(n int, w http.ResponseWriter, req chatRequest)

	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	path, auth string
	body       chatRequest
}

func newFakeAPI(t *testing.T, reply func(n int, w http.ResponseWriter, req chatRequest)) *fakeAPI {
	t.Helper()
	f := &fakeAPI{reply: reply}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &req); err != nil {
			t.Errorf("request body %q: %v", b, err)
		}
		f.mu.Lock()
		n := len(f.reqs)
		f.reqs = append(f.reqs, recorded{path: r.Method + " " + r.URL.Path, auth: r.Header.Get("Authorization"), body: req})
		f.mu.Unlock()
		f.reply(n, w, req)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// answer writes a chat completion whose first choice says content.
func answer(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
}

// answers replies with contents in turn.
func answers(contents ...string) func(int, http.ResponseWriter, chatRequest) {
	return func(n int, w http.ResponseWriter, _ chatRequest) {
		if n >= len(contents) {
			http.Error(w, "unexpected request", http.StatusTeapot)
			return
		}
		answer(w, contents[n])
	}
}

// fakeNet resolves apiHost to apiAddr and sends dials for it to the fake API.
type fakeNet struct{ server string }

func (f *fakeNet) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	switch host {
	case apiHost:
		return []netip.Addr{netip.MustParseAddr(apiAddr)}, nil
	case "localhost":
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// DialContext routes apiHost's port 80 and Ollama's localhost:11434 (examples/llm) to the
// fake API.
func (f *fakeNet) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr != apiAddr+":80" && addr != "127.0.0.1:11434" {
		return nil, fmt.Errorf("fake network: no route to %s", addr)
	}
	return (&net.Dialer{}).DialContext(ctx, network, f.server)
}

// configured are the grants of a fully configured guest.
func configured() runtime.Grants {
	return runtime.Grants{Net: []string{apiHost}, Env: []string{
		EnvBaseURL + "=" + baseURL, EnvModel + "=test-model", EnvAPIKey + "=sk-test"}}
}

// load runs the guest under a host whose network leads to api, with grants.
func load(t *testing.T, api *fakeAPI, grants runtime.Grants) *runtime.Guest {
	t.Helper()
	return loadConfig(t, api, &runtime.GuestConfig{Grants: grants, Limits: runtime.Limits{Timeout: time.Minute}})
}

func loadConfig(t *testing.T, api *fakeAPI, cfg *runtime.GuestConfig) *runtime.Guest {
	t.Helper()
	wasm := llmWasm(t)
	fn := &fakeNet{server: api.srv.Listener.Addr().String()}
	h, err := runtime.NewHost(context.Background(), &runtime.Options{
		CacheDir: filepath.Join(work.dir, "cache"),
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Net:      peer.Net{Resolver: fn, DialContext: fn.DialContext},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	g, err := h.Load(context.Background(), wasm, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

type toolResult struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (r toolResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

func call(t *testing.T, ctx context.Context, g *runtime.Guest, tool, args string) toolResult {
	t.Helper()
	out, err := g.Call(ctx, tool, []byte(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	var r toolResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: result %s: %v", tool, out, err)
	}
	return r
}

func TestWasmConsensusMajority(t *testing.T) {
	api := newFakeAPI(t, answers("Paris", "  PARIS\n", "Lyon"))
	g := load(t, api, configured())
	r := call(t, context.Background(), g, "consensus", `{"prompt":"Capital of France? One word.","temperature":0.4}`)
	var out ConsensusOut
	if r.IsError || json.Unmarshal(r.StructuredContent, &out) != nil {
		t.Fatalf("consensus: %+v", r)
	}
	if out.Answer != "Paris" || out.Agreement != 0.6667 || out.Votes != 2 || out.N != 3 || out.Strategy != "majority" || len(out.Answers) != 3 {
		t.Errorf("consensus = %+v", out)
	}
	reqs := api.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for _, q := range reqs {
		if q.path != "POST /v1/chat/completions" || q.auth != "Bearer sk-test" || q.body.Model != "test-model" ||
			q.body.Temperature == nil || *q.body.Temperature != 0.4 ||
			len(q.body.Messages) != 1 || q.body.Messages[0] != (Message{Role: "user", Content: "Capital of France? One word."}) {
			t.Errorf("request %+v", q)
		}
	}
}

func TestWasmConsensusUnanimousFails(t *testing.T) {
	api := newFakeAPI(t, answers("4", "four", "4"))
	g := load(t, api, configured())
	r := call(t, context.Background(), g, "consensus", `{"prompt":"2+2?","strategy":"unanimous"}`)
	if want := "no unanimous agreement: 2 distinct answers among 3 samples:\n1. 4\n2. four\n3. 4"; !r.IsError || r.text() != want {
		t.Errorf("got %+v, want tool error %q", r, want)
	}
}

// The fake sees exactly the clamped number of requests.
func TestWasmClamping(t *testing.T) {
	api := newFakeAPI(t, func(n int, w http.ResponseWriter, _ chatRequest) { answer(w, "Action: echo: again") })
	g := load(t, api, configured())
	seen := 0
	for _, tc := range []struct {
		tool, args string
		want       int
	}{
		{"consensus", `{"prompt":"q","n":50}`, 9},
		{"consensus", `{"prompt":"q","n":0}`, 1},
		{"consensus", `{"prompt":"q","n":-3}`, 1},
		{"consensus", `{"prompt":"q"}`, 3},
		{"react_loop", `{"prompt":"q","max_rounds":100}`, 8},
		{"react_loop", `{"prompt":"q","max_rounds":0}`, 1},
		{"react_loop", `{"prompt":"q"}`, 4},
	} {
		r := call(t, context.Background(), g, tc.tool, tc.args)
		got := len(api.requests()) - seen
		seen += got
		if got != tc.want {
			t.Errorf("%s %s: %d requests, want %d (%s)", tc.tool, tc.args, got, tc.want, r.text())
		}
		if tc.tool == "react_loop" && (!r.IsError || !strings.HasPrefix(r.text(), fmt.Sprintf("no Final answer after %d rounds", tc.want))) {
			t.Errorf("%s: %+v", tc.args, r)
		}
	}
}

func TestWasmReactCalculator(t *testing.T) {
	api := newFakeAPI(t, func(n int, w http.ResponseWriter, req chatRequest) {
		switch n {
		case 0:
			answer(w, "Thought: I should multiply.\nAction: calc: 17 * 23 + 2^3")
		case 1:
			if last := req.Messages[len(req.Messages)-1]; last != (Message{Role: "user", Content: "Observation: 399"}) {
				t.Errorf("round 2 sees %+v, want the calculator's observation", last)
			}
			answer(w, "Thought: that is it.\nFinal: 399")
		default:
			http.Error(w, "too many rounds", http.StatusTeapot)
		}
	})
	g := load(t, api, configured())
	var mu sync.Mutex
	var reports []string
	ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{Progress: func(p, total float64, msg string) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, fmt.Sprintf("%v/%v %s", p, total, msg))
	}})
	r := call(t, ctx, g, "react_loop", `{"prompt":"What is 17*23+2^3?"}`)
	var out ReactOut
	if r.IsError || json.Unmarshal(r.StructuredContent, &out) != nil {
		t.Fatalf("react_loop: %+v", r)
	}
	want := ReactOut{Answer: "399", Rounds: 2, Trace: []Step{
		{Round: 1, Thought: "I should multiply.", Action: "calc", Input: "17 * 23 + 2^3", Observation: "399"},
		{Round: 2, Thought: "that is it.", Final: "399"},
	}}
	if fmt.Sprint(out) != fmt.Sprint(want) {
		t.Errorf("react_loop = %+v\nwant %+v", out, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if got, wantP := strings.Join(reports, "\n"), "1/4 round 1 of 4: calc: 17 * 23 + 2^3 → 399\n2/4 round 2 of 4: final answer"; got != wantP {
		t.Errorf("progress:\n%s\nwant\n%s", got, wantP)
	}
	if reqs := api.requests(); len(reqs) != 2 || reqs[0].body.Messages[0].Role != "system" {
		t.Errorf("requests: %+v", reqs)
	}
}

func TestWasmRetries(t *testing.T) {
	// 429 with Retry-After: 0, then success: retried at once, no clock needed.
	api := newFakeAPI(t, func(n int, w http.ResponseWriter, _ chatRequest) {
		if n == 0 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":{"message":"Rate limit reached"}}`, http.StatusTooManyRequests)
			return
		}
		answer(w, "42")
	})
	g := load(t, api, configured())
	r := call(t, context.Background(), g, "consensus", `{"prompt":"q","n":1}`)
	if r.IsError || !strings.Contains(string(r.StructuredContent), `"answer":"42"`) || len(api.requests()) != 2 {
		t.Errorf("429 then success: %+v after %d requests", r, len(api.requests()))
	}

	// 429 asking for a wait, without the clock grant: not retried, and the error says why.
	api = newFakeAPI(t, func(n int, w http.ResponseWriter, _ chatRequest) {
		w.Header().Set("Retry-After", "3")
		http.Error(w, `{"error":{"message":"Rate limit reached"}}`, http.StatusTooManyRequests)
	})
	g = load(t, api, configured())
	r = call(t, context.Background(), g, "consensus", `{"prompt":"q","n":1}`)
	want := `sample 1 of 1: model endpoint ` + baseURL + `/chat/completions: HTTP 429 Too Many Requests: Rate limit reached ` +
		`(rate limited; not retried: the guest would wait 3s first and has no real clock (grant "clock" to let it wait and retry))`
	if !r.IsError || r.text() != want || len(api.requests()) != 1 {
		t.Errorf("429 without clock: %+v after %d requests\nwant %q", r, len(api.requests()), want)
	}

	// 503 then success with the clock grant: the guest really waits its 0.5 s backoff.
	api = newFakeAPI(t, func(n int, w http.ResponseWriter, _ chatRequest) {
		if n == 0 {
			http.Error(w, "upstream overloaded", http.StatusServiceUnavailable)
			return
		}
		answer(w, "42")
	})
	grants := configured()
	grants.Clock = true
	g = load(t, api, grants)
	var logs []string
	ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{Log: func(_ abi.Level, msg string) { logs = append(logs, msg) }})
	start := time.Now()
	r = call(t, ctx, g, "consensus", `{"prompt":"q","n":1}`)
	if r.IsError || len(api.requests()) != 2 {
		t.Errorf("503 then success: %+v after %d requests", r, len(api.requests()))
	}
	if want := "model endpoint answered HTTP 503; retrying in 500ms (attempt 2 of 3)"; len(logs) != 1 || logs[0] != want {
		t.Errorf("logs %q, want [%q]", logs, want)
	}
	if d := time.Since(start); d < firstBackoff {
		t.Errorf("retried after %v, want a wait of at least %v", d, firstBackoff)
	}
}

func TestWasmEndpointErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply func(int, http.ResponseWriter, chatRequest)
		want  string
	}{
		{"401", func(_ int, w http.ResponseWriter, _ chatRequest) {
			http.Error(w, `{"error":{"message":"Incorrect API key provided: sk-test"}}`, http.StatusUnauthorized)
		}, "sample 1 of 1: model endpoint " + baseURL + "/chat/completions: HTTP 401 Unauthorized: Incorrect API key provided: sk-test (check the API key in MCPWASM_LLM_API_KEY)"},
		{"malformed", func(_ int, w http.ResponseWriter, _ chatRequest) { fmt.Fprint(w, `{"choices": [`) },
			`sample 1 of 1: malformed response from the model endpoint: not chat-completions JSON (unexpected end of JSON input): "{\"choices\": ["`},
		{"over-long answer", func(_ int, w http.ResponseWriter, _ chatRequest) { answer(w, strings.Repeat("x", MaxAnswerBytes+1)) },
			"sample 1 of 1: the model's answer is 16385 bytes, over the limit of 16384"},
	} {
		api := newFakeAPI(t, tc.reply)
		g := load(t, api, configured())
		r := call(t, context.Background(), g, "consensus", `{"prompt":"q","n":1}`)
		if !r.IsError || r.text() != tc.want || len(api.requests()) != 1 {
			t.Errorf("%s: %+v after %d requests\nwant tool error %q", tc.name, r, len(api.requests()), tc.want)
		}
	}
	// A tie whose vote is not a number.
	api := newFakeAPI(t, answers("red", "blue", "I'd say blue"))
	g := load(t, api, configured())
	r := call(t, context.Background(), g, "consensus", `{"prompt":"color?","n":2}`)
	if want := "2 answers tied with 1 votes each and the tie-break vote failed: the vote \"I'd say blue\" is not a number; the answers:\n1. red\n2. blue"; !r.IsError || r.text() != want {
		t.Errorf("non-numeric vote: %+v\nwant %q", r, want)
	}
	// The endpoint's host not granted: the error names the net grant entry to add.
	grants := configured()
	grants.Net = nil
	g = load(t, api, grants)
	r = call(t, context.Background(), g, "react_loop", `{"prompt":"q"}`)
	if want := `round 1 of 4: model endpoint ` + baseURL + `/chat/completions: net: no hosts are granted to guest "llm" (add "llm.example.test" to the guest's "net" grant)`; !r.IsError || r.text() != want {
		t.Errorf("net denied: %+v\nwant %q", r, want)
	}
}

// Cancelling the call while round 2's request is in flight: the call ends cancelled and
// the endpoint sees no further request.
func TestWasmCancelMidLoop(t *testing.T) {
	reached, cancelDone := make(chan struct{}), make(chan struct{})
	api := newFakeAPI(t, func(n int, w http.ResponseWriter, _ chatRequest) {
		if n == 1 {
			close(reached)
			<-cancelDone
		}
		answer(w, "Action: calc: 1+1")
	})
	g := load(t, api, configured())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-reached
		cancel()
		close(cancelDone)
	}()
	_, err := g.Call(ctx, "react_loop", []byte(`{"prompt":"loop forever","max_rounds":8}`))
	if !errors.Is(err, runtime.ErrCancelled) {
		t.Errorf("Call = %v, want ErrCancelled", err)
	}
	if n := len(api.requests()); n != 2 {
		t.Errorf("%d requests, want 2 (none after the cancellation)", n)
	}
}

// mcpwasmBin builds the mcpwasm command once per test binary.
func mcpwasmBin(t *testing.T) string {
	t.Helper()
	work.binOnce.Do(func() {
		work.bin = filepath.Join(work.dir, "mcpwasm")
		if b, err := exec.Command("go", "build", "-o", work.bin, "github.com/mcpwasm/mcpwasm/cmd/mcpwasm").CombinedOutput(); err != nil {
			work.binErr = fmt.Errorf("building mcpwasm: %v\n%s", err, b)
		}
	})
	if work.binErr != nil {
		t.Fatal(work.binErr)
	}
	return work.bin
}

// Served with nothing granted, over stdio: initialize and tools/list work, and a call is a
// tool error naming each missing variable and the grant to add.
func TestServeUnconfigured(t *testing.T) {
	wasm := filepath.Join(work.dir, "llm-serve.wasm")
	if err := os.WriteFile(wasm, llmWasm(t), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mcpwasmBin(t), "serve", "--cache-dir", filepath.Join(work.dir, "cache"), "--log-level", "warn", wasm)
	cmd.Env = []string{"HOME=" + work.dir} // nothing of the test's environment, in particular no MCPWASM_LLM_*
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { // a failed test must not leave the server running
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	lines, done := make(chan string), make(chan struct{})
	defer close(done)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-done:
				return
			}
		}
	}()
	// response waits for the answer to id; the test's own deadline bounds the wait.
	response := func(id int) map[string]any {
		t.Helper()
		for line := range lines {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["id"] == float64(id) {
				return m
			}
		}
		t.Fatalf("no response %d; stderr:\n%s", id, stderr.String())
		return nil
	}
	send := func(s string) {
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if r := response(1); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var names []string
	for _, tool := range response(2)["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "consensus,react_loop" {
		t.Errorf("tools = %v", names)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"consensus","arguments":{"prompt":"hello"}}}`)
	res := response(3)["result"].(map[string]any)
	text := res["content"].([]any)[0].(map[string]any)["text"].(string)
	want := `the model endpoint is not configured: env "MCPWASM_LLM_BASE_URL" is not granted or not set (grant it in the guest's "env" grant and set it where mcpwasm serve runs); ` +
		`env "MCPWASM_LLM_MODEL" is not granted or not set (grant it in the guest's "env" grant and set it where mcpwasm serve runs).`
	if res["isError"] != true || !strings.HasPrefix(text, want) {
		t.Errorf("call: isError=%v %q\nwant prefix %q", res["isError"], text, want)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "requested capabilities not granted") {
		t.Errorf("serve did not log the ungranted requests:\n%s", stderr.String())
	}
}

// The example configs are valid, point at the module granted.sh builds, and grant
// everything the guest requests; the Ollama one works end to end on the fake network.
func TestExampleConfigs(t *testing.T) {
	api := newFakeAPI(t, answers("Paris"))
	for _, tc := range []struct {
		file string
		env  int
	}{{"openai.json", 3}, {"ollama.json", 2}} {
		c, err := config.Load(filepath.Join("..", "..", "examples", "llm", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		g := c.Guests[0]
		if p := c.ModulePath(g); filepath.ToSlash(p) != "../../guests/out/llm.wasm" {
			t.Errorf("%s: module path %s", tc.file, p)
		}
		guest := loadConfig(t, api, c.GuestConfig(g, tc.file))
		if missing := guest.Ungranted(); len(missing) != 0 && tc.env == 3 {
			t.Errorf("%s: ungranted %v", tc.file, missing)
		}
		for _, tool := range []string{"consensus", "react_loop"} {
			_, eff, _ := guest.ToolGrants(tool)
			if len(eff.Net) != 1 || len(eff.Env) != tc.env || !eff.Clock {
				t.Errorf("%s: %s effective grants %+v", tc.file, tool, eff)
			}
		}
		if tc.file != "ollama.json" {
			continue
		}
		r := call(t, context.Background(), guest, "consensus", `{"prompt":"Capital of France?","n":1}`)
		reqs := api.requests()
		if r.IsError || len(reqs) != 1 || reqs[0].body.Model != "llama3.2" || reqs[0].auth != "" || reqs[0].path != "POST /v1/chat/completions" {
			t.Errorf("ollama example: %+v, requests %+v", r, reqs)
		}
	}
}
