package mcpserver_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol revisions compare as dates: strings that sort after "2026-07-28" but are no
// later revision ("9", "2026-07-28x") are not at least it.
func TestProtocolAtLeast(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want bool
	}{
		{"2026-07-28", true}, {"2027-01-01", true}, {"2025-11-25", false}, {"2024-11-05", false},
		{"9", false}, {"2026-07-28x", false}, {"2026-7-28", false}, {"", false}, {"DRAFT-2026-v1", false},
		{"2026-09-31", false}, {"2027-02-29", false}, {"2028-02-29", true}, {"2100-02-29", false}, {"2400-02-29", true},
		{"2026-13-01", false}, {"2026-08-00", false}, {"+026-08-01", false}, {"2026-08-1 ", false},
	} {
		if got := mcpserver.ProtocolAtLeast(tt.v, "2026-07-28"); got != tt.want {
			t.Errorf("ProtocolAtLeast(%q, 2026-07-28) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

// FuzzProtocolAtLeast holds the hand-written date check to time.Parse(time.DateOnly), which
// it replaced on the per-request path: for any v and min the answers are equal.
func FuzzProtocolAtLeast(f *testing.F) {
	for _, s := range []string{"2026-07-28", "2025-11-25", "2024-02-29", "2023-02-29", "2026-04-31", "0000-01-01", "9999-12-31", "2026-7-28", "2026-07-28x", "\u00002026"} {
		f.Add(s, "2026-07-28")
		f.Add("2025-11-25", s)
	}
	f.Fuzz(func(t *testing.T, v, min string) {
		d, err1 := time.Parse(time.DateOnly, v)
		m, err2 := time.Parse(time.DateOnly, min)
		want := err1 == nil && err2 == nil && !d.Before(m)
		if got := mcpserver.ProtocolAtLeast(v, min); got != want {
			t.Errorf("ProtocolAtLeast(%q, %q) = %v, time.Parse says %v", v, min, got, want)
		}
	})
}

// A request whose MCP-Protocol-Version only sorts after 2026-07-28 as a string ("9") is not
// sessionless: it goes to the session handler, which refuses a tools/list before initialize
// with -32600 (the sessionless handler would have served it, unversioned).
func TestHTTPVersionHeaderComparedAsDate(t *testing.T) {
	ts, _ := httpServer(t, nil)
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", both)
	req.Header.Set("MCP-Protocol-Version", "9")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("tools/list with MCP-Protocol-Version 9 and no session: %s, want 400 (-32600 from the session handler)", resp.Status)
	}
}

// The session cap counts sessions a client can return to, not the one-request sessions of
// sessionless (2026-07-28) requests: with MaxSessions 1 and a sessionless call in flight, a
// client can still initialize a session; a second session is then refused.
func TestHTTPSessionCapIgnoresSessionless(t *testing.T) {
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	s.AddTool(&mcp.Tool{Name: "block", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		<-release
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	ts := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{MaxSessions: 1}))
	t.Cleanup(ts.Close)
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // a failing test does not leave the call blocked
	done := make(chan string, 1)
	go func() {
		const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(call))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", both)
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "block")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		done <- resp.Status + " " + string(b)
	}()
	select {
	case <-started:
	case got := <-done:
		t.Fatalf("sessionless call ended before the tool ran: %s", got)
	}
	initSession(t, ts.URL) // the one session of the cap: the sessionless call does not hold it
	if resp, body := post(t, ts.URL, "", both, httpInit); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("second session: %s %q, want 503", resp.Status, body)
	}
	unblock()
	if got := <-done; !strings.HasPrefix(got, "200 OK") || !strings.Contains(got, `"text":"done"`) {
		t.Errorf("sessionless call: %s", got)
	}
}
