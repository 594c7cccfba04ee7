package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// While draining, every answer says "Connection: close" — also the event-stream answers of the
// SDK, which set "Connection: keep-alive" themselves after our handler ran (a load balancer
// then kept sending on a connection the draining replica was about to close).
func TestDrainingAnswersCloseConnection(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ready := newReadiness()
	ts := httptest.NewServer(closeWhileDraining(ready, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)))
	defer ts.Close()
	post := func() *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("Content-Type %q, want an event stream", ct)
		}
		return resp
	}
	if resp := post(); resp.Close {
		t.Errorf("not draining: the answer closed the connection")
	}
	ready.drain()
	if resp := post(); !resp.Close { // Close: the answer said "Connection: close"
		t.Errorf("draining: the answer keeps the connection (Connection %q)", resp.Header.Get("Connection"))
	}
}
