package mcpserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// BenchmarkAuthenticate is the cost of checking one request's bearer token: the static token
// (a constant-time compare) against a JWT access token (RS256, ES256) with its JWKS cached,
// from the validated-token cache and checked afresh (signature and claims).
// Read as ratios (BENCHMARKS.md "This wave (2026-12-07)"; the runs: bench/HISTORY.md).
func BenchmarkAuthenticate(b *testing.B) {
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	ek, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &rk.PublicKey, KeyID: "r", Algorithm: "RS256", Use: "sig"},
		{Key: &ek.PublicKey, KeyID: "e", Algorithm: "ES256", Use: "sig"}}}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = json.NewEncoder(w).Encode(set) }))
	defer jwks.Close()
	const resource = "http://mcp.test/mcp"
	rs, err := newResourceServer(&ResourceServer{Resource: resource, StaticToken: "static-secret-token-0123456789",
		Issuers: []Issuer{{Issuer: jwks.URL, JWKSURI: jwks.URL, Algorithms: []string{"RS256", "ES256"}}}})
	if err != nil {
		b.Fatal(err)
	}
	mint := func(key any, alg jose.SignatureAlgorithm, kid string) string {
		sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", kid))
		s, _ := jwt.Signed(sig).Claims(map[string]any{"iss": jwks.URL, "sub": "alice", "aud": resource,
			"exp": time.Now().Add(time.Hour).Unix(), "groups": []string{"eng"}, "scope": "a b"}).Serialize()
		return s
	}
	for _, tc := range []struct {
		name, token string
		uncached    bool
	}{
		{"static", "static-secret-token-0123456789", false},
		{"RS256", mint(rk, jose.RS256, "r"), false},
		{"ES256", mint(ek, jose.ES256, "e"), false},
		{"RS256-uncached", mint(rk, jose.RS256, "r"), true},
		{"ES256-uncached", mint(ek, jose.ES256, "e"), true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			req.Header.Set("Authorization", "Bearer "+tc.token)
			if _, _, aerr := rs.authenticate(req); aerr != nil {
				b.Fatal(aerr)
			}
			b.ReportAllocs()
			for b.Loop() {
				if tc.uncached {
					rs.cache.m = nil
				}
				if _, _, aerr := rs.authenticate(req); aerr != nil {
					b.Fatal(aerr)
				}
			}
		})
	}
}
