package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/config"
)

func TestImportHyperMCP(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "config.json")
	os.WriteFile(src, []byte(`{"plugins":{"fetch":{"url":"oci://ghcr.io/hyper-mcp-rs/fetch-plugin:latest",
		"runtime_config":{"allowed_hosts":["*"],"env_vars":{"UA":"x"}}}}}`), 0o600)
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"import", "hyper-mcp", src}, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	c, err := config.Parse([]byte(stdout.String()))
	if err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, stdout.String())
	}
	if g := c.Guests[0]; g.Name != "fetch" || g.Config["UA"] != "x" || len(g.Grants.Net) != 1 || g.Grants.Net[0] != "*" {
		t.Errorf("guest %+v", g)
	}
	if !strings.HasPrefix(stderr.String(), "guest fetch (oci://ghcr.io/hyper-mcp-rs/fetch-plugin:latest)\n  grants net \"*\"\n") {
		t.Errorf("stderr:\n%s", stderr.String())
	}

	out := filepath.Join(dir, "mcpwasm.json")
	stdout.Reset()
	if code := run(context.Background(), []string{"import", "-o", out, "hyper-mcp", src}, strings.NewReader(""), &stdout, &stderr); code != ExitOK || stdout.Len() != 0 {
		t.Fatalf("-o: exit %d, stdout %q", code, stdout.String())
	}
	if _, err := config.Load(out); err != nil {
		t.Errorf("written config: %v", err)
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"import", "-o", out, "hyper-mcp", src}, strings.NewReader(""), &stdout, &stderr); code != ExitError ||
		!strings.Contains(stderr.String(), "mcpwasm.json exists; not overwriting it") {
		t.Errorf("existing -o: exit %d: %s", code, stderr.String())
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"import", "claude", src}, strings.NewReader(""), &stdout, &stderr); code != ExitUsage ||
		!strings.Contains(stderr.String(), "want: mcpwasm import hyper-mcp CONFIG.json (or .yaml)") {
		t.Errorf("unknown source: exit %d: %s", code, stderr.String())
	}
	// A misspelt runtime_config key is a note on stderr, not an error.
	typo := filepath.Join(dir, "typo.json")
	os.WriteFile(typo, []byte(`{"plugins":[{"name":"v1","url":"file:///p/v1.wasm","runtime_config":{"allowed_host":["example.com"]}}]}`), 0o600)
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"import", "hyper-mcp", typo}, strings.NewReader(""), &stdout, &stderr); code != ExitOK ||
		stderr.String() != "guest v1 (/p/v1.wasm)\n  grants clock, random (as hyper-mcp gives every plugin; without them the plugin reads a fixed clock and a deterministic random source)\n"+
			"  note: plugins.v1.runtime_config: unknown key \"allowed_host\" ignored (did you mean \"allowed_hosts\"?)\n"+
			"  note: one instance shared by every client (isolation shared, limits.instances 1), as hyper-mcp runs each plugin, so what a plugin keeps between calls (a counter, tools added by add_tool) is one state; for a plugin that keeps nothing, raise limits.instances and drop isolation to run calls in parallel and per session\n"+
			"the grants above are written into the converted config: review them before serving it (mcpwasm grants a guest nothing the config does not)\n" {
		t.Errorf("typo: exit %d, stderr:\n%s", code, stderr.String())
	}
}
