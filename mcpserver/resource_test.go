package mcpserver_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests mint access tokens with go-jose and serve the issuer's JWKS from httptest
// (RATIONALE.md, "Who may call what: why validate tokens in front of go-sdk's bearer check?",
// says why no authorization server runs here).

const testResourcePath = "/mcp"

var rsaKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func ecKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// testIssuer is an authorization server's JWKS endpoint and its signing keys.
type testIssuer struct {
	url     string
	fetches atomic.Int32
	mu      sync.Mutex
	keys    []jose.JSONWebKey // public keys served
	handler http.HandlerFunc  // replaces the JWKS answer when set
}

func newTestIssuer(t *testing.T) *testIssuer {
	is := &testIssuer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		is.fetches.Add(1)
		is.mu.Lock()
		h, set := is.handler, jose.JSONWebKeySet{Keys: is.keys}
		is.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(ts.Close)
	is.url = ts.URL
	return is
}

func (is *testIssuer) serve(keys ...jose.JSONWebKey) {
	is.mu.Lock()
	is.keys = keys
	is.mu.Unlock()
}

func publicJWK(priv any, kid, alg string) jose.JSONWebKey {
	var pub any
	switch k := priv.(type) {
	case *rsa.PrivateKey:
		pub = &k.PublicKey
	case *ecdsa.PrivateKey:
		pub = &k.PublicKey
	}
	return jose.JSONWebKey{Key: pub, KeyID: kid, Algorithm: alg, Use: "sig"}
}

// mint signs claims with key (alg, kid).
func mint(t *testing.T, key any, alg jose.SignatureAlgorithm, kid string, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt")
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// claims are valid claims for subject of is at resource, with extra merged in.
func testClaims(is *testIssuer, resource, subject string, extra map[string]any) map[string]any {
	now := time.Now()
	c := map[string]any{"iss": is.url, "sub": subject, "aud": resource, "iat": now.Unix(),
		"nbf": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
	for k, v := range extra {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

// rsEnv is a resource server under test: its URL, resource URI and issuer.
type rsEnv struct {
	url, resource string
	is            *testIssuer
	server        *mcp.Server
}

// newRS serves a resource server with guests "echoer" (tool echo) and "mirror" (tool
// mirror, prompt meta, resource mirror://meta) and host tools
// admin_reset, lookup_user, write_note and whoami (which answers IdentityFrom's subject and
// groups and ClientKey). configure adjusts the options before the handler is made.
func newRS(t *testing.T, configure func(*mcpserver.ResourceServer, *mcpserver.Issuer)) *rsEnv {
	t.Helper()
	h := newHost(t)
	s, err := mcpserver.NewServer([]*runtime.Guest{loadGuest(t, h, wat.Echo, "echoer"), loadGuest(t, h, wat.Mirror, "mirror")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"admin_reset", "lookup_user", "write_note", "whoami"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := name + " ok"
			if id := mcpserver.IdentityFrom(ctx); name == "whoami" && id != nil {
				text = id.Subject + " " + strings.Join(id.Groups, ",") + " " + mcpserver.ClientKey(ctx, req.Session.ID())
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	is := newTestIssuer(t)
	is.serve(publicJWK(rsaKey(), "k1", "RS256"))
	env := &rsEnv{is: is, server: s}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	env.url, env.resource = ts.URL, ts.URL+testResourcePath
	issuer := mcpserver.Issuer{Issuer: is.url, JWKSURI: is.url + "/jwks", Algorithms: []string{"RS256"}}
	rs := &mcpserver.ResourceServer{Resource: env.resource, ScopesSupported: []string{"mcp:write"}}
	if configure != nil {
		configure(rs, &issuer)
	}
	rs.Issuers = append(rs.Issuers, issuer)
	mux.Handle("/", mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{JSONResponse: true, ResourceServer: rs}))
	return env
}

// token is a valid RS256 token of env's issuer for subject with extra claims.
func (env *rsEnv) token(t *testing.T, subject string, extra map[string]any) string {
	return mint(t, rsaKey(), jose.RS256, "k1", testClaims(env.is, env.resource, subject, extra))
}

// do sends an MCP POST with a bearer token (none if "") and session id (none if "").
func rsDo(t *testing.T, env *rsEnv, token, session, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, env.resource, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", both)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
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

// session initializes a session with token and returns its id.
func (env *rsEnv) session(t *testing.T, token string) string {
	t.Helper()
	resp, body := rsDo(t, env, token, "", httpInit)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s %q", resp.Status, body)
	}
	if resp, body := rsDo(t, env, token, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s %q", resp.Status, body)
	}
	return sid
}

func rsToolNames(t *testing.T, env *rsEnv, token, sid string) []string {
	t.Helper()
	resp, body := rsDo(t, env, token, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("tools/list: %s %q", resp.Status, body)
	}
	var m struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("tools/list: %q: %v", body, err)
	}
	var names []string
	for _, tl := range m.Result.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func callBody(tool string) string {
	return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

// callText calls tool and returns its first text, failing unless the answer is 200.
func rsCall(t *testing.T, env *rsEnv, token, sid, tool string) string {
	t.Helper()
	resp, body := rsDo(t, env, token, sid, callBody(tool))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("call %s: %s %q", tool, resp.Status, body)
	}
	var m struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || len(m.Result.Content) == 0 {
		t.Fatalf("call %s: %q (%v)", tool, body, err)
	}
	return m.Result.Content[0].Text
}

// TestProtectedResourceMetadata: RFC 9728 metadata at both well-known paths, and a 401
// without a token names it in WWW-Authenticate.
func TestProtectedResourceMetadata(t *testing.T) {
	env := newRS(t, nil)
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		resp, err := http.Get(env.url + p)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			ScopesSupported      []string `json:"scopes_supported"`
		}
		err = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || m.Resource != env.resource || len(m.AuthorizationServers) != 1 || m.AuthorizationServers[0] != env.is.url || len(m.ScopesSupported) != 1 || m.ScopesSupported[0] != "mcp:write" {
			t.Errorf("GET %s: %s %+v (%v)", p, resp.Status, m, err)
		}
	}
	resp, body := rsDo(t, env, "", "", httpInit)
	want := `Bearer resource_metadata="` + env.url + `/.well-known/oauth-protected-resource/mcp"`
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
		t.Fatalf("no token: %s WWW-Authenticate %q %q; want 401 %q", resp.Status, resp.Header.Get("WWW-Authenticate"), body, want)
	}
}

// TestResourceServerRefusesBadTokens: each attack is a 401 invalid_token naming why, and the
// server goes on serving a good token.
func TestResourceServerRefusesBadTokens(t *testing.T) {
	env := newRS(t, nil)
	other := ecKey(t)
	otherRSA, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, _ := x509.MarshalPKIXPublicKey(&rsaKey().PublicKey)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	seg := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	c := testClaims(env.is, env.resource, "alice", nil)
	past, future := time.Now().Add(-10*time.Minute).Unix(), time.Now().Add(10*time.Minute).Unix()
	for _, tc := range []struct {
		name, token, want string
	}{
		{"audience of another resource", env.token(t, "alice", map[string]any{"aud": "https://other.example/mcp"}), `does not name this resource`},
		{"expired", env.token(t, "alice", map[string]any{"exp": past, "iat": past - 60, "nbf": past - 60}), `token expired at`},
		{"not yet valid", env.token(t, "alice", map[string]any{"nbf": future}), `token not valid before`},
		{"no exp", env.token(t, "alice", map[string]any{"exp": nil}), `token has no exp`},
		{"no sub", env.token(t, "", nil), `token has no sub`},
		{"alg none", seg(map[string]any{"alg": "none", "kid": "k1"}) + "." + seg(c) + ".", `not a signed JWT with an accepted algorithm`},
		{"HS256 with the RSA public key as secret", mint(t, pubPEM, jose.HS256, "k1", c), `not a signed JWT with an accepted algorithm`},
		{"algorithm the issuer does not use", mint(t, other, jose.ES256, "k1", c), `algorithm "ES256" is not one of issuer`},
		{"wrong issuer", mint(t, rsaKey(), jose.RS256, "k1", testClaims(&testIssuer{url: "https://evil.example"}, env.resource, "alice", nil)), `issuer "https://evil.example" is not trusted`},
		{"unknown kid", mint(t, rsaKey(), jose.RS256, "k9", c), `key "k9" is not in issuer`},
		{"signed by another key under a known kid", mint(t, otherRSA, jose.RS256, "k1", c), `signature does not verify`},
		{"not a JWT", "opaque-token-value", `not a signed JWT`},
	} {
		resp, body := rsDo(t, env, tc.token, "", httpInit)
		wa := resp.Header.Get("WWW-Authenticate")
		checkChallengeChars(t, tc.name, wa)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, tc.want) || !strings.Contains(wa, `error="invalid_token"`) || !strings.Contains(wa, "resource_metadata=") {
			t.Errorf("%s: %s %q, WWW-Authenticate %q; want 401 invalid_token containing %q", tc.name, resp.Status, body, wa, tc.want)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, env.resource, strings.NewReader(httpInit))
	req.Header.Set("Authorization", "Basic YWxpY2U6cHc=")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	checkChallengeChars(t, "Basic credentials", resp.Header.Get("WWW-Authenticate"))
	if wa := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(wa, `error="invalid_request"`) {
		t.Errorf("Basic credentials: %s %q; want 400 invalid_request", resp.Status, wa)
	}
	if sid := env.session(t, env.token(t, "alice", nil)); sid == "" {
		t.Fatal("no session for a good token after the attacks")
	}
}

// checkChallengeChars fails unless a WWW-Authenticate value is printable ASCII with
// backslashes only where none is (RFC 6750 §3 allows neither '\\' nor non-ASCII in
// error_description).
func checkChallengeChars(t *testing.T, name, wa string) {
	t.Helper()
	for _, r := range wa {
		if r < 0x20 || r > 0x7e || r == '\\' {
			t.Errorf("%s: WWW-Authenticate %q has %q, which RFC 6750 does not allow", name, wa, r)
			return
		}
	}
}

// TestJWKSSlowAndHuge: a JWKS that does not answer within the timeout, or is larger than
// the cap, refuses the token with 401 naming that, and the server keeps serving.
func TestJWKSSlowAndHuge(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	env := newRS(t, func(rs *mcpserver.ResourceServer, is *mcpserver.Issuer) {
		is.JWKSTimeout = 300 * time.Millisecond
		is.JWKSMaxBytes = 64 << 10
		is.JWKSMinRefresh = time.Nanosecond // every unknown kid may refetch
	})
	env.is.mu.Lock()
	env.is.handler = func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	env.is.mu.Unlock()
	resp, body := rsDo(t, env, env.token(t, "alice", nil), "", httpInit)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "keys are unavailable") || !strings.Contains(body, "timeout 300ms") {
		t.Fatalf("slow JWKS: %s %q; want 401 naming the timeout", resp.Status, body)
	}
	env.is.mu.Lock()
	env.is.handler = func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"keys":[` + strings.Repeat(" ", 1<<20) + `]}`))
	}
	env.is.mu.Unlock()
	resp, body = rsDo(t, env, env.token(t, "alice", nil), "", httpInit)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "JWKS larger than 65536 bytes") {
		t.Fatalf("huge JWKS: %s %q; want 401 naming the size cap", resp.Status, body)
	}
	env.is.mu.Lock()
	env.is.handler = nil
	env.is.mu.Unlock()
	if sid := env.session(t, env.token(t, "alice", nil)); sid == "" {
		t.Fatal("no session once the JWKS is back")
	}
}

// TestJWKSRotation: a token with a new kid makes the server refetch and accept it; a key the
// issuer removed is refused after the refetch; an unknown kid refetches at most once per
// JWKSMinRefresh (a flood of made-up kids does not hammer the issuer).
func TestJWKSRotation(t *testing.T) {
	k1, k2 := ecKey(t), ecKey(t)
	t.Run("rotate", func(t *testing.T) {
		env := newRS(t, func(rs *mcpserver.ResourceServer, is *mcpserver.Issuer) {
			is.Algorithms, is.JWKSMinRefresh = []string{"ES256"}, time.Nanosecond
		})
		env.is.serve(publicJWK(k1, "a", "ES256"))
		tokA := mint(t, k1, jose.ES256, "a", testClaims(env.is, env.resource, "alice", nil))
		sid := env.session(t, tokA)
		env.is.serve(publicJWK(k2, "b", "ES256")) // the issuer rotates: a is gone
		tokB := mint(t, k2, jose.ES256, "b", testClaims(env.is, env.resource, "alice", nil))
		if got := rsCall(t, env, tokB, sid, "lookup_user"); got != "lookup_user ok" {
			t.Fatalf("new key mid-session: %q", got)
		}
		resp, body := rsDo(t, env, tokA, sid, callBody("lookup_user"))
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `key "a" is not in issuer`) {
			t.Fatalf("removed key: %s %q; want 401", resp.Status, body)
		}
	})
	t.Run("rate limited", func(t *testing.T) {
		env := newRS(t, func(rs *mcpserver.ResourceServer, is *mcpserver.Issuer) {
			is.Algorithms, is.JWKSMinRefresh = []string{"ES256"}, time.Hour
		})
		env.is.serve(publicJWK(k1, "a", "ES256"))
		env.session(t, mint(t, k1, jose.ES256, "a", testClaims(env.is, env.resource, "alice", nil)))
		for i := range 5 {
			resp, _ := rsDo(t, env, mint(t, k2, jose.ES256, "made-up", testClaims(env.is, env.resource, "alice", nil)), "", httpInit)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("made-up kid %d: %s", i, resp.Status)
			}
		}
		if n := env.is.fetches.Load(); n != 1 {
			t.Fatalf("JWKS fetched %d times; want 1 (unknown kids within JWKSMinRefresh do not refetch)", n)
		}
	})
	t.Run("issuer down", func(t *testing.T) {
		env := newRS(t, func(rs *mcpserver.ResourceServer, is *mcpserver.Issuer) { is.JWKSMinRefresh = time.Hour })
		env.is.mu.Lock()
		env.is.handler = func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusBadGateway) }
		env.is.mu.Unlock()
		for i := range 5 {
			resp, body := rsDo(t, env, env.token(t, "alice", nil), "", httpInit)
			if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "keys are unavailable: fetching JWKS: 502 Bad Gateway") {
				t.Fatalf("request %d with the JWKS down: %s %q", i, resp.Status, body)
			}
		}
		if n := env.is.fetches.Load(); n != 1 {
			t.Fatalf("JWKS fetched %d times while down; want 1 (at most one fetch per JWKSMinRefresh)", n)
		}
	})
}

// policy grants: group eng the guests echoer and mirror, and admin_*; group support lookup_*, and
// write_note with scope mcp:write.
func policyRS(rs *mcpserver.ResourceServer, _ *mcpserver.Issuer) {
	rs.Policy = &mcpserver.Policy{Rules: []mcpserver.PolicyRule{
		{Name: "eng", Groups: []string{"eng"}, Guests: []string{"echoer", "mirror"}, Tools: []string{"admin_*", "whoami"}},
		{Name: "support", Groups: []string{"support"}, Tools: []string{"lookup_*", "whoami"}},
		{Name: "support-write", Groups: []string{"support"}, Scopes: []string{"mcp:write"}, Tools: []string{"write_note"}},
	}}
}

// TestPolicyByIdentity: each identity lists only the tools its groups are granted and is
// refused the others with 403 naming the policy; a tool a missing scope keeps away is 403
// insufficient_scope with the scope; handlers see the identity; sessions are bound to it.
func TestPolicyByIdentity(t *testing.T) {
	env := newRS(t, policyRS)
	alice := env.token(t, "alice", map[string]any{"groups": []string{"eng"}})
	bob := env.token(t, "bob", map[string]any{"groups": []string{"support"}, "scope": "openid"})
	sa, sb := env.session(t, alice), env.session(t, bob)

	if got, want := strings.Join(rsToolNames(t, env, alice, sa), ","), "admin_reset,echo,mirror,whoami"; got != want {
		t.Errorf("alice lists %s; want %s", got, want)
	}
	if got, want := strings.Join(rsToolNames(t, env, bob, sb), ","), "lookup_user,whoami"; got != want {
		t.Errorf("bob lists %s; want %s", got, want)
	}
	if got := rsCall(t, env, alice, sa, "admin_reset"); got != "admin_reset ok" {
		t.Errorf("alice admin_reset: %q", got)
	}
	if got, want := rsCall(t, env, bob, sb, "whoami"), "bob support sub:"+env.is.url+" bob"; got != want {
		t.Errorf("bob whoami: %q; want %q", got, want)
	}
	resp, body := rsDo(t, env, bob, sb, callBody("admin_reset"))
	if code, msg := jsonrpcError(t, body); resp.StatusCode != http.StatusForbidden || code != mcpserver.CodeToolDenied ||
		msg != `tool "admin_reset" is not allowed for subject "bob": no rule of the server's policy grants it` {
		t.Errorf("bob admin_reset: %s %d %q; want 403 CodeToolDenied", resp.Status, code, msg)
	}
	resp, body = rsDo(t, env, bob, sb, callBody("echo"))
	if _, msg := jsonrpcError(t, body); resp.StatusCode != http.StatusForbidden || !strings.Contains(msg, `tool "echo" is not allowed`) {
		t.Errorf("bob echo (guest not granted): %s %q", resp.Status, body)
	}
	resp, body = rsDo(t, env, bob, sb, callBody("write_note"))
	wa := resp.Header.Get("WWW-Authenticate")
	if code, msg := jsonrpcError(t, body); resp.StatusCode != http.StatusForbidden || !strings.Contains(wa, `error="insufficient_scope"`) || !strings.Contains(wa, `scope="mcp:write"`) ||
		code != mcpserver.CodeToolDenied || msg != `tool "write_note" needs scope "mcp:write" for subject "bob" (policy rule "support-write")` {
		t.Errorf("bob write_note without the scope: %s %q %q", resp.Status, wa, body)
	}
	bobWrite := env.token(t, "bob", map[string]any{"groups": []string{"support"}, "scope": "openid mcp:write"})
	if got := rsCall(t, env, bobWrite, sb, "write_note"); got != "write_note ok" {
		t.Errorf("bob write_note with the scope: %q", got)
	}
	// Prompts and resources follow their guest: alice is granted mirror, bob is not.
	for _, tc := range []struct {
		token, sid, body, want string
	}{
		{alice, sa, `{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`, `"prompts":[{"name":"meta"}]`},
		{bob, sb, `{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`, `"prompts":[]`},
		{alice, sa, `{"jsonrpc":"2.0","id":5,"method":"resources/list"}`, `"uri":"mirror://meta"`},
		{bob, sb, `{"jsonrpc":"2.0","id":5,"method":"resources/list"}`, `"resources":[]`},
		{bob, sb, `{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"meta"}}`, `prompt \"meta\" is not allowed for subject \"bob\"`},
		{bob, sb, `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"mirror://meta"}}`, `resource \"mirror://meta\" is not allowed for subject \"bob\"`},
	} {
		if resp, body := rsDo(t, env, tc.token, tc.sid, tc.body); !strings.Contains(body, tc.want) {
			t.Errorf("%s: %s %q; want %s", tc.body, resp.Status, body, tc.want)
		}
	}

	// Alice's session named by Bob: the SDK refuses it (403), not Alice's session.
	resp, body = rsDo(t, env, bob, sa, callBody("whoami"))
	if resp.StatusCode != http.StatusForbidden || strings.Contains(body, "alice") {
		t.Errorf("bob with alice's session: %s %q; want 403", resp.Status, body)
	}
	req, _ := http.NewRequest(http.MethodDelete, env.resource, nil)
	req.Header.Set("Authorization", "Bearer "+bob)
	req.Header.Set("Mcp-Session-Id", sa)
	dresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	dresp.Body.Close()
	if dresp.StatusCode != http.StatusForbidden {
		t.Errorf("bob DELETEs alice's session: %s; want 403", dresp.Status)
	}
	if got := rsCall(t, env, alice, sa, "admin_reset"); got != "admin_reset ok" {
		t.Errorf("alice's session after bob's attempts: %q", got)
	}
	// Alice's token expires mid-session: the next request is refused.
	expired := env.token(t, "alice", map[string]any{"groups": []string{"eng"}, "exp": time.Now().Add(-2 * time.Minute).Unix(), "iat": time.Now().Add(-10 * time.Minute).Unix(), "nbf": nil})
	if resp, body := rsDo(t, env, expired, sa, callBody("admin_reset")); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "token expired") {
		t.Errorf("expired token mid-session: %s %q", resp.Status, body)
	}
}

// TestSessionQuotaPerIdentity: one identity cannot open more than MaxSessionsPerIdentity
// sessions; another identity still can; ending a session makes room.
func TestSessionQuotaPerIdentity(t *testing.T) {
	env := newRS(t, func(rs *mcpserver.ResourceServer, _ *mcpserver.Issuer) { rs.MaxSessionsPerIdentity = 2 })
	alice, bob := env.token(t, "alice", nil), env.token(t, "bob", nil)
	first := env.session(t, alice)
	env.session(t, alice)
	resp, body := rsDo(t, env, alice, "", httpInit)
	if code, msg := jsonrpcError(t, body); resp.StatusCode != http.StatusServiceUnavailable || code != mcpserver.CodeTooManySessions ||
		msg != `too many sessions for subject "alice" (2, the per-identity session quota): end unused sessions with DELETE` {
		t.Fatalf("alice's third session: %s %d %q", resp.Status, code, msg)
	}
	env.session(t, bob)
	// The default SSE answers too: the session id is read from the SSE answer's headers.
	sse, _ := httpServer(t, &mcpserver.HTTPOptions{ResourceServer: &mcpserver.ResourceServer{Resource: env.resource, MaxSessionsPerIdentity: 1,
		Issuers: []mcpserver.Issuer{{Issuer: env.is.url, JWKSURI: env.is.url}}}})
	sseEnv := &rsEnv{url: sse.URL, resource: sse.URL + "/mcp"}
	hdr := func(resp *http.Response, body string) string {
		return resp.Status + " " + resp.Header.Get("Content-Type") + " " + body
	}
	if got := hdr(rsDo(t, sseEnv, alice, "", httpInit)); !strings.HasPrefix(got, "200 OK text/event-stream") {
		t.Fatalf("SSE initialize: %s", got)
	}
	if resp, body := rsDo(t, sseEnv, alice, "", httpInit); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "per-identity session quota") {
		t.Fatalf("SSE second session of alice: %s", hdr(resp, body))
	}
	req, _ := http.NewRequest(http.MethodDelete, env.resource, nil)
	req.Header.Set("Authorization", "Bearer "+alice)
	req.Header.Set("Mcp-Session-Id", first)
	dresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	dresp.Body.Close()
	env.session(t, alice)
}

// TestStaticTokenIsOneIdentity: with a resource server, the static token is accepted as the
// identity StaticTokenSubject, and a policy applies to it like to any other.
func TestStaticTokenIsOneIdentity(t *testing.T) {
	env := newRS(t, func(rs *mcpserver.ResourceServer, is *mcpserver.Issuer) {
		rs.StaticToken = "s3cret-static"
		rs.Policy = &mcpserver.Policy{Rules: []mcpserver.PolicyRule{{Name: "ops", Subjects: []string{mcpserver.StaticTokenSubject}, Tools: []string{"whoami"}}}}
	})
	sid := env.session(t, "s3cret-static")
	if got, want := strings.Join(rsToolNames(t, env, "s3cret-static", sid), ","), "whoami"; got != want {
		t.Errorf("static token lists %s; want %s", got, want)
	}
	if got, want := rsCall(t, env, "s3cret-static", sid, "whoami"), "static-token  sub: static-token"; got != want {
		t.Errorf("whoami: %q; want %q", got, want)
	}
}

// TestTaskBoundToIdentity: a 2026-07-28 task (no session) is reachable by its id only from
// the identity that created it: another gets the unknown-task error, revealing nothing.
func TestTaskBoundToIdentity(t *testing.T) {
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: askGuest.cache})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	grants := allClientGrants
	grants.Clock = true
	g, err := h.Load(ctx, confWasm(t), &runtime.GuestConfig{Grants: grants})
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mcpserver.StopTasks(context.Background(), s) })
	is := newTestIssuer(t)
	is.serve(publicJWK(rsaKey(), "k1", "RS256"))
	const resource = "http://mcp.test/mcp"
	hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{JSONResponse: true, ResourceServer: &mcpserver.ResourceServer{
		Resource: resource, Issuers: []mcpserver.Issuer{{Issuer: is.url, JWKSURI: is.url}}}}))
	t.Cleanup(hs.Close)
	bearer := func(sub string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + mint(t, rsaKey(), jose.RS256, "k1", testClaims(is, resource, sub, nil))}
	}
	w := mustResult(t, "tools/call", post26(t, hs.URL, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 600, "label": "x"}}, tasksCaps, bearer("alice")))
	var id string
	if err := json.Unmarshal(w.result["taskId"], &id); err != nil || id == "" {
		t.Fatalf("no taskId in %v", w.result)
	}
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		got := post26(t, hs.URL, method, map[string]any{"taskId": id}, tasksCaps, bearer("bob"))
		if want := `invalid params: unknown task "` + id + `" (it may have expired)`; got.err == nil || got.err.Code != -32602 || got.err.Message != want {
			t.Errorf("bob %s of alice's task: %+v; want -32602 %q", method, got.err, want)
		}
	}
	if got := mustResult(t, "tasks/get", post26(t, hs.URL, "tasks/get", map[string]any{"taskId": id}, tasksCaps, bearer("alice"))); string(got.result["status"]) != `"working"` {
		t.Errorf("alice tasks/get: status %s; want working (bob's cancel must not have reached it)", got.result["status"])
	}
}

// TestMetricsBehindResourceServer: with a resource server, GET /metrics needs a valid token.
func TestMetricsBehindResourceServer(t *testing.T) {
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	is := newTestIssuer(t)
	is.serve(publicJWK(rsaKey(), "k1", "RS256"))
	const resource = "http://mcp.test/mcp"
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "calls 1\n") })
	hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{Metrics: metrics, ResourceServer: &mcpserver.ResourceServer{
		Resource: resource, Issuers: []mcpserver.Issuer{{Issuer: is.url, JWKSURI: is.url}}}}))
	t.Cleanup(hs.Close)
	for _, tc := range []struct {
		token string
		want  int
	}{
		{"", http.StatusUnauthorized},
		{"garbage", http.StatusUnauthorized},
		{mint(t, rsaKey(), jose.RS256, "k1", testClaims(is, resource, "prometheus", nil)), http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodGet, hs.URL+"/metrics", nil)
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET /metrics with %.10q: %s; want %d", tc.token, resp.Status, tc.want)
		}
	}
}

// TestIntrospection: an opaque token is checked at the issuer's introspection endpoint
// (RFC 7662) with the resource server's client credentials; inactive, other-audience,
// expiry-less and expired answers are 401; an accepted token is cached (one call for two
// requests).
func TestIntrospection(t *testing.T) {
	now := time.Now()
	answers := map[string]map[string]any{
		"good":     {"active": true, "sub": "carol", "aud": "http://mcp.test/mcp", "exp": now.Add(time.Hour).Unix(), "groups": []string{"eng"}},
		"inactive": {"active": false},
		"other":    {"active": true, "sub": "carol", "aud": "https://other.example", "exp": now.Add(time.Hour).Unix()},
		"noexp":    {"active": true, "sub": "carol", "aud": "http://mcp.test/mcp"},
		"expired":  {"active": true, "sub": "carol", "aud": []string{"x", "http://mcp.test/mcp"}, "exp": now.Add(-time.Hour).Unix()},
	}
	var calls atomic.Int32
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if id, secret, ok := r.BasicAuth(); !ok || id != "mcp-rs" || secret != "s3cret" || r.PostFormValue("token_type_hint") != "access_token" {
			http.Error(w, "unauthorized client", http.StatusUnauthorized)
			return
		}
		a, ok := answers[r.PostFormValue("token")]
		if !ok {
			a = map[string]any{"active": false}
		}
		_ = json.NewEncoder(w).Encode(a)
	}))
	t.Cleanup(as.Close)
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		id := mcpserver.IdentityFrom(ctx)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: id.Subject + " " + strings.Join(id.Groups, ",")}}}, nil
	})
	hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{JSONResponse: true, ResourceServer: &mcpserver.ResourceServer{
		Resource: "http://mcp.test/mcp", Issuers: []mcpserver.Issuer{{Issuer: as.URL, IntrospectionURL: as.URL, ClientID: "mcp-rs", ClientSecret: "s3cret"}}}}))
	t.Cleanup(hs.Close)
	env := &rsEnv{url: hs.URL, resource: hs.URL + "/mcp"}
	for token, want := range map[string]string{
		"inactive": "token is not active",
		"other":    "does not name this resource",
		"noexp":    "introspection gave no exp",
		"expired":  "token expired at",
		"unknown":  "token is not active",
	} {
		if resp, body := rsDo(t, env, token, "", httpInit); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, want) {
			t.Errorf("opaque token %q: %s %q; want 401 containing %q", token, resp.Status, body, want)
		}
	}
	before := calls.Load()
	sid := env.session(t, "good")
	if got := rsCall(t, env, "good", sid, "whoami"); got != "carol eng" {
		t.Errorf("whoami: %q; want %q", got, "carol eng")
	}
	if n := calls.Load() - before; n != 1 {
		t.Errorf("%d introspection calls for one token used 3 times; want 1 (cached)", n)
	}
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestPolicyWithSDKClient: a go-sdk client with a token lists only its granted tools, calls
// one, is refused another with an error naming the policy, and its session goes on.
func TestPolicyWithSDKClient(t *testing.T) {
	env := newRS(t, policyRS)
	ctx := t.Context()
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: env.resource,
		HTTPClient: &http.Client{Transport: bearerTransport{env.token(t, "bob", map[string]any{"groups": []string{"support"}})}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lr, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lr.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "lookup_user,whoami" {
		t.Errorf("bob lists %s; want lookup_user,whoami", got)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "admin_reset"})
	if err == nil || !strings.Contains(err.Error(), `tool "admin_reset" is not allowed for subject "bob"`) {
		t.Errorf("admin_reset: %v; want the policy's refusal", err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_note"})
	if err == nil || !strings.Contains(err.Error(), `needs scope "mcp:write"`) {
		t.Errorf("write_note without the scope: %v; want the insufficient_scope refusal", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup_user"})
	if err != nil || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "lookup_user ok" {
		t.Errorf("lookup_user after the refusal: %+v %v", res, err)
	}
}

// TestPolicyCoversWholeServerGuest: a rule naming a whole-server guest (Expose with Kind
// "guest") grants its tools, prompts, resources and templates, as it does a guest's: they
// used to count as no guest's, so only a tool pattern or "*" reached them. An identity the
// rule does not select sees none of them and is refused their prompt and a template-matched
// read. An upstream (Kind "upstream") stays no guest's.
func TestPolicyCoversWholeServerGuest(t *testing.T) {
	env := newRS(t, func(rs *mcpserver.ResourceServer, _ *mcpserver.Issuer) {
		rs.Policy = &mcpserver.Policy{Rules: []mcpserver.PolicyRule{
			{Name: "eng", Groups: []string{"eng"}, Guests: []string{"notes", "docs"}},
			{Name: "support", Groups: []string{"support"}, Tools: []string{"whoami"}},
		}}
	})
	lists := map[string]string{
		"initialize":               `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{},"resources":{}},"serverInfo":{"name":"notes","version":"1"}}`,
		"tools/list":               `{"tools":[{"name":"note_count","inputSchema":{"type":"object"}}]}`,
		"tools/call":               `{"content":[{"type":"text","text":"3 notes"}]}`,
		"prompts/list":             `{"prompts":[{"name":"summary"}]}`,
		"prompts/get":              `{"messages":[{"role":"user","content":{"type":"text","text":"summarize"}}]}`,
		"resources/list":           `{"resources":[{"uri":"note://readme","name":"readme"}]}`,
		"resources/templates/list": `{"resourceTemplates":[{"uriTemplate":"note://n/{id}","name":"note"}]}`,
		"resources/read":           `{"contents":[{"uri":"note://n/7","text":"seven"}]}`,
	}
	ctx := t.Context()
	if _, err := mcpserver.Expose(ctx, env.server, "notes", rawUpstream(t, lists), &mcpserver.ExposeOptions{Kind: "guest", All: true}); err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for k, v := range lists {
		docs[k] = strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(v, "note_count", "doc_count"), "summary", "outline"), "note://", "doc://")
	}
	if _, err := mcpserver.Expose(ctx, env.server, "docs", rawUpstream(t, docs), &mcpserver.ExposeOptions{Kind: "upstream", All: true}); err != nil {
		t.Fatal(err)
	}
	connect := func(token string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: env.resource,
			HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	seen := func(cs *mcp.ClientSession) string {
		var got []string
		lt, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range lt.Tools {
			got = append(got, "tool "+x.Name)
		}
		lp, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range lp.Prompts {
			got = append(got, "prompt "+x.Name)
		}
		lr, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range lr.Resources {
			got = append(got, "resource "+x.URI)
		}
		ltm, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range ltm.ResourceTemplates {
			got = append(got, "template "+x.URITemplate)
		}
		return strings.Join(got, ", ")
	}
	alice := connect(env.token(t, "alice", map[string]any{"groups": []string{"eng"}}))
	if got, want := seen(alice), "tool note_count, prompt summary, resource note://readme, template note://n/{id}"; got != want {
		t.Errorf("alice sees %s\nwant %s", got, want)
	}
	if res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "note_count"}); err != nil || res.Content[0].(*mcp.TextContent).Text != "3 notes" {
		t.Errorf("alice note_count: %+v %v", res, err)
	}
	if res, err := alice.ReadResource(ctx, &mcp.ReadResourceParams{URI: "note://n/7"}); err != nil || res.Contents[0].Text != "seven" {
		t.Errorf("alice reads note://n/7: %+v %v", res, err)
	}
	bob := connect(env.token(t, "bob", map[string]any{"groups": []string{"support"}}))
	if got, want := seen(bob), "tool whoami"; got != want {
		t.Errorf("bob sees %s\nwant %s", got, want)
	}
	if _, err := bob.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summary"}); err == nil {
		t.Error("bob got the whole-server guest's prompt")
	}
	if _, err := bob.ReadResource(ctx, &mcp.ReadResourceParams{URI: "note://n/7"}); err == nil {
		t.Error("bob read a URI the whole-server guest's template matches")
	}
	if _, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "note_count"}); err == nil || !strings.Contains(err.Error(), `tool "note_count" is not allowed for subject "bob"`) {
		t.Errorf("bob note_count: %v; want the policy's refusal", err)
	}
}
