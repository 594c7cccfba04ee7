package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestCallCountsOnlyTheRightResultAsSuccess: call fails on every kind of wrong answer a
// replica or proxy could give (an HTTP error, a JSON-RPC error, a tool error, another value,
// another id, a body that is no JSON-RPC) and succeeds on the right value, as JSON and as SSE.
func TestCallCountsOnlyTheRightResultAsSuccess(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":%d,"result":{"content":[],"structuredContent":{"value":98}}}`
	cases := []struct {
		name, ctype string
		status      int
		body        string // %d: the request's id
		wantErr     string // "" for success
	}{
		{"json", "application/json", 200, ok, ""},
		{"sse", "text/event-stream", 200, "event: message\ndata: " + ok + "\n\n", ""},
		{"http error", "text/plain", 502, "Bad Gateway", "HTTP 502 Bad Gateway"},
		{"rpc error", "application/json", 200, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32603,"message":"boom"}}`, "JSON-RPC error: boom"},
		{"tool error", "application/json", 200, `{"jsonrpc":"2.0","id":%d,"result":{"isError":true,"content":[]}}`, "tool error"},
		{"other value", "application/json", 200, `{"jsonrpc":"2.0","id":%d,"result":{"structuredContent":{"value":99}}}`, `structured content {"value":99}, want {"value":98}`},
		{"other id", "application/json", 200, `{"jsonrpc":"2.0","id":7,"result":{"structuredContent":{"value":98}}}`, "answer has id 7"},
		{"sse without data", "text/event-stream", 200, "event: message\n\n", "not a JSON-RPC response"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if got := r.Header.Get("Authorization"); got != "Bearer tok" {
					t.Errorf("Authorization %q", got)
				}
				b, _ := io.ReadAll(r.Body)
				if !strings.Contains(string(b), `"name":"calc"`) || !strings.Contains(string(b), `"id":42`) {
					t.Errorf("request body %s", b)
				}
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(tc.status)
				body := tc.body
				if strings.Contains(body, "%d") {
					body = fmt.Sprintf(body, 42)
				}
				io.WriteString(w, body)
			}))
			defer srv.Close()
			err := call(srv.Client(), srv.URL, "tok", 42, "calc", map[string]any{"expression": "2*(3+4)^2"}, []byte(`{"value":98}`))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("call: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("call: error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 200; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if got := pct(d, 99); got != 198*time.Millisecond {
		t.Errorf("p99 of 1..200 ms = %v, want 198ms", got)
	}
	if got := pct(d, 50); got != 100*time.Millisecond {
		t.Errorf("p50 of 1..200 ms = %v, want 100ms", got)
	}
	if got := pct(nil, 99); got != 0 {
		t.Errorf("p99 of nothing = %v, want 0", got)
	}
}
