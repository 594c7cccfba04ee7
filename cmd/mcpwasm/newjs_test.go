package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

// exampleModules is the TypeScript example's node_modules (npm ci --prefix guests/typescript,
// done by .ci/run): the packages a new ts/js project's lockfile pins, at the same versions.
var exampleModules = filepath.Join("..", "..", "guests", "typescript", "node_modules")

// TestNewScript creates a ts and a js project with `mcpwasm new` and builds it as its README
// says (npm run build), with the example's installed packages standing in for npm ci; the
// result is the engine with the script in its custom section "mcpwasm.js".
func TestNewScript(t *testing.T) {
	mods, err := filepath.Abs(exampleModules)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(mods, "esbuild")); err != nil {
		testenv.Skip(t, "guests/typescript's npm packages are not installed (run: npm ci --prefix guests/typescript): %v", err)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		testenv.Skip(t, "npm is not installed: %v", err)
	}
	engine, err := os.ReadFile(filepath.Join(mods, "quickjs-wasi", "quickjs.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"ts", "js"} {
		t.Run(lang, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "greet")
			out, errOut, code := runCLI("new", lang, "greet", dir)
			if code != ExitOK || !strings.HasPrefix(out, "created "+dir+" ("+lang+` guest "greet")`) {
				t.Fatalf("mcpwasm new %s: exit %d\n%s%s", lang, code, out, errOut)
			}
			for _, f := range []string{"package.json", "package-lock.json", "server." + lang, "mcpwasm/shim.js", "mcpwasm/sdk.js", "mcpwasm/build.mjs", "README.md", ".gitignore"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("missing %s: %v", f, err)
				}
			}
			if err := os.Symlink(mods, filepath.Join(dir, "node_modules")); err != nil {
				t.Fatal(err)
			}
			build := exec.CommandContext(testContext(t), npm, "run", "--silent", "build")
			build.Dir = dir
			b, err := build.CombinedOutput()
			if err != nil {
				t.Fatalf("npm run build: %v\n%s", err, b)
			}
			wasm, err := os.ReadFile(filepath.Join(dir, "greet.wasm"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(wasm, engine) || !bytes.Contains(wasm[len(engine):], []byte("\x0amcpwasm.js")) {
				t.Fatalf("greet.wasm (%d bytes) is not the engine (%d bytes) with a mcpwasm.js section", len(wasm), len(engine))
			}
			// Served as the README says: tools/list and tools/call over stdio.
			serve := []string{"--", binPath, "serve", "--cache-dir", cacheDir, "greet.wasm"}
			for _, c := range []struct {
				args []string
				want string
			}{
				{append([]string{"tools"}, serve...), "greet"},
				{append([]string{"call", "greet", `{"name":"Ada"}`}, serve...), "hello, Ada\n"},
			} {
				cmd := exec.CommandContext(testContext(t), binPath, c.args...)
				cmd.Dir = dir
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil || !strings.Contains(string(out), c.want) {
					t.Fatalf("mcpwasm %s: %v\n%s%s\nwant it to print %q", strings.Join(c.args[:2], " "), err, out, stderr.String(), c.want)
				}
				if c.args[0] == "call" && string(out) != c.want {
					t.Errorf("mcpwasm call greet = %q, want %q", out, c.want)
				}
			}
		})
	}
}

// An import the sandbox cannot serve fails the build (a stub built-in with --strict), naming
// the import and the file.
func TestNewScriptBuildRefusesNodeBuiltins(t *testing.T) {
	mods, err := filepath.Abs(exampleModules)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(mods, "esbuild")); err != nil {
		testenv.Skip(t, "guests/typescript's npm packages are not installed (run: npm ci --prefix guests/typescript): %v", err)
	}
	dir := filepath.Join(t.TempDir(), "bad")
	if _, errOut, code := runCLI("new", "ts", "bad", dir); code != ExitOK {
		t.Fatal(errOut)
	}
	if err := os.Symlink(mods, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	// node:net has no sandbox meaning: a stub, refused with --strict (a plain build warns and
	// links it: guests/npm_test.go); node:fs's synchronous reads are there (over the fs
	// grant), a function the host cannot do is explained.
	for _, c := range []struct {
		imp, want string
		flags     []string
	}{
		{`import { connect } from "node:net";`, `error: node:net (imported by server.ts) is a stub: a guest opens no sockets and serves no HTTP itself`, []string{"--strict"}},
		{`import { cpSync as connect } from "node:fs";`, `server.ts:1: unsupported import "cpSync" from node:fs: mcpwasm's node:fs does not have it`, nil},
	} {
		src := c.imp + "\nimport { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\nnew McpServer({ name: \"bad\", version: \"1\" });\nconnect(80);\n"
		if err := os.WriteFile(filepath.Join(dir, "server.ts"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(testContext(t), "node", append([]string{"mcpwasm/build.mjs", "server.ts", "bad.wasm"}, c.flags...)...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(b), c.want) {
			t.Fatalf("build: %v\n%s\nwant it to fail with %q", err, b, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "bad.wasm")); err == nil {
			t.Error("a failed build left bad.wasm")
		}
	}
}
