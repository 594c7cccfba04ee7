package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/names"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const everythingPkg = "github.com/modelcontextprotocol/go-sdk/examples/server/everything"

// relayConfig writes a config of whole-server guests given as raw entries (path filled in
// from wasm) and returns its path.
func relayConfig(t *testing.T, wasm []byte, entries ...map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "server.wasm")
	if err := os.WriteFile(p, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	var gs []any
	for _, e := range entries {
		e["path"] = p
		gs = append(gs, e)
	}
	b, _ := json.Marshal(map[string]any{"guests": gs})
	cp := filepath.Join(dir, "mcpwasm.json")
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return cp
}

// relayClient is a client that answers sampling, elicitation and roots, and records the log
// messages it gets.
type relayClient struct {
	mu   sync.Mutex
	logs []string
	got  chan struct{}
}

func (r *relayClient) connect(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	r.got = make(chan struct{}, 16)
	c := mcp.NewClient(&mcp.Implementation{Name: "relay-test", Version: "0"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "sampled by the client"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"random": "from the user: " + req.Params.Message}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			r.mu.Lock()
			r.logs = append(r.logs, string(req.Params.Level)+": "+toJSON(req.Params.Data))
			r.mu.Unlock()
			r.got <- struct{}{}
		},
		Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}},
	})
	c.AddRoots(&mcp.Root{URI: "file:///work/project", Name: "project"})
	cs, err := c.Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// go-sdk's everything, built for wasip1: its sampling, elicitation and roots tools reach the
// real client only with the guest's grants (else refused naming the grant), its completions answer, and its prompts
// and resources are listed and read as the native binary gives them.
func TestWASIServerEverythingRelay(t *testing.T) {
	wasm := testenv.GoWasip1(t, everythingPkg)
	cfg := relayConfig(t, wasm,
		map[string]any{"name": "ev", "grants": map[string]any{"sampling": true, "elicitation": true, "roots": true}},
		map[string]any{"name": "bare", "tool_prefix": "bare__"}) // the same server: its names need a prefix
	base, _ := startHTTP(t, "--config", cfg)
	rc := &relayClient{}
	cs := rc.connect(t, base+"/mcp")

	for _, c := range []struct{ tool, want string }{
		{"sample", "sampled by the client"},
		{"roots", "project:file:///work/project"},
		{names.MapName("elicit (form)"), "from the user: provide a random string"},
		{"bare__sample", `sampling failed: calling "sampling/createMessage": sampling/createMessage: guest "bare" refused: guest "bare" has no sampling grant (grants.sampling)`},
		{"bare__roots", `listing roots failed: calling "roots/list": roots/list: guest "bare" refused: guest "bare" has no roots grant (grants.roots)`},
		{names.MapName("bare__elicit (form)"), `eliciting failed: calling "elicitation/create": elicitation/create: guest "bare" refused: guest "bare" has no elicitation grant (grants.elicitation)`},
	} {
		got, isErr := callText(t, cs, c.tool, map[string]any{})
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %q (error %v), want it to contain %q", c.tool, got, isErr, c.want)
		}
	}

	// Logging: the guest's notifications/message reaches the client at the level the client
	// set (logging/setLevel on our server; the relay has the instance send everything).
	// Waited for as an event: the go-sdk client may hand the message to the relay after the
	// call's answer ended the call's stream; the relay then sends it on the session's stream.
	logTool := "log" // ev's own name (bare's is bare__log)
	if err := cs.SetLoggingLevel(testContext(t), &mcp.SetLoggingLevelParams{Level: "critical"}); err != nil {
		t.Fatal(err)
	}
	callText(t, cs, logTool, map[string]any{}) // its "error" message is below critical: dropped
	if err := cs.SetLoggingLevel(testContext(t), &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	callText(t, cs, logTool, map[string]any{})
	select {
	case <-rc.got:
	case <-testContext(t).Done():
		t.Fatal("no log message reached the client")
	}
	rc.mu.Lock()
	if got, want := strings.Join(rc.logs, "\n"), `error: "something happened!"`; got != want {
		t.Errorf("log messages: %q, want %q", got, want)
	}
	rc.mu.Unlock()

	// Completion of a prompt argument, by its served name.
	comp, err := cs.Complete(testContext(t), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "Bo"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(comp.Completion.Values, ","); got != "Box" {
		t.Errorf("completion: %q, want Box", got)
	}

	// Prompts and resources as the native binary gives them.
	bin := filepath.Join(t.TempDir(), "everything")
	if out, err := exec.Command("go", "build", "-o", bin, everythingPkg).CombinedOutput(); err != nil {
		t.Fatalf("native build: %v\n%s", err, out)
	}
	native, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(testContext(t), &mcp.CommandTransport{Command: exec.Command(bin)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer native.Close()
	np, err := native.ListPrompts(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	gp, err := cs.ListPrompts(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, p := range np.Prompts {
		cp := *p
		cp.Name = names.MapName(p.Name) // its own names (bare's are prefixed)
		want[cp.Name] = toJSON(&cp)
	}
	got := map[string]string{}
	for _, p := range gp.Prompts {
		if !strings.HasPrefix(p.Name, "bare__") {
			got[p.Name] = toJSON(p)
		}
	}
	if toJSON(got) != toJSON(want) || len(want) != 2 {
		t.Errorf("prompts:\n got %s\nwant %s", toJSON(got), toJSON(want))
	}
	pr, err := cs.GetPrompt(testContext(t), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Bo"}})
	if err != nil {
		t.Fatal(err)
	}
	npr, err := native.GetPrompt(testContext(t), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Bo"}})
	if err != nil {
		t.Fatal(err)
	}
	// Up to the hop's own fields: the native result's _meta (its serverInfo, which the
	// gateway drops as for tools) and what our server adds for its own clients.
	if toJSON(pr.Messages) != toJSON(npr.Messages) || pr.Description != npr.Description || !strings.Contains(toJSON(pr), "Say hi to Bo") {
		t.Errorf("prompt: %s, native %s", toJSON(pr), toJSON(npr))
	}

	nr, err := native.ListResources(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := cs.ListResources(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	// "bare" lists the same URI: it is withheld (the URI is taken by "ev").
	if toJSON(gr.Resources) != toJSON(nr.Resources) {
		t.Errorf("resources:\n got %s\nwant %s", toJSON(gr.Resources), toJSON(nr.Resources))
	}
	nt, err := native.ListResourceTemplates(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	gt, err := cs.ListResourceTemplates(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if toJSON(gt.ResourceTemplates) != toJSON(nt.ResourceTemplates) {
		t.Errorf("templates:\n got %s\nwant %s", toJSON(gt.ResourceTemplates), toJSON(nt.ResourceTemplates))
	}
	rr, err := cs.ReadResource(testContext(t), &mcp.ReadResourceParams{URI: "embedded:info"})
	if err != nil {
		t.Fatal(err)
	}
	nrr, err := native.ReadResource(testContext(t), &mcp.ReadResourceParams{URI: "embedded:info"})
	if err != nil {
		t.Fatal(err)
	}
	if toJSON(rr.Contents) != toJSON(nrr.Contents) || !strings.Contains(toJSON(rr), "This is the hello example server.") {
		t.Errorf("read: %s, native %s", toJSON(rr), toJSON(nrr))
	}
}

// One client (an authenticated identity) may hold at most half of a guest's instances: with
// instances 2, alice's first session gets one, her second is refused naming the quota, and
// bob's session gets the other.
func TestWASIServerClientQuota(t *testing.T) {
	wasm := testenv.GoWasip1(t, "./testdata/wasiserver")
	ctx := testContext(t)
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	rs, err := h.LoadServer(ctx, wasm, &runtime.GuestConfig{Name: "counter", Limits: runtime.Limits{Instances: 2}})
	if err != nil {
		t.Fatal(err)
	}
	s := &servedServer{srv: rs, logger: slog.New(slog.DiscardHandler), sessions: map[*mcp.ServerSession]*serverSession{}}
	defer s.close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "s"}, nil)
	session := func(subject string) context.Context {
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
		return context.WithValue(mcpserver.WithIdentity(ctx, &mcpserver.Identity{Issuer: "https://issuer.test", Subject: subject}), downstreamKey{}, ss)
	}
	if _, err := s.session(session("alice")); err != nil {
		t.Fatal(err)
	}
	_, err = s.session(session("alice"))
	want := "per-client instance quota reached: this client already holds 1 of its 2 instances (limit instances; one client may hold at most 1)"
	if err == nil || err.Error() != want {
		t.Errorf("alice's second session: %v, want %q", err, want)
	}
	if _, err := s.session(session("bob")); err != nil {
		t.Errorf("bob: %v", err)
	}
}
