package js

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The example guests/typescript is a project as Project makes it (plus its own server.ts and
// package.json fields): its lockfile must stay current. Its mcpwasm/ is not committed: npm ci
// and npm run build write it from abi/js with sync.mjs (TestSyncScript).
func TestExampleCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "guests", "typescript")
	files, err := Project("ts", "typescript")
	if err != nil {
		t.Fatal(err)
	}
	rels := []string{"package-lock.json", "tsconfig.json", ".gitignore"}
	for _, rel := range rels {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != string(files[rel]) {
			t.Errorf("guests/typescript/%s differs from abi/js (copy it: the example is what `mcpwasm new ts typescript` writes)", rel)
		}
	}
	var pkg struct {
		Scripts         map[string]string
		DevDependencies map[string]string
	}
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"prepare", "prebuild"} {
		if want := "node ../../abi/js/sync.mjs mcpwasm"; pkg.Scripts[s] != want {
			t.Errorf("guests/typescript script %q = %q, want %q (its mcpwasm/ is generated from abi/js)", s, pkg.Scripts[s], want)
		}
	}
	if len(pkg.DevDependencies) != len(Dependencies) {
		t.Errorf("guests/typescript devDependencies %v, want %v", pkg.DevDependencies, Dependencies)
	}
	for k, v := range Dependencies {
		if pkg.DevDependencies[k] != v {
			t.Errorf("guests/typescript devDependencies[%q] = %q, want %q", k, pkg.DevDependencies[k], v)
		}
	}
}

// The lockfile names the project (both places npm writes the name) and pins each dependency
// at its version.
func TestLockfile(t *testing.T) {
	var lock struct {
		Name     string
		Packages map[string]struct {
			Name            string
			Version         string
			DevDependencies map[string]string
		}
	}
	if err := json.Unmarshal(Lockfile("greet"), &lock); err != nil {
		t.Fatal(err)
	}
	if lock.Name != "greet" || lock.Packages[""].Name != "greet" {
		t.Fatalf("names %q, %q; want greet", lock.Name, lock.Packages[""].Name)
	}
	for k, v := range Dependencies {
		if got := lock.Packages["node_modules/"+k].Version; got != v {
			t.Errorf("%s locked at %q, want %q", k, got, v)
		}
		if got := lock.Packages[""].DevDependencies[k]; got != v {
			t.Errorf("root devDependencies[%q] = %q, want %q", k, got, v)
		}
	}
}

// The project README's example of a request read off the script names an environment
// variable, not the project: "NAME" in the template is the project's name, so the example
// once read "process.env.weather → env weather" for a project named weather.
func TestProjectReadmeEnvExample(t *testing.T) {
	for _, lang := range []string{"ts", "js"} {
		files, err := Project(lang, "weather")
		if err != nil {
			t.Fatal(err)
		}
		readme := string(files["README.md"])
		if want := "process.env.API_KEY → env API_KEY"; !strings.Contains(readme, want) {
			t.Errorf("%s README lacks %q:\n%s", lang, want, readme)
		}
		if bad := "process.env.weather"; strings.Contains(readme, bad) {
			t.Errorf("%s README says %q", lang, bad)
		}
	}
}

// A project opened in an editor resolves the SDK's imports (issue 45 item 3: TS2307 on
// @modelcontextprotocol/sdk/server/mcp.js): the SDK's v1 line is a pinned devDependency for
// its types, a tsconfig.json is written and `npm run check` runs tsc --noEmit. The build
// never bundles the SDK: build.mjs points its imports at mcpwasm/sdk.js.
func TestProjectTypeChecks(t *testing.T) {
	for _, lang := range []string{"ts", "js"} {
		files, err := Project(lang, "greet")
		if err != nil {
			t.Fatal(err)
		}
		var pkg struct {
			Scripts         map[string]string
			DevDependencies map[string]string
		}
		if err := json.Unmarshal(files["package.json"], &pkg); err != nil {
			t.Fatal(err)
		}
		if pkg.Scripts["check"] != "tsc --noEmit -p ." || pkg.DevDependencies["@modelcontextprotocol/sdk"] != "1.32.2" || pkg.DevDependencies["typescript"] == "" {
			t.Errorf("%s package.json: scripts %v, devDependencies %v", lang, pkg.Scripts, pkg.DevDependencies)
		}
		var tc struct {
			CompilerOptions map[string]any
			Include         []string
		}
		if err := json.Unmarshal(files["tsconfig.json"], &tc); err != nil {
			t.Fatalf("%s tsconfig.json: %v\n%s", lang, err, files["tsconfig.json"])
		}
		want := map[string]string{"ts": "*.ts", "js": "*.js"}[lang]
		if len(tc.Include) != 1 || tc.Include[0] != want || tc.CompilerOptions["noEmit"] != true || tc.CompilerOptions["module"] != "nodenext" {
			t.Errorf("%s tsconfig.json: %s", lang, files["tsconfig.json"])
		}
		if lang == "js" && tc.CompilerOptions["checkJs"] != true {
			t.Errorf("js tsconfig.json does not check the script: %s", files["tsconfig.json"])
		}
	}
	// The shim follows the SDK version the types come from.
	if !strings.Contains(Shim, "(1.32.2)") {
		t.Errorf("the shim no longer names SDK 1.32.2: update Dependencies with it")
	}
}

// A server written as the TypeScript SDK's docs and Node servers write it — process.env,
// node:fs/promises, node:path, all served by mcpwasm — type-checks in a new project with its
// tsconfig.json and pinned types (`npm run check`). It failed with "Cannot find name
// 'process'" while the tsconfig listed no types and the project had no @types/node.
func TestProjectChecksNodeAPIs(t *testing.T) {
	modules, _ := filepath.Abs(filepath.Join("..", "..", "guests", "typescript", "node_modules"))
	tsc := filepath.Join(modules, ".bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		if os.Getenv("CI") != "" { // as internal/testenv does (abi imports nothing of ours)
			t.Fatalf("guests/typescript's npm packages are not installed: %v", err)
		}
		t.Skipf("guests/typescript's npm packages are not installed (run: npm ci --prefix guests/typescript): %v", err)
	}
	files, err := Project("ts", "greet")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	server := `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const server = new McpServer({ name: "greet", version: "0.1.0" });
server.registerTool("read", { inputSchema: { name: z.string() } }, async ({ name }) => ({
  content: [{ type: "text", text: (process.env.PREFIX ?? "") + (await readFile(join("/data", name), "utf8")) }],
}));
await server.connect(new StdioServerTransport());
`
	for name, b := range map[string][]byte{"package.json": files["package.json"], "tsconfig.json": files["tsconfig.json"], "server.ts": []byte(server)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), tsc, "--noEmit", "-p", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("npm run check (tsc --noEmit -p .) of a server using process.env, node:fs/promises and node:path: %v\n%s", err, out)
	}
}
