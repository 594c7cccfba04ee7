package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var askGuest struct {
	once  sync.Once
	wasm  []byte
	dir   string // removed by TestMain
	cache string // a compilation cache shared by the tests: ask.wasm is compiled once
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if askGuest.dir != "" {
		os.RemoveAll(askGuest.dir)
	}
	os.Exit(code)
}

// askWasm builds guests/ask once per test binary, as guests/granted.sh does.
func askWasm(t testing.TB) []byte {
	t.Helper()
	askGuest.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcpwasm-ask-")
		if err != nil {
			askGuest.err = err
			return
		}
		askGuest.dir, askGuest.cache = dir, filepath.Join(dir, "cache")
		out := filepath.Join(dir, "ask.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, "../guests/ask")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			askGuest.err = fmt.Errorf("building guests/ask: %v\n%s", err, b)
			return
		}
		askGuest.wasm, askGuest.err = os.ReadFile(out)
	})
	if askGuest.err != nil {
		t.Fatal(askGuest.err)
	}
	return askGuest.wasm
}

// askServer serves guests/ask with grants on a new MCP server.
func askServer(t testing.TB, grants runtime.Grants, key []byte) *mcp.Server {
	t.Helper()
	ctx := context.Background()
	wasm := askWasm(t)
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: askGuest.cache})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	g, err := h.Load(ctx, wasm, &runtime.GuestConfig{Grants: grants})
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, &mcpserver.Options{RequestStateKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var allClientGrants = runtime.Grants{Sampling: true, Elicitation: true, Roots: true}

// fakeClient is a go-sdk client whose sampling handler answers "fixed answer" from model
// "m1" and whose elicitation handler accepts with {"ok": true}; it counts both.
type fakeClient struct {
	samples, elicits atomic.Int32
	lastSample       atomic.Value // string: the text of the last sampling request's message
}

func (f *fakeClient) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			f.samples.Add(1)
			if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
				f.lastSample.Store(tc.Text)
			}
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m1", Content: &mcp.TextContent{Text: "fixed answer"}, StopReason: "endTurn"}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			f.elicits.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		},
	}
}

func connectInMemory(t *testing.T, s *mcp.Server, c *mcp.Client, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks", tool, len(res.Content))
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// Mechanism 1: on a 2025-11-25 session the guest's requests go to the client as
// server→client requests while the guest waits.
func TestClientRequestsDirect(t *testing.T) {
	s := askServer(t, allClientGrants, nil)
	f := &fakeClient{}
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, f.options())
	c.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
	cs := connectInMemory(t, s, c, "2025-11-25")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"summarize", map[string]any{"text": "a long text"}, "summary (m1): fixed answer"},
		{"confirm", map[string]any{"question": "Proceed?"}, "yes"},
		{"draft", map[string]any{"topic": "wasm"}, "draft: fixed answer; approved: yes"},
		{"roots", map[string]any{}, "1 roots\nfile:///work work\n"},
	} {
		if got, isErr := callText(t, cs, tc.tool, tc.args); got != tc.want || isErr {
			t.Errorf("%s = %q (isError %v), want %q", tc.tool, got, isErr, tc.want)
		}
	}
	if got := f.lastSample.Load(); got != "Write a short draft about wasm" {
		t.Errorf("last sampling message = %q", got)
	}
	if n, m := f.samples.Load(), f.elicits.Load(); n != 2 || m != 2 {
		t.Errorf("client saw %d sampling and %d elicitation requests, want 2 and 2", n, m)
	}
}

// Refusals: an ungranted kind is DENIED (and never reaches the client); a client without the
// capability is UNAVAILABLE.
func TestClientRequestsRefused(t *testing.T) {
	s := askServer(t, runtime.Grants{Elicitation: true}, nil)
	f := &fakeClient{}
	opts := f.options()
	opts.ElicitationHandler = nil // the client declares sampling only
	cs := connectInMemory(t, s, mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, opts), "2025-11-25")
	got, isErr := callText(t, cs, "summarize", map[string]any{"text": "x"})
	if want := `sampling: DENIED: sampling: not granted to guest "ask"`; !isErr || got != want {
		t.Errorf("ungranted sampling = %q (isError %v), want %q", got, isErr, want)
	}
	got, isErr = callText(t, cs, "confirm", map[string]any{"question": "?"})
	if want := "elicitation: UNAVAILABLE: elicitation: client unavailable: the client did not declare the elicitation capability"; !isErr || got != want {
		t.Errorf("elicitation without the capability = %q (isError %v), want %q", got, isErr, want)
	}
	if n := f.samples.Load(); n != 0 {
		t.Errorf("client saw %d sampling requests, want 0", n)
	}
}

// statelessClient connects a go-sdk client to s served over stateless Streamable HTTP: the
// client negotiates 2026-07-28, where the server cannot send requests mid-call.
func statelessClient(t *testing.T, s *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{Stateless: true}))
	t.Cleanup(hs.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, opts).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28", v)
	}
	return cs
}

// Mechanism 2: a 2026-07-28 client over stateless HTTP completes a tool that samples and then
// elicits through two input-required rounds (the SDK client's middleware answers them).
func TestClientRequestsRounds(t *testing.T) {
	s := askServer(t, allClientGrants, nil)
	f := &fakeClient{}
	cs := statelessClient(t, s, f.options())
	if got, isErr := callText(t, cs, "draft", map[string]any{"topic": "wasm"}); got != "draft: fixed answer; approved: yes" || isErr {
		t.Errorf("draft = %q (isError %v)", got, isErr)
	}
	// Replay: the guest ran three times, but the client was asked each thing once.
	if n, m := f.samples.Load(), f.elicits.Load(); n != 1 || m != 1 {
		t.Errorf("client saw %d sampling and %d elicitation requests, want 1 and 1", n, m)
	}
}

// The rounds by hand: the input-required result names request r0, and a retry whose
// requestState was tampered with, or is replayed for other arguments, is invalid params.
func TestClientRequestsStateChecked(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	s := askServer(t, allClientGrants, key)
	f := &fakeClient{}
	opts := f.options()
	opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	cs := statelessClient(t, s, opts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := map[string]any{"text": "abc"}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "summarize", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	ir, ok := res.InputRequests["r0"].(*mcp.CreateMessageWithToolsParams)
	if !res.NeedsInput() || len(res.InputRequests) != 1 || !ok || res.RequestState == "" {
		t.Fatalf("first round: needsInput %v, inputRequests %#v, requestState %q", res.NeedsInput(), res.InputRequests, res.RequestState)
	}
	if ir.MaxTokens != 200 || ir.SystemPrompt != "You summarize text in one sentence." {
		t.Errorf("r0 = %+v", ir)
	}
	answer := mcp.InputResponseMap{"r0": &mcp.CreateMessageResult{Role: "assistant", Model: "m2", Content: &mcp.TextContent{Text: "short"}}}
	body, sig, _ := strings.Cut(res.RequestState, ".")
	flip := byte('A')
	if body[5] == 'A' {
		flip = 'B'
	}
	tampered := body[:5] + string(flip) + body[6:] + "." + sig // one base64 digit of the JSON changed
	for _, tc := range []struct {
		name  string
		args  map[string]any
		state string
		want  string
	}{
		{"tampered", args, tampered, "invalid params: requestState is not authentic (tampered, or issued by a server with another key)"},
		{"other arguments", map[string]any{"text": "xyz"}, res.RequestState, "invalid params: requestState was issued for other arguments"},
	} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "summarize", Arguments: tc.args, InputResponses: answer, RequestState: tc.state})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || je.Message != tc.want {
			t.Errorf("%s: err = %v, want code %d %q", tc.name, err, jsonrpc.CodeInvalidParams, tc.want)
		}
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "summarize", Arguments: args, InputResponses: answer, RequestState: res.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if res.NeedsInput() || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "summary (m2): short" {
		t.Errorf("second round: needsInput %v, content %#v", res.NeedsInput(), res.Content)
	}
}

// Over stateful Streamable HTTP (2025-11-25) each kind reaches the client as a
// server→client request on the session's stream, and the refusals are the same as on stdio.
func TestClientRequestsStatefulHTTP(t *testing.T) {
	for _, tc := range []struct {
		name   string
		grants runtime.Grants
		noElic bool
		tool   string
		args   map[string]any
		want   string
		isErr  bool
	}{
		{"sampling", allClientGrants, false, "summarize", map[string]any{"text": "t"}, "summary (m1): fixed answer", false},
		{"elicitation", allClientGrants, false, "confirm", map[string]any{"question": "?"}, "yes", false},
		{"roots", allClientGrants, false, "roots", map[string]any{}, "1 roots\nfile:///work work\n", false},
		{"sampling not granted", runtime.Grants{Elicitation: true}, false, "summarize", map[string]any{"text": "t"},
			`sampling: DENIED: sampling: not granted to guest "ask"`, true},
		{"client without elicitation", allClientGrants, true, "confirm", map[string]any{"question": "?"},
			"elicitation: UNAVAILABLE: elicitation: client unavailable: the client did not declare the elicitation capability", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := askServer(t, tc.grants, nil)
			hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, nil))
			defer hs.Close()
			f := &fakeClient{}
			opts := f.options()
			if tc.noElic {
				opts.ElicitationHandler = nil
			}
			c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, opts)
			c.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got, isErr := callText(t, cs, tc.tool, tc.args); got != tc.want || isErr != tc.isErr {
				t.Errorf("%s = %q (isError %v), want %q (isError %v)", tc.tool, got, isErr, tc.want, tc.isErr)
			}
		})
	}
}

// A 2025-11-25 client of a stateless HTTP server: the session cannot carry a server→client
// request, so the request is UNAVAILABLE and says why.
func TestClientRequestsStatelessOldProtocol(t *testing.T) {
	s := askServer(t, allClientGrants, nil)
	hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{Stateless: true}))
	defer hs.Close()
	f := &fakeClient{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, f.options()).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	got, isErr := callText(t, cs, "summarize", map[string]any{"text": "t"})
	if want := "sampling: UNAVAILABLE: sampling: client unavailable: the session cannot carry a server-to-client request (stateless HTTP needs protocol 2026-07-28 or later)"; !isErr || got != want {
		t.Errorf("summarize = %q (isError %v), want %q", got, isErr, want)
	}
}

// BenchmarkClientRequest: one sampling request per call, answered by a go-sdk client's
// handler — sent directly on a 2025-11-25 in-memory session, or in an input-required round
// over stateless HTTP (2026-07-28: two tools/call POSTs and two guest runs per call).
// "stateless-denied" is the floor of the rounds: one stateless call whose request is DENIED.
func BenchmarkClientRequest(b *testing.B) {
	for _, mode := range []string{"direct", "rounds", "stateless-denied"} {
		b.Run(mode, func(b *testing.B) {
			grants := allClientGrants
			if mode == "stateless-denied" {
				grants = runtime.Grants{}
			}
			s := askServer(b, grants, nil)
			f := &fakeClient{}
			var cs *mcp.ClientSession
			if mode == "direct" {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := s.Connect(context.Background(), st, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ss.Close()
				cs, err = mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, f.options()).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
				if err != nil {
					b.Fatal(err)
				}
			} else {
				hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{Stateless: true}))
				defer hs.Close()
				var err error
				cs, err = mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, f.options()).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
				if err != nil {
					b.Fatal(err)
				}
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "summarize", Arguments: map[string]any{"text": "t"}}
			b.ResetTimer()
			for range b.N {
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError != (mode == "stateless-denied") {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}

// SEP-2575 "Missing Required Capabilities": at 2026-07-28 a guest's sampling request from a
// client whose clientCapabilities lack sampling ends the call with the JSON-RPC error -32021,
// whose data names the capability, instead of a tool result; the guest never runs on.
func TestClientRequestsMissingCapability(t *testing.T) {
	s := askServer(t, allClientGrants, nil)
	opts := (&fakeClient{}).options()
	opts.CreateMessageHandler = nil // declares elicitation only
	opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	cs := statelessClient(t, s, opts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "summarize", Arguments: map[string]any{"text": "abc"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Fatalf("err = %v, want JSON-RPC error %d", err, mcp.CodeMissingRequiredClientCapabilities)
	}
	if want := `tool "summarize" needs the client capability sampling, which the request's clientCapabilities do not declare`; je.Message != want {
		t.Errorf("message = %q, want %q", je.Message, want)
	}
	if want := `{"requiredCapabilities":{"sampling":{}}}`; string(je.Data) != want {
		t.Errorf("data = %s, want %s", je.Data, want)
	}
	// The same client's elicitation is served: only the missing capability is refused.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{"question": "?"}})
	if err != nil || !res.NeedsInput() || len(res.InputRequests) != 1 {
		t.Fatalf("confirm: err %v, result %+v", err, res)
	}
	if _, ok := res.InputRequests["r0"].(*mcp.ElicitParams); !ok {
		t.Errorf("confirm: inputRequests = %#v, want an elicitation under r0", res.InputRequests)
	}
}
