package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const httpInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

func httpServer(t *testing.T, opts *mcpserver.HTTPOptions) (*httptest.Server, *mcp.Server) {
	t.Helper()
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mcpserver.NewHTTPHandler(s, opts))
	t.Cleanup(ts.Close)
	return ts, s
}

// post sends body to the MCP endpoint; accept "-" sends no Accept header.
func post(t *testing.T, url, session, accept, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "-" {
		req.Header.Set("Accept", accept)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

const both = "application/json, text/event-stream"

func initSession(t *testing.T, url string) string {
	t.Helper()
	resp, body := post(t, url, "", both, httpInit)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %s %q", resp.Status, body)
	}
	if resp, body := post(t, url, id, both, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s %q", resp.Status, body)
	}
	return id
}

// jsonrpcError decodes the JSON-RPC error of a JSON body or of the first SSE data line.
func jsonrpcError(t *testing.T, body string) (code int64, msg string) {
	t.Helper()
	if i := strings.Index(body, "data: "); i >= 0 {
		body, _, _ = strings.Cut(body[i+len("data: "):], "\n")
	}
	var m struct {
		Error *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.Error == nil {
		t.Fatalf("not a JSON-RPC error: %q (%v)", body, err)
	}
	return m.Error.Code, m.Error.Message
}

// TestHTTPAccept: the Accept header must allow the media type the answer has —
// application/json with JSONResponse, text/event-stream otherwise; no Accept allows anything;
// anything else is 406 (reproducer N03).
func TestHTTPAccept(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		ts, _ := httpServer(t, &mcpserver.HTTPOptions{JSONResponse: jsonMode})
		wantType := "text/event-stream"
		if jsonMode {
			wantType = "application/json"
		}
		for _, tc := range []struct {
			accept   string
			sse, jsn int // status in SSE mode, in JSON mode
		}{
			{both, 200, 200},
			{"application/json", 406, 200},
			{"text/event-stream", 200, 406},
			{"*/*", 200, 200},
			{"-", 200, 200},
			{"application/*;q=0.5", 406, 200},
			{"application/json;q=0, */*", 200, 406},
			{"text/html", 406, 406},
		} {
			want := tc.sse
			if jsonMode {
				want = tc.jsn
			}
			resp, body := post(t, ts.URL, "", tc.accept, httpInit)
			if resp.StatusCode != want {
				t.Errorf("json=%v Accept %q: %s %q, want %d", jsonMode, tc.accept, resp.Status, body, want)
				continue
			}
			if ct := resp.Header.Get("Content-Type"); want == 200 && !strings.HasPrefix(ct, wantType) {
				t.Errorf("json=%v Accept %q: Content-Type %q, want %s", jsonMode, tc.accept, ct, wantType)
			}
		}
	}
}

// TestHTTPSessionCap: beyond MaxSessions a new session is 503 with a JSON-RPC error; ending
// one with DELETE makes room, and the deleted session's id is then 404 (reproducer N05).
func TestHTTPSessionCap(t *testing.T) {
	ts, _ := httpServer(t, &mcpserver.HTTPOptions{MaxSessions: 2})
	a := initSession(t, ts.URL)
	initSession(t, ts.URL)
	resp, body := post(t, ts.URL, "", both, httpInit)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third session: %s %q, want 503 with Retry-After", resp.Status, body)
	}
	if code, _ := jsonrpcError(t, body); code != mcpserver.CodeTooManySessions {
		t.Errorf("third session: code %d, want %d", code, mcpserver.CodeTooManySessions)
	}
	req, _ := http.NewRequest(http.MethodDelete, ts.URL+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", a)
	dresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	dresp.Body.Close()
	if dresp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", dresp.Status)
	}
	if resp, body := post(t, ts.URL, a, both, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("deleted session: %s %q, want 404", resp.Status, body)
	}
	initSession(t, ts.URL) // room again
}

// TestHTTPSessionIdleExpiry: a session without requests for SessionIdleTimeout is closed,
// and its id then gets 404 (MCP "Transports › Session Management"; reproducer N05).
func TestHTTPSessionIdleExpiry(t *testing.T) {
	// The idle timeout is a time, not an event: it must outlast the gap between initSession's
	// two requests on a loaded machine (a session that expired during its own setup would fail
	// the test), so it is a generous 1 s, not the few milliseconds the mechanism needs. The
	// wait for the close is bounded only by the test's deadline.
	ts, s := httpServer(t, &mcpserver.HTTPOptions{SessionIdleTimeout: time.Second})
	id := initSession(t, ts.URL)
	closed := make(chan struct{})
	for ss := range s.Sessions() {
		go func() { _ = ss.Wait(); close(closed) }()
	}
	var giveUp <-chan time.Time // nil, never ready, without a test deadline
	if d, ok := t.Deadline(); ok {
		giveUp = time.After(time.Until(d) - 2*time.Second)
	}
	select {
	case <-closed:
	case <-giveUp:
		t.Fatal("the idle session was not closed before the test's deadline")
	}
	// The handler forgets the session just after it closes (the SDK's close callback runs
	// after Wait returns): poll until it has, bounded by the test's deadline.
	for {
		resp, body := post(t, ts.URL, id, both, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		if resp.StatusCode == http.StatusNotFound {
			return
		}
		if d, ok := t.Deadline(); ok && time.Until(d) < time.Second {
			t.Fatalf("expired session: %s %q, want 404", resp.Status, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHTTPErrorCodesMatchStdio: a request that cannot start a session is -32600 (stdio's
// code; the SDK alone sends code 0) and creates no session; a second initialize is -32600;
// logging/setLevel with a level outside LoggingLevel is -32602 (reproducer N12 over HTTP).
func TestHTTPErrorCodesMatchStdio(t *testing.T) {
	ts, s := httpServer(t, nil)
	resp, body := post(t, ts.URL, "", both, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	if code, msg := jsonrpcError(t, body); resp.StatusCode != http.StatusBadRequest || code != -32600 || !strings.Contains(msg, "tools/list") {
		t.Errorf("tools/list before initialize: %s %q, want 400 with -32600", resp.Status, body)
	}
	for range s.Sessions() {
		t.Error("a session was created by a request that is not initialize")
	}
	if !strings.Contains(body, `"id":7`) {
		t.Errorf("error body %q does not carry the request's id", body)
	}
	id := initSession(t, ts.URL)
	_, body = post(t, ts.URL, id, both, httpInit)
	if code, _ := jsonrpcError(t, body); code != -32600 {
		t.Errorf("second initialize: %q, want -32600", body)
	}
	for _, level := range []string{`"verbose"`, `"WARNING"`, `""`, `null`} {
		_, body = post(t, ts.URL, id, both, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":`+level+`}}`)
		if code, _ := jsonrpcError(t, body); code != -32602 {
			t.Errorf("setLevel %s: %q, want -32602", level, body)
		}
	}
	if _, body = post(t, ts.URL, id, both, `{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"warning"}}`); !strings.Contains(body, `"result":{}`) {
		t.Errorf("setLevel warning: %q, want {}", body)
	}
}
