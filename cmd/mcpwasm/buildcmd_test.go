package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

// npmServersDir is where .ci/run installs testdata/npm-servers' pinned packages.
var npmServersDir = filepath.Join("..", "..", "testdata", "npm-servers", "node_modules", "@modelcontextprotocol")

// buildPrereqs skips without node, the example's toolchain or the pinned npm servers.
func buildPrereqs(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Skip(t, "node is not installed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(exampleModules, "esbuild")); err != nil {
		testenv.Skip(t, "guests/typescript's npm packages are not installed (run: npm ci --prefix guests/typescript): %v", err)
	}
	if _, err := os.Stat(filepath.Join(npmServersDir, "server-brave-search", "package.json")); err != nil {
		testenv.Skip(t, "testdata/npm-servers is not installed (run: npm ci --prefix testdata/npm-servers): %v", err)
	}
}

// mcpwasm build DIR builds an installed npm server from its bin script, embeds its own files
// and prints what it asks for and a config entry granting the host its code names.
func TestBuildNpmPackageDir(t *testing.T) {
	buildPrereqs(t)
	out := filepath.Join(t.TempDir(), "brave.wasm")
	stdout, stderr, code := runCLI("build", "--toolchain", filepath.Dir(exampleModules), "-o", out, filepath.Join(npmServersDir, "server-brave-search"))
	if code != ExitOK {
		t.Fatalf("build: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`requests {"net":["*:*"],"clock":true,"env":["BRAVE_API_KEY"]}`,
		"embedded read-only: 3 of the package's own files",
		`"api.search.brave.com"`,
		`"BRAVE_API_KEY"`,
		`"path": "` + out + `"`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil || len(b) < 8 || string(b[:4]) != "\x00asm" {
		t.Fatalf("%s: %d bytes, %v", out, len(b), err)
	}
	// The package's own package.json is in the module (read-only, no grant needed).
	if !strings.Contains(string(b), `/.mcpwasm/pkg/package.json`) {
		t.Error("the package's package.json is not embedded")
	}
}

// A directory that is neither a package with a bin script nor a project is refused, naming
// both; a file that is not a server script is refused.
func TestBuildRefusesWhatItCannotBuild(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"lib"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Skip(t, "node is not installed: %v", err)
	}
	_, stderr, code := runCLI("build", dir)
	if code != ExitError || !strings.Contains(stderr, `has neither a "bin" entry (an npm server) nor a build script running mcpwasm/build.mjs`) {
		t.Errorf("build DIR without bin: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runCLI("build", filepath.Join(dir, "package.json"))
	if code != ExitError || !strings.Contains(stderr, "want a .js or .ts server file, a directory or npm:NAME") {
		t.Errorf("build package.json: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runCLI("build", "npm:Not A Name")
	if code != ExitError || !strings.Contains(stderr, "want npm:NAME or npm:NAME@VERSION") {
		t.Errorf("build npm:Not A Name: exit %d\n%s", code, stderr)
	}
}
