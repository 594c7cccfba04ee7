package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// A request body that is not UTF-8 travels as body_base64 and reaches the server byte for
// byte (a plain "body" string cannot carry it: JSON would replace the invalid bytes).
func TestRequestBodyBase64(t *testing.T) {
	seen := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen <- b
	}))
	t.Cleanup(srv.Close)
	tl := newTool(t, policy.Grants{Net: []string{"127.0.0.1:*"}}, false, abi.Requests{Net: []string{"127.0.0.1:*"}})
	raw := []byte{0xff, 0x00, 0xfe, 'x'}
	body, _ := json.Marshal(abi.HTTPRequest{Method: "POST", URL: srv.URL, BodyBase64: base64.StdEncoding.EncodeToString(raw)})
	if st, resp := tl.Request(context.Background(), abi.KindHTTP, body); st != abi.StatusOK {
		t.Fatalf("status %v: %s", st, resp)
	}
	if got := <-seen; !bytes.Equal(got, raw) {
		t.Errorf("server got %x, want %x", got, raw)
	}
	bad, _ := json.Marshal(abi.HTTPRequest{URL: srv.URL, BodyBase64: "not base64!"})
	if st, resp := tl.Request(context.Background(), abi.KindHTTP, bad); st != abi.StatusInvalid ||
		string(resp) != `{"error":"http: body_base64 is not base64: illegal base64 data at input byte 3"}` {
		t.Errorf("bad base64: %v %s", st, resp)
	}
}
