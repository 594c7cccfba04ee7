package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A client without the token of a token-protected server is told that the server wants a
// bearer token and how to pass it (it reported the OAuth flow's "failed to register client
// … 401"); with a wrong token, that the token was refused; with the right one it works.
func TestClientBearerTokenHint(t *testing.T) {
	t.Setenv("MCPWASM_HTTP_TOKEN", "s3cret")
	base, _ := startHTTP(t, fixturePath)
	os.Unsetenv("MCPWASM_HTTP_TOKEN")
	home := t.TempDir() // the OAuth token store lives under it
	for _, tt := range []struct {
		header []string
		ok     bool
		want   string
	}{
		{nil, false, base + "/mcp wants a bearer token (401, WWW-Authenticate: Bearer realm=\"mcpwasm\") and offers no OAuth to get one: pass it with --header 'Authorization: Bearer TOKEN'"},
		{[]string{"--header", "Authorization: Bearer wrong"}, false, base + "/mcp refused the bearer token given with --header (401"},
		{[]string{"--header", "Authorization: Bearer s3cret"}, true, ""},
	} {
		args := append([]string{"tools", "--url", base + "/mcp"}, tt.header...)
		cmd := exec.CommandContext(testContext(t), binPath, args...)
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_CACHE_HOME="+home, "BROWSER=false")
		out, err := cmd.CombinedOutput()
		if (err == nil) != tt.ok || !strings.Contains(string(out), tt.want) {
			t.Errorf("tools %v: %v\n%s\nwant it to contain %q", tt.header, err, out, tt.want)
		}
	}
}
