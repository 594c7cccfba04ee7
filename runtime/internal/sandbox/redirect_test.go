package sandbox

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// A guest's Authorization and Cookie reach the first URL's origin only: a redirect to another
// port of the same host (the case net/http's host-only rule lets through) drops them; other
// headers cross.
func TestGuestCredentialsNotSentAfterCrossOriginRedirect(t *testing.T) {
	seen := make(chan http.Header, 1)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		w.Write([]byte("ok"))
	}))
	t.Cleanup(target.Close)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/landed", http.StatusFound)
	}))
	t.Cleanup(origin.Close)
	tl := newTool(t, policy.Grants{Net: []string{"127.0.0.1:*"}}, false, abi.Requests{Net: []string{"127.0.0.1:*"}})
	body, _ := json.Marshal(abi.HTTPRequest{URL: origin.URL + "/start", Headers: map[string][]string{
		"Authorization": {"Bearer GUEST-SECRET"}, "Cookie": {"s=1"}, "X-Trace": {"t1"}}})
	status, resp := tl.Request(context.Background(), abi.KindHTTP, body)
	if status != abi.StatusOK || !strings.Contains(string(resp), `"status":200`) {
		t.Fatalf("status %v: %s", status, resp)
	}
	h := <-seen
	if h.Get("Authorization") != "" || h.Get("Cookie") != "" {
		t.Errorf("the other origin received Authorization %q, Cookie %q", h.Get("Authorization"), h.Get("Cookie"))
	}
	if h.Get("X-Trace") != "t1" {
		t.Errorf("X-Trace = %q, want it kept", h.Get("X-Trace"))
	}
}
