package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

// toolchainPrereqs skips without node or the example's installed packages (the toolchain
// --toolchain names).
func toolchainPrereqs(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Skip(t, "node is not installed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(exampleModules, "esbuild")); err != nil {
		testenv.Skip(t, "guests/typescript's npm packages are not installed (run: npm ci --prefix guests/typescript): %v", err)
	}
}

// zodServer is a TypeScript server whose tool's schema is the project's zod.
const zodServer = `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "proj", version: "1.0.0" });
server.registerTool("echo", { description: "echoes", inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: "text", text }],
}));
await server.connect(new StdioServerTransport());
`

// jsSection returns the body of the module's custom section "mcpwasm.js" (the shim and the
// bundle).
func jsSection(t *testing.T, wasm []byte) []byte {
	t.Helper()
	for i := 8; i < len(wasm); {
		id := wasm[i]
		n, k := binary.Uvarint(wasm[i+1:])
		body := wasm[i+1+k : i+1+k+int(n)]
		i += 1 + k + int(n)
		if id != 0 {
			continue
		}
		ln, k := binary.Uvarint(body)
		if string(body[k:k+int(ln)]) == "mcpwasm.js" {
			return body[k+int(ln):]
		}
	}
	t.Fatal("no mcpwasm.js section")
	return nil
}

// buildProject writes package.json and server.ts into a new directory (with mods copied to
// its node_modules when set), runs mcpwasm build server.ts there and returns the module's
// script section.
func buildProject(t *testing.T, mods map[string]string) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"proj","private":true,"type":"module"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server.ts"), []byte(zodServer), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, src := range mods {
		if err := os.CopyFS(filepath.Join(dir, "node_modules", name), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "proj.wasm")
	stdout, stderr, code := runCLI("build", "--toolchain", filepath.Dir(exampleModules), "-o", out, filepath.Join(dir, "server.ts"))
	if code != ExitOK {
		t.Fatalf("build: exit %d\n%s%s", code, stdout, stderr)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return jsSection(t, wasm)
}

// mcpwasm build FILE.ts in a project with its own node_modules/zod (the same major version as
// the toolchain's) bundles that zod once: the SDK's imports take the project's copy, so the
// script is the same size, byte for byte, as the same project's without node_modules (where
// both take the toolchain's). Before, the SDK's zod came from the toolchain beside the
// project's: 543,399 bytes against 468,074, "$ZodError" 7 times against 4.
func TestBuildFileBundlesProjectZodOnce(t *testing.T) {
	toolchainPrereqs(t)
	own := buildProject(t, map[string]string{"zod": filepath.Join(exampleModules, "zod")})
	shared := buildProject(t, nil)
	if len(own) != len(shared) || bytes.Count(own, []byte("$ZodError")) != bytes.Count(shared, []byte("$ZodError")) {
		t.Errorf("with the project's zod: a %d-byte script, $ZodError %d times; with the toolchain's alone: %d bytes, %d times (zod bundled twice)",
			len(own), bytes.Count(own, []byte("$ZodError")), len(shared), bytes.Count(shared, []byte("$ZodError")))
	}
	// A project on zod 3 (another major: its "zod" lacks what the shim imports) keeps the
	// shim's zod 4 beside its own: the build succeeds, zod 4's core in the script (the
	// server's own "zod" is zod 3, which has no $ZodError).
	zod3 := filepath.Join("..", "..", "testdata", "npm-servers", "node_modules", "zod")
	if _, err := os.Stat(filepath.Join(zod3, "v3")); err != nil {
		testenv.Skip(t, "testdata/npm-servers is not installed (run: npm ci --prefix testdata/npm-servers): %v", err)
	}
	three := buildProject(t, map[string]string{"zod": zod3})
	if n := bytes.Count(three, []byte("$ZodError")); n == 0 {
		t.Errorf("with zod 3 in the project: a %d-byte script without zod 4's $ZodError (the shim's zod 4 dropped)", len(three))
	}
}

// A path without an extension resolves as Node resolves a script: PATH.js, .mjs, .cjs, then
// .ts, .mts, .cts; a directory without package.json by its index file. When nothing is
// there, the error names every path tried.
func TestBuildResolvesExtensionlessPath(t *testing.T) {
	toolchainPrereqs(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "server.ts"), []byte(zodServer), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app", "index.ts"), []byte(zodServer), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ arg, resolved string }{
		{filepath.Join(dir, "server"), filepath.Join(dir, "server.ts")},
		{filepath.Join(dir, "app"), filepath.Join(dir, "app", "index.ts")},
	} {
		out := filepath.Join(t.TempDir(), "x.wasm")
		stdout, stderr, code := runCLI("build", "--toolchain", filepath.Dir(exampleModules), "-o", out, c.arg)
		if code != ExitOK {
			t.Fatalf("build %s: exit %d\n%s%s", c.arg, code, stdout, stderr)
		}
		if want := "building " + c.resolved + " (for " + c.arg + ")\n"; !strings.Contains(stderr, want) {
			t.Errorf("build %s: stderr lacks %q:\n%s", c.arg, want, stderr)
		}
		if b, err := os.ReadFile(out); err != nil || !bytes.HasPrefix(b, []byte("\x00asm")) {
			t.Errorf("build %s: %s: %v", c.arg, out, err)
		}
	}
	missing := filepath.Join(dir, "nothing")
	_, stderr, code := runCLI("build", "--toolchain", filepath.Dir(exampleModules), missing)
	want := "mcpwasm build: " + missing + ": no such file, nor " + missing + ".js, .mjs, .cjs, .ts, .mts or .cts"
	if code != ExitUsage || !strings.Contains(stderr, want) {
		t.Errorf("build %s: exit %d\n%s\nwant %q", missing, code, stderr, want)
	}
	// A directory with neither package.json nor an index file names both.
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runCLI("build", "--toolchain", filepath.Dir(exampleModules), empty)
	want = "mcpwasm build: " + empty + ": no package.json, nor an index file (index.js, .mjs, .cjs, .ts, .mts or .cts)"
	if code != ExitUsage || !strings.Contains(stderr, want) {
		t.Errorf("build %s: exit %d\n%s\nwant %q", empty, code, stderr, want)
	}
}
