package main

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// jsServers caches `mcpwasm build` of npm servers' entry points, by path.
var jsServers sync.Map // entry → *jsServerBuilt

type jsServerBuilt struct {
	once sync.Once
	wasm []byte
	out  string
	code int
}

// buildJSServer builds entry (a file under testdata/npm-servers/node_modules) with mcpwasm
// build, once per test binary.
func buildJSServer(t *testing.T, entry string) []byte {
	t.Helper()
	buildPrereqs(t)
	v, _ := jsServers.LoadOrStore(entry, &jsServerBuilt{})
	b := v.(*jsServerBuilt)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "jsserver")
		if err != nil {
			b.out, b.code = err.Error(), -1
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "server.wasm")
		stdout, stderr, code := runCLI("build", "--toolchain", filepath.Dir(exampleModules), "-o", out, filepath.Join(npmServersDir, filepath.FromSlash(entry)))
		b.out, b.code = stdout+stderr, code
		if code == ExitOK {
			b.wasm, _ = os.ReadFile(out)
		}
	})
	if b.code != ExitOK || b.wasm == nil {
		t.Fatalf("build %s: exit %d\n%s", entry, b.code, b.out)
	}
	return b.wasm
}

// A client's resources/subscribe of a whole-server guest's resource reaches the guest (its
// session's instance), and the instance's notifications/resources/updated reach that session
// — not another session subscribed to the same URI, whose instance has its own state;
// unsubscribe reaches the instance too. The guest is a go-sdk server built for wasip1
// (testdata/subscriber).
func TestWASIServerResourceSubscribe(t *testing.T) {
	wasm := testenv.GoWasip1(t, "./testdata/subscriber")
	cfg := relayConfig(t, wasm, map[string]any{"name": "sub"})
	base, _ := startHTTP(t, "--config", cfg)
	const uri = "test://note"
	connect := func() (*mcp.ClientSession, chan string) {
		updated := make(chan string, 64)
		c := mcp.NewClient(&mcp.Implementation{Name: "sub-test", Version: "0"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
				updated <- r.Params.URI
			}})
		cs, err := c.Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs, updated
	}
	a, aUpdates := connect()
	b, bUpdates := connect()
	if caps := a.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
		t.Fatalf("resources capability %+v: want subscribe", caps.Resources)
	}
	subscribed := func(cs *mcp.ClientSession) string {
		got, _ := callText(t, cs, servedName(t, cs, "subscribed"), map[string]any{})
		return got
	}
	if got := subscribed(a); got != "0" {
		t.Fatalf("a's instance subscribed before a subscribed: %q", got)
	}
	for _, cs := range []*mcp.ClientSession{a, b} {
		if err := cs.Subscribe(testContext(t), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	if got := subscribed(a); got != "1" {
		t.Errorf("a's instance after a's resources/subscribe: subscribed %q, want 1", got)
	}
	if got, _ := callText(t, a, servedName(t, a, "touch"), map[string]any{}); got != "touched" {
		t.Fatalf("touch: %q", got)
	}
	select {
	case got := <-aUpdates:
		if got != uri {
			t.Errorf("resources/updated for %q, want %q", got, uri)
		}
	case <-testContext(t).Done():
		t.Fatal("no notifications/resources/updated reached the subscribed session")
	}
	// b's instance was not touched: a's update is not b's, though b subscribed to the URI.
	// b's own touch then comes alone.
	if got, _ := callText(t, b, servedName(t, b, "touch"), map[string]any{}); got != "touched" {
		t.Fatalf("touch: %q", got)
	}
	select {
	case <-bUpdates:
	case <-testContext(t).Done():
		t.Fatal("b's own update did not reach it")
	}
	select {
	case got := <-bUpdates:
		t.Errorf("session b got a second update (a's?) for %q", got)
	default:
	}
	// A URI no resource has is refused; unsubscribe reaches the instance.
	if err := a.Subscribe(testContext(t), &mcp.SubscribeParams{URI: "test://nothing"}); err == nil {
		t.Error("subscribing to an unknown URI succeeded")
	}
	if err := a.Unsubscribe(testContext(t), &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatalf("unsubscribe: %v", err)
	}
	if got := subscribed(a); got != "0" {
		t.Errorf("a's instance after a's resources/unsubscribe: subscribed %q, want 0", got)
	}
}
