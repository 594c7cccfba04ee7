package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// TestServeHTTPAuth: serve --http with the config's http_auth is a resource server: no token
// is 401 naming the metadata; a token of the configured issuer for the configured resource
// lists and calls only what the policy grants its group.
func TestServeHTTPAuth(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k", Algorithm: "ES256", Use: "sig"}}})
	}))
	defer jwks.Close()
	const resource = "http://mcp.test/mcp"
	cfg := map[string]any{
		"guests": []any{map[string]any{"name": "fixture", "path": fixturePath}},
		"http_auth": map[string]any{"resource": resource,
			"issuers": []any{map[string]any{"issuer": jwks.URL, "jwks_uri": jwks.URL, "algorithms": []string{"ES256"}}},
			"policy":  []any{map[string]any{"name": "eng", "groups": []string{"eng"}, "tools": []string{"echo"}}}},
	}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(t.TempDir(), "mcpwasm.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	base, _ := startHTTP(t, "--config", path, "--json-response")
	url := base + "/mcp"

	resp := post(t, url, nil, initLine)
	if want := `Bearer resource_metadata="http://mcp.test/.well-known/oauth-protected-resource/mcp"`; resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
		t.Fatalf("no token: %s %q; want 401 %q", resp.Status, resp.Header.Get("WWW-Authenticate"), want)
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(sig).Claims(map[string]any{"iss": jwks.URL, "sub": "alice", "aud": resource, "groups": []string{"eng"},
		"exp": now.Add(5 * time.Minute).Unix(), "iat": now.Unix()}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	auth := map[string]string{"Authorization": "Bearer " + tok}
	resp = post(t, url, auth, initLine)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize with a token: %s", resp.Status)
	}
	auth["Mcp-Session-Id"], auth["MCP-Protocol-Version"] = sid, "2025-11-25"
	post(t, url, auth, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp = post(t, url, auth, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	body, _ := io.ReadAll(resp.Body)
	var list struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &list); err != nil || len(list.Result.Tools) != 1 || list.Result.Tools[0].Name != "echo" {
		t.Fatalf("tools/list: %s %q; want only echo", resp.Status, body)
	}
	resp = post(t, url, auth, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), `tool \"add\" is not allowed for subject \"alice\"`) {
		t.Fatalf("call add: %s %q; want 403 naming the policy", resp.Status, body)
	}
}

// TestPublicHTTPWithHTTPAuth: a non-loopback --http without a bearer token is refused
// (ExitPublicNoToken) unless the config's http_auth makes the server a resource server; the
// refusal waits for the config to be read, and says the same as before.
func TestPublicHTTPWithHTTPAuth(t *testing.T) {
	t.Setenv("MCPWASM_HTTP_TOKEN", "")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	guests := `"guests":[{"name":"fixture","path":` + strconvQuote(fixturePath) + `}]`
	plain := write("plain.json", `{`+guests+`}`)
	withAuth := write("auth.json", `{`+guests+`,"http_auth":{"resource":"https://mcp.example.com/mcp","issuers":[{"issuer":"https://idp.example.com","jwks_uri":"https://idp.example.com/jwks"}]}}`)
	wantErr := checkPublicHTTP("0.0.0.0:8080", "", "MCPWASM_HTTP_TOKEN", false)
	for _, tc := range []struct {
		cfg      string
		wantCode int
	}{{plain, ExitPublicNoToken}, {withAuth, ExitOK}} {
		o, code, err := parseServeFlags([]string{"--http", "0.0.0.0:8080", "--config", tc.cfg}, io.Discard)
		if err != nil {
			t.Fatalf("%s: parse: %d %v", tc.cfg, code, err)
		}
		s := &serving{o: o}
		code, err = s.readConfig(t.Context(), io.Discard)
		if code != tc.wantCode {
			t.Errorf("%s: readConfig = %d %v; want %d", filepath.Base(tc.cfg), code, err, tc.wantCode)
		}
		if tc.wantCode == ExitPublicNoToken && (err == nil || err.Error() != wantErr.Error()) {
			t.Errorf("%s: error %v; want %v", filepath.Base(tc.cfg), err, wantErr)
		}
		if tc.wantCode == ExitOK && (s.o.http.auth == nil || s.o.http.auth.Resource != "https://mcp.example.com/mcp") {
			t.Errorf("%s: no resource server from http_auth: %+v", filepath.Base(tc.cfg), s.o.http.auth)
		}
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
