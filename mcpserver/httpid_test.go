package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
)

// Over HTTP, a JSON-RPC id that go-sdk cannot hold exactly (it decodes numbers through a
// float64 into an int64) is refused before it reaches the SDK: 400 with -32600 naming the id,
// rather than an answer under another id (1.5 → 1; 2^63, 1e30, 1e308 → -2^63; 2^53+1 → 2^53).
// Ids it holds exactly are echoed as sent. A cancel naming such an id is refused too (it would
// cancel another request).
func TestHTTPInexactIDRefused(t *testing.T) {
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{JSONResponse: true}))
	t.Cleanup(hs.Close)
	post := func(id string) (int, string) {
		body := `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, id := range []string{"1.5", "9223372036854775808", "1e30", "1e308", "-1e308", "9007199254740993", "1.0", "-0.5", "9223372036854775807"} {
		status, body := post(id)
		want := `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"invalid request: id ` + id + ` cannot be answered exactly: a request id must be a string or an integer within ±2^53"}}` + "\n"
		if status != http.StatusOK || body != want {
			t.Errorf("id %s: HTTP %d %s\nwant 200 %s", id, status, body, want)
		}
	}
	for _, id := range []string{"1.5", "18446744073709551616"} {
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: requestId ` + id + ` cannot be answered exactly: a request id must be a string or an integer within ±2^53"}}` + "\n"
		if resp.StatusCode != http.StatusBadRequest || string(b) != want {
			t.Errorf("cancel of %s: HTTP %d %s\nwant 400 %s", id, resp.StatusCode, b, want)
		}
	}
	for _, id := range []string{"1", "0", "-7", "9007199254740992", "-9007199254740992", "4611686018427387904", `"1.5"`, `"9223372036854775808"`} {
		status, body := post(id)
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal([]byte(body), &m)
		if status != http.StatusOK || string(m.ID) != id {
			t.Errorf("id %s: HTTP %d id %s (%s); want 200 and the id echoed", id, status, m.ID, body)
		}
	}
}
