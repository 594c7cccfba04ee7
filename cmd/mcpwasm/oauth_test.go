package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/oauth/oauthtest"
)

// The test binary doubles as the user's browser for `mcpwasm login` ($BROWSER): with
// MCPWASM_TEST_BROWSER set it follows the authorization URL (and the redirect to mcpwasm's
// loopback listener) and exits, before any test runs.
func init() {
	if os.Getenv("MCPWASM_TEST_BROWSER") == "" || len(os.Args) != 2 {
		return
	}
	resp, err := http.Get(os.Args[1])
	if err != nil {
		os.Exit(1)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		os.Exit(1)
	}
	os.Exit(0)
}

// upstreamGuestWasm builds guests/upstream (shout_echo calls the upstream "docs"'s echo).
func upstreamGuestWasm(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "upstream.wasm")
	cmd := exec.CommandContext(testContext(t), "go", "build", "-buildmode=c-shared", "-o", out, "./guests/upstream")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the upstream guest: %v\n%s", err, b)
	}
	return out
}

// mcpwasm runs the binary and returns stdout, stderr and the exit code.
func mcpwasm(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.CommandContext(testContext(t), binPath, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mcpwasm %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

// An upstream behind OAuth: `mcpwasm login` (authorization code, PKCE, loopback redirect)
// stores the token; `tools --url`, a guest's mcp grant and the gateway (expose) then use it,
// refreshed before every use (the server's tokens expire at once); `logout` forgets it, and
// the guest then gets an error naming `mcpwasm login`. No token appears in any output: the
// client's, the server's debug log, `inspect`, or what the guest returns.
func TestOAuthUpstream(t *testing.T) {
	srv := oauthtest.NewServer(t)
	srv.SetExpiresIn(1)
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	t.Setenv("BROWSER", os.Args[0])
	t.Setenv("MCPWASM_TEST_BROWSER", "1")
	limit := waitLimit(t).String()
	var outputs []string
	record := func(s ...string) { outputs = append(outputs, s...) }

	out, errOut, code := mcpwasm(t, "login", "--timeout", limit, srv.MCPURL)
	record(out, errOut)
	tokens := filepath.Join(cfgHome, "mcpwasm", "tokens.json")
	if want := "logged in to " + srv.MCPURL + "; token stored in " + tokens + "\n"; code != 0 || out != want {
		t.Fatalf("login: exit %d, stdout %q, want %q; stderr:\n%s", code, out, want, errOut)
	}
	if fi, err := os.Stat(tokens); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v; want mode 0600", fi, err)
	}

	out, errOut, code = mcpwasm(t, "tools", "--connect-timeout", limit, "--url", srv.MCPURL)
	record(out, errOut)
	if code != 0 || !strings.HasPrefix(out, "echo(text)") {
		t.Errorf("tools --url with the stored token: exit %d, %q\n%s", code, out, errOut)
	}

	guest := upstreamGuestWasm(t)
	cfg := filepath.Join(t.TempDir(), "mcpwasm.json")
	b, _ := json.Marshal(map[string]any{
		"guests":    []any{map[string]any{"path": guest, "grants": map[string]any{"mcp": []string{"docs"}}}},
		"upstreams": map[string]any{"docs": map[string]any{"url": srv.MCPURL, "expose": true}},
	})
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	serve := []string{"--", binPath, "serve", "--cache-dir", cacheDir, "--log-level", "debug", "--config", cfg}
	call := func(tool, args string) (string, string, int) {
		a := append([]string{"call", "--json", "--server-logs", "--env", "XDG_CONFIG_HOME", "--connect-timeout", limit, "--timeout", limit, tool, args}, serve...)
		out, errOut, code := mcpwasm(t, a...)
		record(out, errOut)
		return out, errOut, code
	}
	text := func(raw string) string {
		var r struct {
			Content []struct{ Text string }
		}
		json.Unmarshal([]byte(raw), &r)
		if len(r.Content) == 0 {
			return ""
		}
		return r.Content[0].Text
	}

	_, refreshesBefore := srv.Counts()
	if out, errOut, code := call("shout_echo", `{"text":"hello"}`); code != 0 || text(out) != "ECHO: HELLO" {
		t.Errorf("guest through its mcp grant: exit %d, %s\n%s", code, out, errOut)
	}
	if out, errOut, code := call("docs__echo", `{"text":"gateway"}`); code != 0 || text(out) != "echo: gateway" {
		t.Errorf("gateway: exit %d, %s\n%s", code, out, errOut)
	}
	logins, refreshes := srv.Counts()
	if logins != 1 || refreshes < refreshesBefore+2 {
		t.Errorf("logins %d (want 1), refreshes %d (want ≥ %d: each serve refreshed the expired token)", logins, refreshes, refreshesBefore+2)
	}

	out, errOut, code = mcpwasm(t, "inspect", "--config", cfg, guest)
	record(out, errOut)
	if code != 0 {
		t.Errorf("inspect: exit %d\n%s", code, errOut)
	}

	out, _, code = mcpwasm(t, "logout", srv.MCPURL)
	if want := "logged out of " + srv.MCPURL + "\n"; code != 0 || out != want {
		t.Errorf("logout: exit %d, %q, want %q", code, out, want)
	}
	out, errOut, code = call("shout_echo", `{"text":"hello"}`)
	if code != ExitToolError || !strings.Contains(text(out), "run `mcpwasm login "+srv.MCPURL+"`") {
		t.Errorf("guest after logout: exit %d, %q; want a tool error naming mcpwasm login\n%s", code, text(out), errOut)
	}

	all := strings.Join(outputs, "\n")
	issued := srv.Issued()
	if len(issued) < 4 {
		t.Fatalf("only %d tokens issued", len(issued))
	}
	for _, tok := range issued {
		if strings.Contains(all, tok) {
			t.Errorf("a token appears in the output of mcpwasm (client, server log, inspect or guest result)")
			break
		}
	}
}
