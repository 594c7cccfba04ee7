package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// testAS is an authorization server and MCP resource server on loopback: the RS refuses a
// request without the token the AS issued last (with a resource_metadata challenge), the AS's
// token endpoint is token (nil: 500).
type testAS struct {
	t     *testing.T
	srv   *httptest.Server
	meta  map[string]any // extra AS metadata
	token func(w http.ResponseWriter, r *http.Request)

	mu       sync.Mutex
	requests []http.Request // token requests (headers), in order
	forms    []map[string]string
}

func newTestAS(t *testing.T) *testAS {
	a := &testAS{t: t, meta: map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": a.srv.URL + "/mcp", "authorization_servers": []string{a.srv.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		m := map[string]any{"issuer": a.srv.URL, "token_endpoint": a.srv.URL + "/token"}
		for k, v := range a.meta {
			m[k] = v
		}
		json.NewEncoder(w).Encode(m)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		f := map[string]string{}
		for k := range r.PostForm {
			f[k] = r.PostForm.Get(k)
		}
		a.mu.Lock()
		a.requests = append(a.requests, http.Request{Header: r.Header.Clone()})
		a.forms = append(a.forms, f)
		a.mu.Unlock()
		if a.token == nil {
			http.Error(w, "no token endpoint", 500)
			return
		}
		a.token(w, r)
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

func (a *testAS) form(i int) map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if i >= len(a.forms) {
		a.t.Fatalf("token request %d was not made (%d made)", i, len(a.forms))
	}
	return a.forms[i]
}

func (a *testAS) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.forms)
}

func issue(w http.ResponseWriter, tok, typ string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": typ, "expires_in": 3600})
}

func tokenError400(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]string{"error": code})
}

// challenge is the RS's first answer: 401 with a resource_metadata challenge.
func (a *testAS) challenge() *http.Response {
	h := http.Header{}
	h.Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, a.srv.URL))
	return &http.Response{StatusCode: 401, Header: h, Body: io.NopCloser(strings.NewReader(""))}
}

// authorize runs h's Authorize on the RS's challenge and returns the token it then hands out.
func authorize(t *testing.T, a *testAS, c Config) (string, error) {
	t.Helper()
	c.Server = a.srv.URL + "/mcp"
	h, err := NewHandler(c)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", c.Server, nil)
	if err := h.Authorize(context.Background(), req, a.challenge()); err != nil {
		return "", err
	}
	ts, err := h.TokenSource(context.Background())
	if err != nil || ts == nil {
		t.Fatalf("TokenSource after Authorize: %v, %v", ts, err)
	}
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken, nil
}

func TestHeadlessClientSecretBasicAndPost(t *testing.T) {
	for _, tc := range []struct {
		methods []string
		want    string
	}{{nil, AuthSecretBasic}, {[]string{"client_secret_basic"}, AuthSecretBasic}, {[]string{"client_secret_post"}, AuthSecretPost}} {
		t.Run(tc.want+fmt.Sprint(tc.methods), func(t *testing.T) {
			a := newTestAS(t)
			if tc.methods != nil {
				a.meta["token_endpoint_auth_methods_supported"] = tc.methods
			}
			a.token = func(w http.ResponseWriter, r *http.Request) {
				id, secret, ok := r.BasicAuth()
				if ok { // form-urlencoded first (RFC 6749 §2.3.1)
					id, _ = url.QueryUnescape(id)
					secret, _ = url.QueryUnescape(secret)
				} else {
					id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
				}
				if id != "cid" || secret != "s3cret:/x" {
					w.WriteHeader(401)
					return
				}
				issue(w, "tok-cc", "Bearer")
			}
			tok, err := authorize(t, a, Config{Headless: &Headless{Grant: GrantClientCredentials, ClientID: "cid", ClientSecret: "s3cret:/x"}})
			if err != nil {
				t.Fatal(err)
			}
			if tok != "tok-cc" {
				t.Fatalf("token %q, want tok-cc", tok)
			}
			f := a.form(0)
			if f["grant_type"] != "client_credentials" || f["resource"] != a.srv.URL+"/mcp" {
				t.Fatalf("token request form %v: want grant_type client_credentials and resource %s/mcp", f, a.srv.URL)
			}
			_, inBody := f["client_secret"]
			if got := map[bool]string{true: AuthSecretPost, false: AuthSecretBasic}[inBody]; got != tc.want {
				t.Fatalf("client authenticated with %s, want %s", got, tc.want)
			}
		})
	}
}

func ecKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func pemOf(t *testing.T, k *ecdsa.PrivateKey) []byte {
	b, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: b})
}

// verifyAssertion is the AS's private_key_jwt check (RFC 7523 §3) against the registered key.
func verifyAssertion(registered *ecdsa.PublicKey, assertion, clientID, aud string) error {
	jws, err := jose.ParseSigned(assertion, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return err
	}
	b, err := jws.Verify(registered)
	if err != nil {
		return err
	}
	var c struct {
		Iss, Sub, Aud, Jti string
		Exp, Iat           int64
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	if c.Iss != clientID || c.Sub != clientID || c.Aud != aud || c.Jti == "" || c.Exp <= c.Iat {
		return fmt.Errorf("claims %+v", c)
	}
	return nil
}

func TestHeadlessPrivateKeyJWT(t *testing.T) {
	registered := ecKey(t)
	for _, tc := range []struct {
		name string
		key  *ecdsa.PrivateKey
		ok   bool
	}{{"registered key", registered, true}, {"another key", ecKey(t), false}} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAS(t)
			a.meta["token_endpoint_auth_methods_supported"] = []string{"private_key_jwt"}
			a.meta["token_endpoint_auth_signing_alg_values_supported"] = []string{"ES256"}
			a.token = func(w http.ResponseWriter, r *http.Request) {
				if r.PostForm.Get("client_assertion_type") != assertionType {
					tokenError400(w, "invalid_request")
					return
				}
				if err := verifyAssertion(&registered.PublicKey, r.PostForm.Get("client_assertion"), "cid", a.srv.URL); err != nil {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(401)
					json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client", "error_description": "assertion does not verify"})
					return
				}
				issue(w, "tok-jwt", "Bearer")
			}
			key, err := ParsePrivateKey(pemOf(t, tc.key))
			if err != nil {
				t.Fatal(err)
			}
			c := Config{Headless: &Headless{Grant: GrantClientCredentials, ClientID: "cid", PrivateKey: key}}
			tok, err := authorize(t, a, c)
			if tc.ok {
				if err != nil || tok != "tok-jwt" {
					t.Fatalf("got %q, %v; want tok-jwt", tok, err)
				}
				if _, has := a.form(0)["client_secret"]; has {
					t.Fatal("a client_secret was sent with private_key_jwt")
				}
				return
			}
			var te *tokenError
			if !errors.As(err, &te) || te.Code != "invalid_client" || te.Status != 401 {
				t.Fatalf("err = %v, want the token endpoint's invalid_client (401)", err)
			}
			if strings.Contains(err.Error(), "PRIVATE KEY") {
				t.Fatalf("the error quotes the key: %v", err)
			}
		})
	}
}

func TestParsePrivateKeyRefusesGarbageWithoutQuotingIt(t *testing.T) {
	_, err := ParsePrivateKey([]byte("-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWJ5dGVz\n-----END PRIVATE KEY-----\n"))
	if err == nil || strings.Contains(err.Error(), "c2VjcmV0") {
		t.Fatalf("err = %v, want a refusal that does not quote the key", err)
	}
}

func TestHeadlessJWTBearerRereadsTheFileAndDoesNotRetryARefusal(t *testing.T) {
	a := newTestAS(t)
	refuse := false
	a.token = func(w http.ResponseWriter, r *http.Request) {
		if refuse {
			tokenError400(w, "invalid_grant")
			return
		}
		issue(w, "tok-for-"+r.PostForm.Get("assertion"), "Bearer")
	}
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("jwt-one\n"), 0o600)
	read := func() (string, error) {
		b, err := os.ReadFile(file)
		return strings.TrimSpace(string(b)), err
	}
	c := Config{Server: a.srv.URL + "/mcp", Headless: &Headless{Grant: GrantJWTBearer, ClientID: "wl", Assertion: read}}
	h, err := NewHandler(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req, _ := http.NewRequest("POST", c.Server, nil)
	for i, want := range []string{"jwt-one", "jwt-two"} {
		os.WriteFile(file, []byte(want), 0o600) // rotated by the platform
		if err := h.Authorize(ctx, req, a.challenge()); err != nil {
			t.Fatal(err)
		}
		ts, _ := h.TokenSource(ctx)
		tok, _ := ts.Token()
		if tok.AccessToken != "tok-for-"+want {
			t.Fatalf("grant %d: token %q, want tok-for-%s", i, tok.AccessToken, want)
		}
		if f := a.form(i); f["grant_type"] != GrantJWTBearer || f["client_id"] != "wl" {
			t.Fatalf("grant %d: form %v", i, f)
		}
	}
	refuse = true
	if err := h.Authorize(ctx, req, a.challenge()); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("err = %v, want invalid_grant", err)
	}
	if err := h.Authorize(ctx, req, a.challenge()); err == nil {
		t.Fatal("a refused JWT-bearer grant was not reported again")
	}
	if n := a.count(); n != 3 {
		t.Fatalf("%d token requests, want 3: a refused JWT-bearer grant is not retried (SEP-1933)", n)
	}
}

func TestHeadlessEnterpriseExchangesTheIDTokenThenUsesTheJAG(t *testing.T) {
	a := newTestAS(t)
	var idp map[string]string
	idpSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		idp = map[string]string{}
		for k := range r.PostForm {
			idp[k] = r.PostForm.Get(k)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"access_token": "the-jag", "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"})
	}))
	t.Cleanup(idpSrv.Close)
	a.token = func(w http.ResponseWriter, r *http.Request) {
		id, secret, _ := r.BasicAuth()
		if id != "mcp-client" || secret != "mcp-secret" || r.PostForm.Get("assertion") != "the-jag" {
			w.WriteHeader(401)
			return
		}
		issue(w, "tok-ent", "Bearer")
	}
	tok, err := authorize(t, a, Config{Headless: &Headless{Grant: GrantEnterprise, ClientID: "mcp-client", ClientSecret: "mcp-secret",
		Assertion: func() (string, error) { return "the-id-token", nil }, IdPTokenURL: idpSrv.URL, IdPClientID: "idp-client"}})
	if err != nil || tok != "tok-ent" {
		t.Fatalf("got %q, %v; want tok-ent", tok, err)
	}
	want := map[string]string{"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": "the-id-token",
		"subject_token_type": "urn:ietf:params:oauth:token-type:id_token", "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
		"audience": a.srv.URL, "resource": a.srv.URL + "/mcp"}
	for k, v := range want {
		if idp[k] != v {
			t.Errorf("token exchange %s = %q, want %q", k, idp[k], v)
		}
	}
	if f := a.form(0); f["grant_type"] != GrantJWTBearer {
		t.Fatalf("grant at the AS: %v", f)
	}
}

// dpopRS is a resource server's DPoP check (RFC 9449 §4.3, §7.1): the proof's signature with
// its embedded key, typ, htm, htu, ath of the presented token, the nonce it handed out, and a
// jti never seen before (a replayed proof is refused).
type dpopRS struct {
	mu    sync.Mutex
	seen  map[string]bool
	nonce string
}

func (rs *dpopRS) check(r *http.Request, token string) error {
	auth := r.Header.Get("Authorization")
	if auth != "DPoP "+token {
		return fmt.Errorf("authorization %q, want the DPoP scheme", auth)
	}
	jws, err := jose.ParseSigned(r.Header.Get("DPoP"), []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return err
	}
	hdr := jws.Signatures[0].Protected
	if hdr.ExtraHeaders["typ"] != "dpop+jwt" || hdr.JSONWebKey == nil || !hdr.JSONWebKey.IsPublic() {
		return errors.New("bad proof header")
	}
	b, err := jws.Verify(hdr.JSONWebKey)
	if err != nil {
		return err
	}
	var c struct{ Jti, Htm, Htu, Ath, Nonce string }
	json.Unmarshal(b, &c)
	sum := sha256.Sum256([]byte(token))
	if c.Htm != r.Method || c.Htu != "http://"+r.Host+r.URL.Path || c.Ath != base64.RawURLEncoding.EncodeToString(sum[:]) {
		return fmt.Errorf("proof claims %+v do not match the request", c)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if c.Nonce != rs.nonce {
		return errNonce
	}
	if rs.seen[c.Jti] {
		return errors.New("replayed proof")
	}
	rs.seen[c.Jti] = true
	return nil
}

var errNonce = errors.New("use_dpop_nonce")

func TestDPoPProofPerRequestNoncesAndReplayRefused(t *testing.T) {
	a := newTestAS(t)
	const asNonce = "as-nonce-1"
	a.token = func(w http.ResponseWriter, r *http.Request) {
		p, err := jose.ParseSigned(r.Header.Get("DPoP"), []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			tokenError400(w, "invalid_dpop_proof")
			return
		}
		var c struct{ Nonce, Ath string }
		json.Unmarshal(p.UnsafePayloadWithoutVerification(), &c)
		if c.Nonce != asNonce {
			w.Header().Set("DPoP-Nonce", asNonce)
			tokenError400(w, "use_dpop_nonce")
			return
		}
		if c.Ath != "" {
			tokenError400(w, "invalid_dpop_proof")
			return
		}
		issue(w, "tok-dpop", "DPoP")
	}
	rs := &dpopRS{seen: map[string]bool{}, nonce: "rs-nonce-1"}
	var refused []string
	var mu sync.Mutex
	rsSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := rs.check(r, "tok-dpop"); err != nil {
			mu.Lock()
			refused = append(refused, err.Error())
			mu.Unlock()
			if errors.Is(err, errNonce) {
				w.Header().Set("DPoP-Nonce", rs.nonce)
				w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
			}
			w.WriteHeader(401)
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(rsSrv.Close)

	c := Config{Server: a.srv.URL + "/mcp", DPoP: true, Headless: &Headless{Grant: GrantClientCredentials, ClientID: "cid", ClientSecret: "s"}}
	h, err := NewHandler(c)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", c.Server, nil)
	if err := h.Authorize(context.Background(), req, a.challenge()); err != nil {
		t.Fatal(err)
	}
	if n := a.count(); n != 2 {
		t.Fatalf("%d token requests, want 2 (the AS's nonce challenge, then the retry with it)", n)
	}
	wrap := WrapTransport(h)
	if wrap == nil {
		t.Fatal("no DPoP transport for a DPoP handler")
	}
	client := &http.Client{Transport: wrap(nil)}
	var lastProof string
	for i := range 3 {
		r, _ := http.NewRequest("POST", rsSrv.URL+"/mcp?x=1", strings.NewReader(`{"n":1}`))
		r.Header.Set("Authorization", "Bearer tok-dpop") // as the SDK's transport sets it
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %s (refusals: %v)", i, resp.Status, refused)
		}
		lastProof = resp.Request.Header.Get("DPoP")
	}
	mu.Lock()
	if len(refused) != 1 || refused[0] != "use_dpop_nonce" {
		t.Fatalf("refusals %v, want one: the RS's first nonce challenge", refused)
	}
	mu.Unlock()

	// The RS refuses the last proof sent again.
	r, _ := http.NewRequest("POST", rsSrv.URL+"/mcp", nil)
	r.Header.Set("Authorization", "DPoP tok-dpop")
	r.Header.Set("DPoP", lastProof)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || refused[len(refused)-1] != "replayed proof" {
		t.Fatalf("a replayed proof got %s (refusals %v), want 401 replayed proof", resp.Status, refused)
	}
}

func TestDPoPRefusesABearerToken(t *testing.T) {
	a := newTestAS(t)
	a.token = func(w http.ResponseWriter, r *http.Request) { issue(w, "plain", "Bearer") }
	_, err := authorize(t, a, Config{DPoP: true, Headless: &Headless{Grant: GrantClientCredentials, ClientID: "c", ClientSecret: "s"}})
	if err == nil || !strings.Contains(err.Error(), "not a DPoP-bound one") {
		t.Fatalf("err = %v, want a refusal of the unbound token", err)
	}
}
