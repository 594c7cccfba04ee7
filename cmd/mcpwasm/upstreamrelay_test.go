package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// relayUpstream is an in-process go-sdk server whose tools, named PREFIX_sample, _roots,
// _log and _elicit, ask its client for each thing the relay carries. _log sends an info and
// a warning message, then waits until the test says the warning arrived (logged), so the
// call is still in flight while the relay carries it: no timing luck.
func relayUpstream(t *testing.T, prefix string, logged <-chan struct{}) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: prefix, Version: "1"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(s, &mcp.Tool{Name: prefix + "_sample"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, nil, err
		}
		return text(res.Content.(*mcp.TextContent).Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: prefix + "_roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return nil, nil, err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.Name+":"+r.URI)
		}
		return text(strings.Join(uris, ",")), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: prefix + "_elicit"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"random": map[string]any{"type": "string"}}}})
		if err != nil {
			return nil, nil, err
		}
		return text(res.Action + " " + toJSON(res.Content)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: prefix + "_log"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		for _, l := range []mcp.LoggingLevel{"info", "warning"} {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: l, Logger: prefix, Data: string(l) + " from " + prefix}); err != nil {
				return nil, nil, err
			}
		}
		select {
		case <-logged:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return text("logged"), nil, nil
	})
	return serveUpstream(t, s)
}

// serveUpstream serves s over Streamable HTTP on loopback until the test ends and returns
// its URL: an upstream's config "url".
func serveUpstream(t *testing.T, s *mcp.Server) string {
	t.Helper()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// servedName is the name our server serves an upstream's or guest's tool under, looked up in
// tools/list (so the test does not depend on the naming rule): the one tool whose name ends
// with tool.
func servedName(t *testing.T, cs *mcp.ClientSession, tool string) string {
	t.Helper()
	var found []string
	for tl, err := range cs.Tools(testContext(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(tl.Name, tool) {
			found = append(found, tl.Name)
		}
	}
	if len(found) != 1 {
		t.Fatalf("tools ending with %q: %q, want one", tool, found)
	}
	return found[0]
}

// An upstream's server→client requests go through the same relay as a whole-server guest's:
// sampling, elicitation and roots reach the client of the gateway call only under the
// upstream's grants (refused naming the grant otherwise), and its log messages reach that
// client at the level the client set (logging/setLevel: info is dropped, warning delivered).
func TestUpstreamRelayGrants(t *testing.T) {
	logged := make(chan struct{})
	granted, bare := relayUpstream(t, "g", logged), relayUpstream(t, "b", make(chan struct{}))
	cfg := filepath.Join(t.TempDir(), "mcpwasm.json")
	b, _ := json.Marshal(map[string]any{"upstreams": map[string]any{
		"granted": map[string]any{"url": granted, "expose": true, "grants": map[string]any{"sampling": true, "elicitation": true, "roots": true}},
		"bare":    map[string]any{"url": bare, "expose": true}}})
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	base, _ := startHTTP(t, "--config", cfg)

	var mu sync.Mutex
	var logs []string
	var once sync.Once
	c := mcp.NewClient(&mcp.Implementation{Name: "relay-test", Version: "0"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "sampled by the client"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"random": "from the user: " + req.Params.Message}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, string(req.Params.Level)+" "+req.Params.Logger+": "+toJSON(req.Params.Data))
			mu.Unlock()
			if req.Params.Level == "warning" {
				once.Do(func() { close(logged) })
			}
		},
		Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}},
	})
	c.AddRoots(&mcp.Root{URI: "file:///work/project", Name: "project"})
	cs, err := c.Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	for _, c := range []struct{ tool, want string }{
		{"g_sample", "sampled by the client"},
		{"g_roots", "project:file:///work/project"},
		{"g_elicit", `accept {"random":"from the user: name?"}`},
		{"b_sample", `calling "sampling/createMessage": sampling/createMessage: upstream "bare" refused: upstream "bare" has no sampling grant (grants.sampling)`},
		{"b_roots", `calling "roots/list": roots/list: upstream "bare" refused: upstream "bare" has no roots grant (grants.roots)`},
		{"b_elicit", `calling "elicitation/create": elicitation/create: upstream "bare" refused: upstream "bare" has no elicitation grant (grants.elicitation)`},
	} {
		if got, _ := callText(t, cs, servedName(t, cs, c.tool), map[string]any{}); got != c.want {
			t.Errorf("%s: %q, want %q", c.tool, got, c.want)
		}
	}

	// Logging at the level the client set: the upstream's info is dropped, its warning
	// arrives while the call waits for it.
	if err := cs.SetLoggingLevel(testContext(t), &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := callText(t, cs, servedName(t, cs, "g_log"), map[string]any{}); got != "logged" {
		t.Errorf("g_log: %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if got, want := strings.Join(logs, "\n"), `warning g: "warning from g"`; got != want {
		t.Errorf("log messages:\n%s\nwant %s", got, want)
	}
}

// An upstream's request belongs to the one client whose gateway calls to it are in flight
// (several calls of one session are one client, the newest call's context is used), to the
// call's own client when handled on that call's context, and to no one with two clients'
// calls in flight or none.
func TestGatewayRouterClient(t *testing.T) {
	ctx := testContext(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "s"}, nil)
	session := func() *mcp.ServerSession {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return ss
	}
	a, b := session(), session()
	r := &elicitRouter{inflight: map[string][]gatewayCall{}}
	client := r.client("up")
	if _, ss := client(ctx); ss != nil {
		t.Error("no call in flight: a client was found")
	}
	a1, endA1 := r.track(context.WithValue(ctx, downstreamKey{}, a), "up")
	a2, endA2 := r.track(context.WithValue(ctx, downstreamKey{}, a), "up")
	if sctx, ss := client(ctx); ss != a || sctx != a2 {
		t.Errorf("two calls of one session: session %p (want %p), newest call's context %v", ss, a, sctx == a2)
	}
	_, endB := r.track(context.WithValue(ctx, downstreamKey{}, b), "up")
	if _, ss := client(ctx); ss != nil {
		t.Error("two clients' calls in flight: a client was chosen")
	}
	if sctx, ss := client(a1); ss != a || sctx != a1 {
		t.Error("a request on a call's own context does not go to that call's client")
	}
	endA1()
	endA2()
	if _, ss := client(ctx); ss != b {
		t.Error("after a's calls ended, b's call does not own the request")
	}
	endB()
	if _, ss := client(ctx); ss != nil {
		t.Error("all calls ended: a client was found")
	}
}

// An HTTP upstream's log messages sent during a call reach the client on that call's stream
// before its answer, as a stdio server's do (upstream's logBody relays them as the event
// stream is read, not from the SDK's asynchronous handler).
func TestUpstreamHTTPLogBeforeAnswer(t *testing.T) {
	done := make(chan struct{})
	close(done) // u_log returns as soon as it has logged
	base, _ := startHTTP(t, "--config", upstreamsConfig(t, map[string]any{
		"up": map[string]any{"url": relayUpstream(t, "u", done), "expose": true}}))
	url := base + "/mcp"
	resp := post(t, url, nil, initLine)
	h := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-11-25"}
	post(t, url, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(t, url, h, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`)
	for i := range 5 {
		resp = post(t, url, h, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"up__u_log","arguments":{}}}`)
		body, _ := io.ReadAll(resp.Body)
		info, warning, answer := strings.Index(string(body), `"info from u"`), strings.Index(string(body), `"warning from u"`), strings.Index(string(body), `"logged"`)
		if answer < 0 || info < 0 || warning < 0 || !(info < warning && warning < answer) {
			t.Fatalf("call %d: the call's stream %q; want the info, then the warning, then the answer", i, body)
		}
	}
}
