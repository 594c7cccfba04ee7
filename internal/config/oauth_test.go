package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUpstreamOAuth(t *testing.T) {
	c, err := Parse([]byte(`{"upstreams":{"crm":{"url":"https://crm.example.com/mcp",
		"oauth":{"client_id":"app","client_secret_env":"CRM_SECRET","client_credentials":true,
		"client_metadata_url":"https://app.example.com/client.json"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &UpstreamOAuth{ClientID: "app", ClientSecretEnv: "CRM_SECRET", ClientCredentials: true,
		ClientMetadataURL: "https://app.example.com/client.json"}
	if diff := cmp.Diff(want, c.Upstreams["crm"].OAuth); diff != "" {
		t.Errorf("oauth (-want +got):\n%s", diff)
	}
	for cfg, want := range map[string]string{
		`{"upstreams":{"d":{"command":["x"],"oauth":{}}}}`:                                         `line 1 column 44: upstreams.d.oauth: applies to a "url", not a spawned "command"`,
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"client_credentials":true}}}}`:           `line 1 column 49: upstreams.d.oauth: "client_credentials" needs "client_id" and "client_secret_env" or "private_key_file"/"private_key_env"`,
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"client_id":"a","client_secret":"x"}}}}`: `unknown key`,
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"client_secret_env":"A B"}}}}`:           `client_secret_env`,
	} {
		_, err := Parse([]byte(cfg))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", cfg, err, want)
		}
	}
}

func TestUpstreamOAuthHeadlessFlows(t *testing.T) {
	c, err := Parse([]byte(`{"upstreams":{"a":{"url":"https://a.example.com/mcp","oauth":{"client_id":"app","client_credentials":true,
		"private_key_file":"/keys/app.pem","signing_alg":"ES256","dpop":true}},
		"w":{"url":"https://w.example.com/mcp","oauth":{"workload_token_file":"/var/run/token"}},
		"e":{"url":"https://e.example.com/mcp","oauth":{"client_id":"app","client_secret_env":"E","id_token_file":"/t/id",
		"idp_token_url":"https://idp.example.com/token","idp_client_id":"idp-app","idp_client_secret_env":"IDP"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*UpstreamOAuth{
		"a": {ClientID: "app", ClientCredentials: true, PrivateKeyFile: "/keys/app.pem", SigningAlg: "ES256", DPoP: true},
		"w": {WorkloadTokenFile: "/var/run/token"},
		"e": {ClientID: "app", ClientSecretEnv: "E", IDTokenFile: "/t/id", IdPTokenURL: "https://idp.example.com/token",
			IdPClientID: "idp-app", IdPClientSecretEnv: "IDP"},
	}
	for name, w := range want {
		if diff := cmp.Diff(w, c.Upstreams[name].OAuth); diff != "" {
			t.Errorf("%s oauth (-want +got):\n%s", name, diff)
		}
	}
	for cfg, want := range map[string]string{
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"client_id":"a","client_credentials":true,"private_key_file":"k","private_key_env":"K"}}}}`: `give "private_key_file" or "private_key_env", not both`,
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"client_id":"a","id_token_file":"t"}}}}`:                                                    `"id_token_file" (enterprise-managed authorization) needs "idp_token_url", "idp_client_id" and "client_id"`,
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"client_id":"a","client_credentials":true}}}}`:                                              `"client_credentials" needs "client_id" and "client_secret_env" or "private_key_file"/"private_key_env"`,
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"client_secret_env":"S","client_secret_file":"f"}}}}`:                                       `give "client_secret_env" or "client_secret_file", not both`,
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"signing_alg":"HS256"}}}}`:                                                                  `signing_alg`,
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"private_key_env":"not a name"}}}}`:                                                         `private_key_env`,
	} {
		_, err := Parse([]byte(cfg))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", cfg, err, want)
		}
	}
}
