package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzHTTPHandler sends fuzzed raw HTTP requests — method, target, headers and body — through
// the Streamable HTTP handler (both protocol generations, sessions, the gates before the
// SDK). Whatever arrives, the handler must not panic, must answer with a valid HTTP status,
// and any JSON-RPC error it sends (a JSON body or an SSE data line) must be well-formed:
// "jsonrpc":"2.0", an id (null allowed), an integer code and a string message.
func FuzzHTTPHandler(f *testing.F) {
	const hdr = "Host: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	// post is a POST with a Content-Length (else http.ReadRequest sees no body).
	post := func(extra, body string) string {
		return fmt.Sprintf("POST /mcp HTTP/1.1\r\n%s%sContent-Length: %d\r\n\r\n%s", hdr, extra, len(body), body)
	}
	for _, seed := range []string{
		post("", httpInit),
		post("", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`),
		post("Mcp-Session-Id: nope\r\nMCP-Protocol-Version: 2025-11-25\r\n", `{"jsonrpc":"2.0","id":2,"method":"ping"}`),
		post("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n",
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"s":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`),
		post("MCP-Protocol-Version: 2026-07-28\r\n", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}`),
		post("", `[{"jsonrpc":"2.0","id":1,"method":"initialize"},{"jsonrpc":"2.0","method":"x"}]`),
		post("", `{"jsonrpc":"2.0","id":{},"method":"initialize","params":[]}`),
		"POST /mcp HTTP/1.1\r\n" + hdr + "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n0\r\n\r\n",
		"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nAccept: text/html\r\nContent-Length: 2\r\n\r\n{}",
		post("Authorization: Bearer x\r\nOrigin: http://evil.example\r\nSec-Fetch-Site: cross-site\r\n", "{}"),
		"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: nope\r\nLast-Event-ID: _0\r\n\r\n",
		"DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: nope\r\n\r\n",
		"GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
		"PATCH / HTTP/1.1\r\nHost: evil.example:80\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	type echoArgs struct {
		S string `json:"s"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.S}}}, nil, nil
	})
	h := mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{MaxRequestBodyBytes: 1 << 16, MaxSessions: -1})
	f.Fuzz(func(t *testing.T, raw []byte) {
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
		if err != nil {
			return // net/http would answer 400 itself; the handler never sees it
		}
		req.RemoteAddr = "127.0.0.1:40000"
		// A request may legitimately hang (a GET stream, a subscription): the client leaving
		// ends it.
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(ctx))
		for ss := range s.Sessions() { // keep the fuzzing process's memory flat
			ss.Close()
		}
		if rec.Code < 100 || rec.Code > 599 {
			t.Fatalf("status %d for %q", rec.Code, raw)
		}
		body := rec.Body.Bytes()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			for _, line := range bytes.Split(body, []byte("\n")) {
				if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
					checkJSONRPC(t, data, raw)
				}
			}
		} else if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			checkJSONRPC(t, body, raw)
		}
	})
}

// checkJSONRPC checks the JSON-RPC error responses in an answer body (a message or a batch).
func checkJSONRPC(t *testing.T, body, raw []byte) {
	t.Helper()
	body = bytes.TrimSpace(body)
	var msgs []map[string]json.RawMessage
	if bytes.HasPrefix(body, []byte("[")) {
		if json.Unmarshal(body, &msgs) != nil {
			t.Fatalf("a JSON answer that is no JSON-RPC batch: %q for %q", body, raw)
		}
	} else {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) != nil {
			t.Fatalf("a JSON answer that is no JSON-RPC message: %q for %q", body, raw)
		}
		msgs = append(msgs, m)
	}
	for _, m := range msgs {
		e, ok := m["error"]
		if !ok {
			continue
		}
		var jerr struct {
			Code    *json.Number `json:"code"`
			Message *string      `json:"message"`
		}
		dec := json.NewDecoder(bytes.NewReader(e))
		dec.UseNumber()
		_, hasID := m["id"]
		if string(m["jsonrpc"]) != `"2.0"` || !hasID || dec.Decode(&jerr) != nil || jerr.Code == nil || jerr.Message == nil {
			t.Fatalf("malformed JSON-RPC error %q for %q", body, raw)
		}
		if _, err := jerr.Code.Int64(); err != nil {
			t.Fatalf("JSON-RPC error code %s is not an integer, for %q", *jerr.Code, raw)
		}
	}
}
