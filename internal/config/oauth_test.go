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
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"client_credentials":true}}}}`:           `line 1 column 49: upstreams.d.oauth: "client_credentials" needs "client_id" and "client_secret_env"`,
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"client_id":"a","client_secret":"x"}}}}`: `unknown key`,
		`{"upstreams":{"d":{"url":"http://h/mcp","oauth":{"client_secret_env":"A B"}}}}`:           `client_secret_env`,
	} {
		_, err := Parse([]byte(cfg))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", cfg, err, want)
		}
	}
}
