package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHTTPAuth: the http_auth section decodes as written; mistakes are named by path.
func TestHTTPAuth(t *testing.T) {
	c, err := Parse([]byte(`{"guests":[{"name":"wiki","path":"wiki.wasm"}],
		"http_auth":{"resource":"https://mcp.example.com/mcp",
		"issuers":[{"issuer":"https://idp.example.com","jwks_uri":"https://idp.example.com/jwks","algorithms":["ES256"],"groups_claim":"roles"}],
		"max_sessions_per_identity":20,"static_token":true,
		"policy":[{"name":"eng","groups":["eng"],"guests":["wiki"],"tools":["admin_*"]},{"name":"w","groups":["support"],"scopes":["mcp:write"],"tools":["note"]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &HTTPAuth{Resource: "https://mcp.example.com/mcp",
		Issuers:     []AuthIssuer{{Issuer: "https://idp.example.com", JWKSURI: "https://idp.example.com/jwks", Algorithms: []string{"ES256"}, GroupsClaim: "roles"}},
		StaticToken: true, MaxSessionsPerIdentity: 20,
		Policy: []PolicyRule{{Name: "eng", Groups: []string{"eng"}, Guests: []string{"wiki"}, Tools: []string{"admin_*"}},
			{Name: "w", Groups: []string{"support"}, Scopes: []string{"mcp:write"}, Tools: []string{"note"}}}}
	if diff := cmp.Diff(want, c.HTTPAuth); diff != "" {
		t.Errorf("http_auth (-want +got):\n%s", diff)
	}
	if c, err := Parse([]byte(`{"http_auth":{"resource":"https://h/mcp","issuers":[{"issuer":"https://i","introspection_endpoint":"https://i/introspect","client_id":"rs","client_secret_env":"RS_SECRET"}]}}`)); err != nil ||
		!cmp.Equal(c.HTTPAuth.Issuers[0], AuthIssuer{Issuer: "https://i", IntrospectionEndpoint: "https://i/introspect", ClientID: "rs", ClientSecretEnv: "RS_SECRET"}) {
		t.Errorf("introspecting issuer: %+v, %v", c, err)
	}
	iss := `"issuers":[{"issuer":"https://i","jwks_uri":"https://i/jwks"}]`
	for cfg, want := range map[string]string{
		`{"http_auth":{"resource":"https://h/mcp"}}`:     `http_auth`,
		`{"http_auth":{"resource":"h/mcp",` + iss + `}}`: `http_auth.resource`,
		`{"http_auth":{"resource":"https://h/mcp","issuers":[{"issuer":"https://i","jwks_uri":"https://i/j","algorithms":["HS256"]}]}}`: `http_auth.issuers[0].algorithms[0]`,
		`{"http_auth":{"resource":"https://h/mcp",` + iss + `,"audience":"x"}}`:                                                         `unknown key`,
		`{"guests":[{"name":"a","path":"a.wasm"}],"http_auth":{"resource":"https://h/mcp",` + iss + `,"policy":[{"guests":["b"]}]}}`:    `http_auth.policy[0].guests[0]: no guest is named "b" in this file`,
		`{"http_auth":{"resource":"https://h/mcp","issuers":[{"issuer":"https://i"}]}}`:                                                 `http_auth.issuers[0]`,
		`{"http_auth":{"resource":"https://h/mcp",` + iss + `,"policy":[{"tools":["a["]}]}}`:                                            `http_auth.policy[0].tools[0]: pattern "a["`,
	} {
		_, err := Parse([]byte(cfg))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", cfg, err, want)
		}
	}
}
