package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// npmResult is what testdata/interop/npm-client.mjs prints.
type npmResult struct {
	Tools  []string
	Result struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
}

// buildNpmServer runs `mcpwasm build DIR` for an installed package of testdata/npm-servers
// and returns the module's path.
func buildNpmServer(t *testing.T, pkg string) string {
	t.Helper()
	buildPrereqs(t)
	out := filepath.Join(t.TempDir(), pkg+".wasm")
	stdout, stderr, code := runCLI("build", "--toolchain", filepath.Dir(exampleModules), "-o", out, filepath.Join(npmServersDir, pkg))
	if code != ExitOK {
		t.Fatalf("build %s: exit %d\n%s%s", pkg, code, stdout, stderr)
	}
	return out
}

// The TypeScript SDK's client drives the two published servers, built with mcpwasm build and
// served with grants, over stdio and Streamable HTTP: brave-search lists its tools and its
// search is refused for want of a net grant; server-filesystem lists the granted directory
// given as an argument.
func TestNpmServersWithSDKClient(t *testing.T) {
	brave := buildNpmServer(t, "server-brave-search")
	files := buildNpmServer(t, "server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("n"), 0o644); err != nil {
		t.Fatal(err)
	}
	braveConf := writeConfig(t, `{"guests": [{"path": "`+brave+`", "grants": {"env": ["BRAVE_API_KEY=test-key-0"]}}]}`)
	filesConf := writeConfig(t, `{"guests": [{"path": "`+files+`", "args": ["/data"], "grants": {"fs": [{"host": "`+dir+`", "guest": "/data", "rw": true}]}}]}`)
	braveURL, _ := startHTTP(t, "--config", braveConf)
	filesURL, _ := startHTTP(t, "--config", filesConf)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			target := func(conf, url string) []string {
				if transport == "http" {
					return []string{"http", url + "/mcp"}
				}
				return []string{"stdio", binPath, "serve", "--cache-dir", cacheDir, "--config", conf}
			}
			var b npmResult
			runInteropClient(t, &b, append([]string{"testdata/interop/npm-client.mjs", "brave_web_search", `{"query":"wasm"}`}, target(braveConf, braveURL)...)...)
			if strings.Join(b.Tools, ",") != "brave_local_search,brave_web_search" || !b.Result.IsError || len(b.Result.Content) == 0 ||
				!strings.Contains(b.Result.Content[0].Text, "fetch https://api.search.brave.com/") || !strings.Contains(b.Result.Content[0].Text, "net: no hosts are granted") {
				t.Errorf("brave: %+v", b)
			}
			var f npmResult
			runInteropClient(t, &f, append([]string{"testdata/interop/npm-client.mjs", "list_directory", `{"path":"/data"}`}, target(filesConf, filesURL)...)...)
			if len(f.Tools) < 10 || f.Result.IsError || len(f.Result.Content) == 0 || f.Result.Content[0].Text != "[FILE] notes.txt" {
				t.Errorf("filesystem: %+v", f)
			}
		})
	}
}

// The MCP Inspector CLI lists the tools of both published servers built with mcpwasm build and
// calls one of server-filesystem's over stdio.
func TestNpmServersWithInspector(t *testing.T) {
	brave := buildNpmServer(t, "server-brave-search")
	files := buildNpmServer(t, "server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("from the inspector"), 0o644); err != nil {
		t.Fatal(err)
	}
	braveConf := writeConfig(t, `{"guests": [{"path": "`+brave+`", "grants": {"env": ["BRAVE_API_KEY=test-key-0"]}}]}`)
	filesConf := writeConfig(t, `{"guests": [{"path": "`+files+`", "args": ["/data"], "grants": {"fs": [{"host": "`+dir+`", "guest": "/data"}]}}]}`)
	var list struct{ Tools []struct{ Name string } }
	runInspector(t, &list, "--config", braveConf, "--method", "tools/list")
	if len(list.Tools) != 2 || list.Tools[0].Name != "brave_local_search" || list.Tools[1].Name != "brave_web_search" {
		t.Errorf("brave tools: %+v", list.Tools)
	}
	var res struct {
		Content []struct{ Text string }
		IsError bool
	}
	runInspector(t, &res, "--config", filesConf, "--method", "tools/call", "--tool-name", "read_text_file", "--tool-arg", "path=/data/notes.txt")
	if res.IsError || len(res.Content) != 1 || res.Content[0].Text != "from the inspector" {
		t.Errorf("read_text_file: %+v", res)
	}
}
