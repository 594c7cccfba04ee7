package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// jsonModeServer serves the fixture guest (tool "steps" reports progress 1/3 "step", 2/3
// "step", 3/3; tool "logs" logs at debug and at warning) in sessions with JSON responses:
// `serve --http --json-response`.
func jsonModeServer(t *testing.T) (*httptest.Server, *mcp.Server) {
	t.Helper()
	g := loadGuest(t, newHost(t), wat.Fixture, "fixture")
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{JSONResponse: true, SSEKeepAlive: -1}))
	t.Cleanup(ts.Close)
	return ts, s
}

// callJSON posts a tools/call in session id and checks the answer is one application/json
// object: the call's result and nothing else (no notification can travel in it).
func callJSON(t *testing.T, url, id, body string) {
	t.Helper()
	resp, got := post(t, url, id, both, body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("tools/call: %s %s %q, want 200 application/json", resp.Status, resp.Header.Get("Content-Type"), got)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(got), &m); err != nil {
		t.Fatalf("tools/call answer %q is not one JSON object: %v", got, err)
	}
	if string(m["id"]) != "2" || m["result"] == nil || m["method"] != nil {
		t.Fatalf("tools/call answer %q, want the result of request 2 only", got)
	}
}

// untilSentinel sends a notification unrelated to any request (it goes to the GET stream
// too, after everything sent before it) and returns the JSON-RPC messages the stream
// delivered before it, in order.
func untilSentinel(t *testing.T, s *mcp.Server, id string, lines <-chan string) []string {
	t.Helper()
	notify(t, s, id, "sentinel")
	var got []string
	timeout := time.After(20 * time.Second) // generous: the messages are already written
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the GET stream ended; got %q", got)
			}
			data, ok := strings.CutPrefix(l, "data: ")
			if !ok {
				continue
			}
			if strings.Contains(data, `"sentinel"`) {
				return got
			}
			got = append(got, data)
		case <-timeout:
			t.Fatalf("no sentinel on the GET stream within 20s; got %q", got)
		}
	}
}

// TestJSONResponseProgress: with --json-response in sessions, a POST is answered with one
// JSON object (the result), so the go-sdk sends what a call reports — progress and log
// lines — on the session's standalone GET stream, in order, before the answer. A client
// whose GET stream is open receives every report, exactly once; when no GET stream is open
// during the call, the reports are dropped (the SDK has no event store here: nothing is
// kept for a later GET) and the call itself still succeeds. This is the cause of the
// conformance baseline's ~json/tools-call-with-progress: the suite's client opens its GET
// stream asynchronously after initialization, so a call can run before it is connected.
func TestJSONResponseProgress(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"steps","arguments":{},"_meta":{"progressToken":"tok"}}}`
	wantProgress := []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","message":"step","progress":1,"total":3}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","message":"step","progress":2,"total":3}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":3,"total":3}}`,
	}

	t.Run("GET stream open", func(t *testing.T) {
		ts, s := jsonModeServer(t)
		id := initSession(t, ts.URL)
		lines := openGET(t, ts.URL, id, http.StatusOK) // returns once the stream is registered
		callJSON(t, ts.URL, id, call)
		if diff := cmp.Diff(wantProgress, untilSentinel(t, s, id, lines)); diff != "" {
			t.Errorf("GET stream before the sentinel (-want +got):\n%s", diff)
		}
	})

	// The sibling report: log lines take the same path.
	t.Run("log lines, GET stream open", func(t *testing.T) {
		ts, s := jsonModeServer(t)
		id := initSession(t, ts.URL)
		if resp, body := post(t, ts.URL, id, both, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}`); resp.StatusCode != http.StatusOK {
			t.Fatalf("logging/setLevel: %s %q", resp.Status, body)
		}
		lines := openGET(t, ts.URL, id, http.StatusOK)
		callJSON(t, ts.URL, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"logs","arguments":{}}}`)
		got := untilSentinel(t, s, id, lines)
		if len(got) != 2 || !strings.Contains(got[0], `"method":"notifications/message"`) || !strings.Contains(got[0], `"debug line"`) ||
			!strings.Contains(got[1], `"method":"notifications/message"`) || !strings.Contains(got[1], `"warning line"`) {
			t.Errorf("GET stream before the sentinel: %q, want the debug line then the warning line", got)
		}
	})

	t.Run("no GET stream during the call", func(t *testing.T) {
		ts, s := jsonModeServer(t)
		id := initSession(t, ts.URL)
		callJSON(t, ts.URL, id, call)
		lines := openGET(t, ts.URL, id, http.StatusOK)
		if got := untilSentinel(t, s, id, lines); len(got) != 0 {
			t.Errorf("a GET stream opened after the call got %q; want nothing (no event store: nothing is replayed)", got)
		}
	})
}
