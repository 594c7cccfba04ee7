package upstream

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRedirectKeepsCredentialsOnlyToSameOrigin: the one rule for every credential header on a
// redirect hop — same scheme, host and port keep them; another host, another port of the same
// host, or an https→http downgrade drops Authorization, Cookie, Proxy-Authorization and every
// configured header; other headers cross.
func TestRedirectKeepsCredentialsOnlyToSameOrigin(t *testing.T) {
	configured := map[string]string{"X-Api-Key": "k"}
	for _, tt := range []struct {
		endpoint, hop string
		keep          bool
	}{
		{"https://api.example:8443/mcp", "https://api.example:8443/v2/mcp", true},
		{"https://api.example:8443/mcp", "https://API.Example:8443/mcp", true},
		{"https://api.example/mcp", "https://api.example:443/mcp", true},
		{"http://127.0.0.1/mcp", "http://127.0.0.1:80/x", true},
		{"https://api.example:8443/mcp", "https://evil.example:8443/mcp", false},
		{"https://api.example:8443/mcp", "https://sub.api.example:8443/mcp", false},
		{"https://api.example:8443/mcp", "https://api.example:9443/mcp", false},
		{"https://api.example/mcp", "http://api.example/mcp", false},
		{"https://api.example/mcp", "http://api.example:443/mcp", false},
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.2:8080/mcp", false},
	} {
		endpoint, _ := url.Parse(tt.endpoint)
		req := httptest.NewRequest(http.MethodPost, tt.hop, nil)
		for _, k := range []string{"Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key", "Mcp-Session-Id"} {
			req.Header.Set(k, "v")
		}
		via := []*http.Request{httptest.NewRequest(http.MethodPost, tt.endpoint, nil)}
		if err := redirectPolicy(endpoint, configured, nil)(req, via); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key"} {
			if got := req.Header.Get(k) != ""; got != tt.keep {
				t.Errorf("%s → %s: %s kept = %v, want %v", tt.endpoint, tt.hop, k, got, tt.keep)
			}
		}
		if req.Header.Get("Mcp-Session-Id") == "" {
			t.Errorf("%s → %s: Mcp-Session-Id dropped", tt.endpoint, tt.hop)
		}
	}
}

// TestConfiguredHeadersNotSentAfterCrossOriginRedirect: an HTTP upstream that answers with a
// 307 to another origin (here the sibling of another host: another port of 127.0.0.1) gets
// the session, but the server there never sees the configured Authorization or X-Api-Key.
func TestConfiguredHeadersNotSentAfterCrossOriginRedirect(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "target", Version: "0"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, k := range []string{"Authorization", "X-Api-Key"} {
			if v := r.Header.Get(k); v != "" {
				mu.Lock()
				leaked = append(leaked, r.Method+" "+k+": "+v)
				mu.Unlock()
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(target.Close)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(origin.Close)
	logs := &syncBuffer{}
	s := dial(t, Spec{URL: origin.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer SECRET", "X-Api-Key": "KEY"}}, testOptions(logs))
	if _, err := s.AllTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Errorf("the other origin received credentials: %q", leaked)
	}
}
