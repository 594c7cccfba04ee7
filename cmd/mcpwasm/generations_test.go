package main

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// One default `serve --http` endpoint serves both protocol generations, chosen per request:
// a go-sdk client asking for 2026-07-28 gets it sessionless (server/discover, no
// Mcp-Session-Id), one asking for 2025-11-25 gets an initialize'd session; both call calc.
func TestHTTPBothGenerationsOneEndpoint(t *testing.T) {
	base, _ := startHTTP(t)
	ctx := testContext(t)
	for _, tc := range []struct {
		version     string
		wantSession bool
	}{
		{"2026-07-28", false},
		{"2025-11-25", true},
	} {
		t.Run(tc.version, func(t *testing.T) {
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"},
				&mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != tc.version {
				t.Errorf("negotiated %s, want %s", got, tc.version)
			}
			if got := cs.ID() != ""; got != tc.wantSession {
				t.Errorf("session id %q: have a session = %v, want %v", cs.ID(), got, tc.wantSession)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "calc", Arguments: map[string]any{"expression": "6*7"}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]any{"value": 42.0}, res.StructuredContent); diff != "" {
				t.Errorf("calc (-want +got):\n%s", diff)
			}
		})
	}
	// A sessionless 2026-07-28 request is answered without creating a session.
	resp := post(t, base+"/mcp", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"},
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
			`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("server/discover at 2026-07-28: status %d, Mcp-Session-Id %q; want 200 and none", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
	}
}

// streamReady closes ready when a GET — the client's standalone SSE stream — has its
// response headers: the server has registered the stream by then (it writes the headers
// while holding the stream), so a notification sent afterwards reaches the client.
type streamReady struct {
	once  sync.Once
	ready chan struct{}
}

func (s *streamReady) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Method == http.MethodGet && resp.StatusCode == http.StatusOK {
		s.once.Do(func() { close(s.ready) })
	}
	return resp, err
}

// Over HTTP with two sessions, notifications/resources/updated (a guest's resource.updated
// request) reaches only the sessions subscribed to that URI.
func TestHTTPResourceUpdatedOnlySubscribed(t *testing.T) {
	base, _ := startHTTP(t, conformanceGuest(t))
	ctx := testContext(t)
	type peer struct {
		cs  *mcp.ClientSession
		got chan string
	}
	connect := func(name string) peer {
		p := peer{got: make(chan string, 8)}
		rt := &streamReady{ready: make(chan struct{})}
		client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "0"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { p.got <- req.Params.URI },
		})
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: rt}},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		select {
		case <-rt.ready:
		case <-ctx.Done():
			t.Fatalf("%s: no standalone SSE stream", name)
		}
		p.cs = cs
		return p
	}
	update := func(p peer, uri string) {
		t.Helper()
		res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_update_resource", Arguments: map[string]any{"uri": uri}})
		if err != nil || res.IsError {
			t.Fatalf("test_update_resource %s: %v %+v", uri, err, res)
		}
	}
	next := func(p peer) string {
		t.Helper()
		select {
		case uri := <-p.got:
			return uri
		case <-ctx.Done():
			t.Fatal("no notifications/resources/updated")
			return ""
		}
	}
	const watched, templ = "test://watched-resource", "test://template/1/data"
	a, b := connect("a"), connect("b")
	if err := a.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watched}); err != nil {
		t.Fatal(err)
	}
	update(b, watched) // b changes what only a watches
	if got := next(a); got != watched {
		t.Errorf("a got %s, want %s", got, watched)
	}
	for _, p := range []peer{a, b} {
		if err := p.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: templ}); err != nil {
			t.Fatal(err)
		}
	}
	update(a, templ)
	// b's stream is ordered: had it been sent the first update, that would come first.
	if got := next(b); got != templ {
		t.Errorf("b's first notification is for %s, want %s (b never subscribed to %s)", got, templ, watched)
	}
	if got := next(a); got != templ {
		t.Errorf("a got %s, want %s", got, templ)
	}
}
