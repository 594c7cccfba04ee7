package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

// A server written as the TypeScript SDK v2 docs show (@modelcontextprotocol/server 2.4.0,
// z.object schemas, …/server/stdio; testdata/npm-servers/v2server.ts) builds with mcpwasm build, which says
// it takes the whole-server path; inspect names the kind; mcpwasm serve serves its tool as
// add (its own name, as any guest's tools) and it answers.
func TestJSServerV2Built(t *testing.T) {
	buildPrereqs(t)
	dir := filepath.Join("..", "..", "testdata", "npm-servers")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server", "package.json")); err != nil {
		testenv.Skip(t, "testdata/npm-servers is not installed (run: npm ci --prefix testdata/npm-servers): %v", err)
	}
	out := filepath.Join(t.TempDir(), "v2.wasm")
	stdout, stderr, code := runCLI("build", "--toolchain", filepath.Dir(exampleModules), "-o", out, filepath.Join(dir, "v2server.ts"))
	if code != ExitOK {
		t.Fatalf("build: exit %d\n%s%s", code, stdout, stderr)
	}
	if all := stdout + stderr; !strings.Contains(all, "whole-server path: it uses the MCP TypeScript SDK v2") || !strings.Contains(all, "kind javascript-server") {
		t.Errorf("build does not say it took the whole-server path:\n%s", all)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	insp, errOut, code := runCLI("inspect", "--cache-dir", cacheDir, out)
	if code != 0 || !strings.Contains(insp, "kind: javascript-server (a whole MCP server: a JavaScript bundle with its own MCP SDK, run as a process") || !strings.Contains(insp, "\n  add — Addition Tool\n") {
		t.Errorf("inspect: exit %d\n%s%s", code, insp, errOut)
	}
	base, _ := startHTTP(t, "--config", wasiServerConfig(t, wasiGuest{name: "v2", wasm: wasm}))
	cs := connectSDK(t, base+"/mcp")
	if names := toolNames(t, cs); strings.Join(names, ",") != "add" {
		t.Errorf("tools %v, want [add]", names)
	}
	if text, isErr := callText(t, cs, "add", map[string]any{"a": 2, "b": 40}); text != `{"result":42}` || isErr {
		t.Errorf("add: %q (error %v), want {\"result\":42}", text, isErr)
	}
}
