package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var confGuest struct {
	once sync.Once
	wasm []byte
	err  error
}

// confWasm builds testdata/guests/conformance once per test binary (into the ask guest's
// temporary directory, which TestMain removes).
func confWasm(t *testing.T) []byte {
	t.Helper()
	askWasm(t) // creates askGuest.dir
	confGuest.once.Do(func() {
		out := filepath.Join(askGuest.dir, "conformance.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, "../testdata/guests/conformance")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			confGuest.err = fmt.Errorf("building testdata/guests/conformance: %v\n%s", err, b)
			return
		}
		confGuest.wasm, confGuest.err = os.ReadFile(out)
	})
	if confGuest.err != nil {
		t.Fatal(confGuest.err)
	}
	return confGuest.wasm
}

// confClient is a 2026-07-28 client (stateless HTTP) of the conformance guest granted the
// three client kinds, which sees input-required results itself (no multi round-trip
// middleware). opts declares the client's capabilities through its handlers.
func confClient(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: askGuest.cache})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	g, err := h.Load(ctx, confWasm(t), &runtime.GuestConfig{Grants: allClientGrants})
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, &mcpserver.Options{RequestStateKey: []byte("0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	return statelessClient(t, s, opts)
}

func keysOf(m mcp.InputRequestMap) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res.NeedsInput() || len(res.Content) != 1 {
		t.Fatalf("want one content block, got needsInput %v, %#v", res.NeedsInput(), res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

var (
	aliceAnswer = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}
	helloAnswer = &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "Hello there!"}}
	rootsAnswer = &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///test/root", Name: "Test Root"}}}
)

// Keyed and deferred requests (ABI.md §6.7 "mcpwasm" options): one round asks three things
// under the guest's keys, and the retry with the three answers completes the call.
func TestClientRequestsKeyedOneRound(t *testing.T) {
	cs := confClient(t, (&fakeClient{}).options())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_multiple_inputs"})
	if err != nil {
		t.Fatal(err)
	}
	if got := keysOf(res.InputRequests); !slices.Equal(got, []string{"client_roots", "greeting", "user_name"}) || res.RequestState == "" {
		t.Fatalf("first round: inputRequests keys %v, requestState %q", got, res.RequestState)
	}
	if p, ok := res.InputRequests["greeting"].(*mcp.CreateMessageWithToolsParams); !ok || p.MaxTokens != 50 {
		t.Errorf("greeting = %#v, want sampling params with maxTokens 50", res.InputRequests["greeting"])
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_multiple_inputs", RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"user_name": aliceAnswer, "greeting": helloAnswer, "client_roots": rootsAnswer}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := textOf(t, res), "Hello there! Alice — 1 root(s) visible"; got != want {
		t.Errorf("second round = %q, want %q", got, want)
	}
}

// inputResponses on a first call (no requestState) answer the guest's requests by key and
// kind; a wrong key or kind is asked again, extra keys are ignored.
func TestClientRequestsFreshResponses(t *testing.T) {
	cs := confClient(t, (&fakeClient{}).options())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const tool = "test_input_required_result_elicitation"
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, InputResponses: mcp.InputResponseMap{"user_name": aliceAnswer, "extra": helloAnswer}})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != "Hello, Alice!" {
		t.Errorf("answered first call = %q, want %q", got, "Hello, Alice!")
	}
	for name, responses := range map[string]mcp.InputResponseMap{
		"wrong key":  {"wrong_key": aliceAnswer},
		"wrong kind": {"user_name": rootsAnswer},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, InputResponses: responses})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := keysOf(res.InputRequests); !slices.Equal(got, []string{"user_name"}) {
			t.Errorf("%s: inputRequests keys %v, want [user_name] asked again", name, got)
		}
	}
}

// "optional" requests of a capability the client lacks are UNAVAILABLE to the guest, not
// -32021: a client that declares sampling only is asked only the sampling request.
func TestClientRequestsOptionalCapabilities(t *testing.T) {
	opts := (&fakeClient{}).options()
	opts.ElicitationHandler = nil
	cs := confClient(t, opts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_capabilities"})
	if err != nil {
		t.Fatal(err)
	}
	got := keysOf(res.InputRequests)
	if slices.Contains(got, "user_name") || !slices.Contains(got, "greeting") {
		t.Errorf("inputRequests keys %v: want greeting and never user_name (no elicitation capability)", got)
	}
}

// A prompt asks the client like a tool: prompts/get at 2026-07-28 answers with an
// input-required result, and the retry renders the prompt from the answer.
func TestClientRequestsPrompt(t *testing.T) {
	cs := confClient(t, (&fakeClient{}).options())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const prompt = "test_input_required_result_prompt"
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: prompt})
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := res.InputRequests["user_context"].(*mcp.ElicitParams); !ok || p.Message != "What context should the prompt use?" || res.RequestState == "" {
		t.Fatalf("first round: inputRequests %#v, requestState %q", res.InputRequests, res.RequestState)
	}
	answer := mcp.InputResponseMap{"user_context": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"context": "wasm"}}}
	state := res.RequestState
	res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: prompt, InputResponses: answer, RequestState: state})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.InputRequests) != 0 || len(res.Messages) != 1 || res.Messages[0].Content.(*mcp.TextContent).Text != "Context: wasm" {
		t.Errorf("second round: %#v", res)
	}
	// A state issued for the prompt is not accepted by a tool.
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_elicitation", InputResponses: answer, RequestState: state})
	var je *jsonrpc.Error
	want := `invalid params: requestState was issued for tool "prompt:test_input_required_result_prompt", not "test_input_required_result_elicitation"`
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || je.Message != want {
		t.Errorf("prompt state on a tool: err = %v, want %q", err, want)
	}
}
