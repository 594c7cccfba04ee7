package guests_test

import (
	"context"
	"encoding/json"
	"fmt"
	jsguest "github.com/mcpwasm/mcpwasm/abi/js"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/guests"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// This file runs servers written as published npm servers are (issue 40): the SDK's
// low-level Server, Node built-ins with a sandbox meaning, and those without one.

// buildJSResult runs the build of entry (relative to guests/typescript) and returns its
// combined output and the module, or the build's error.
func buildJSResult(tb testing.TB, entry string, flags ...string) (string, []byte, error) {
	tb.Helper()
	guests.ReadTrees(tb, "typescript/mcpwasm", "typescript/testdata")
	if _, err := os.Stat(filepath.Join("typescript", "node_modules", "esbuild")); err != nil {
		testenv.Skip(tb, "guests/typescript's npm packages are not installed (run: npm ci --prefix guests/typescript): %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Skip(tb, "node is not installed: %v", err)
	}
	if err := jsguest.Sync(filepath.Join("typescript", "mcpwasm")); err != nil { // generated from abi/js
		tb.Fatal(err)
	}
	out := filepath.Join(tb.TempDir(), "guest.wasm")
	cmd := exec.Command(node, append([]string{"mcpwasm/build.mjs", entry, out}, flags...)...)
	cmd.Dir = "typescript"
	b, err := cmd.CombinedOutput()
	if err != nil {
		return string(b), nil, err
	}
	wasm, err := os.ReadFile(out)
	return string(b), wasm, err
}

// A server written with the low-level Server and setRequestHandler (lowlevel.ts of the
// newcomer cases, and every request schema the SDK exports): its list handlers make the
// manifest (pages followed), its call, read, get and complete handlers answer.
func TestJavaScriptLowLevelServer(t *testing.T) {
	h := newHost(t)
	g := load(t, h, buildJS(t, "testdata/lowlevel.js"), nil)
	m := g.Manifest()
	var tools []string
	for _, tl := range m.Tools {
		tools = append(tools, tl.Name)
	}
	if g.Name() != "lowlevel" || strings.Join(tools, ",") != "shout,count" {
		t.Fatalf("name %q, tools %v; want lowlevel with shout,count (both pages)", g.Name(), tools)
	}
	if got, want := call(t, g, "shout", `{"text":"hi"}`), fmt.Sprintf(textResult, `"HI"`); got != want {
		t.Errorf("shout: %s, want %s", got, want)
	}
	if got, want := call(t, g, "count", `{"text":"four"}`), fmt.Sprintf(textResult, `"4"`); got != want {
		t.Errorf("count: %s, want %s", got, want)
	}
	if len(m.Resources) != 1 || m.Resources[0].URI != "memo://one" || len(m.ResourceTemplates) != 1 || m.ResourceTemplates[0].URITemplate != "memo://{id}" {
		t.Errorf("resources %+v, templates %+v", m.Resources, m.ResourceTemplates)
	}
	out, err := g.ReadResource(context.Background(), "memo://7")
	if want := `{"contents":[{"uri":"memo://7","text":"memo 7"}]}`; err != nil || string(out) != want {
		t.Errorf("read memo://7: %s, %v; want %s", out, err, want)
	}
	out, err = g.GetPrompt(context.Background(), "greet", []byte(`{"who":"Ada"}`))
	if want := `{"messages":[{"role":"user","content":{"type":"text","text":"Say hello to Ada"}}]}`; err != nil || string(out) != want {
		t.Errorf("prompt greet: %s, %v; want %s", out, err, want)
	}
	if !g.Completes() {
		t.Fatal("a CompleteRequestSchema handler: completions not served")
	}
	out, err = g.Complete(context.Background(), []byte(`{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"al"}}`))
	if want := `{"completion":{"values":["alan"],"hasMore":false}}`; err != nil || string(out) != want {
		t.Errorf("complete: %s, %v; want %s", out, err, want)
	}
	_, err = g.Call(context.Background(), "nope", []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown tool: %v, want an error naming it", err)
	}
}

// Node built-ins with a sandbox meaning answer as Node's do (the expected values are
// Node 20's for the same calls); process.argv is the config's args; HOME comes from the env
// grant; node:fs goes through the fs grant, what the grant does not cover is refused by the
// sandbox, what the host does not offer (rename) fails with ENOSYS naming it.
func TestJavaScriptNodeBuiltins(t *testing.T) {
	h := newHost(t)
	dir := t.TempDir()
	g := load(t, h, buildJS(t, "testdata/nodebuiltins.js"), &runtime.GuestConfig{
		Args:   []string{"--flag", "x"},
		Grants: runtime.Grants{Env: []string{"HOME=/home/ada"}, FS: []policy.FS{{Guest: "/data", Host: dir, RW: true}}},
	})
	var probe map[string]any
	text := func(tool string, v any) {
		t.Helper()
		var r struct{ Content []struct{ Text string } }
		out := call(t, g, tool, `{}`)
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Content) != 1 {
			t.Fatalf("%s: %s", tool, out)
		}
		if err := json.Unmarshal([]byte(r.Content[0].Text), v); err != nil {
			t.Fatalf("%s: %s: %v", tool, r.Content[0].Text, err)
		}
	}
	text("probe", &probe)
	want := map[string]string{
		"join":          `"/a/c/d.txt"`,
		"resolve":       `"/y"`,
		"relative":      `"../../d"`,
		"parse":         `{"base":"file.tar.gz","dir":"/home/u","ext":".gz","name":"file.tar","root":"/"}`,
		"posix":         `true`,
		"fileURLToPath": `"/tmp/a b.txt"`,
		"pathToFileURL": `"file:///tmp/a%20b%23.txt"`,
		"format":        `"list has 3 items {\"a\":1}"`,
		"inspect":       `"{ a: [ 1, 'x' ], m: Map(1) { 'k' =\u003e 2 } }"`,
		"isDate":        `true`,
		"promisify":     `"slept 5"`,
		"events":        `["once:1","on:1","on:2"]`,
		"stream":        `"abcd,pq"`,
		"os":            `[true,"linux","/home/ada","/tmp"]`,
		"sha256":        `"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"`,
		"sha1":          `"a9993e364706816aba3e25717850c26c9cd0d89d"`,
		"md5":           `"d41d8cd98f00b204e9800998ecf8427e"`,
		"md5long":       `"NqksyUqeD6IfYl+L+wB63w=="`,
		"hmac":          `"f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"`,
		"randomBytes":   `8`,
		"decoder":       `"|€"`,
		"isatty":        `false`,
		"argv":          `["--flag","x"]`,
	}
	for k, w := range want {
		b, _ := json.Marshal(probe[k])
		var wv any
		_ = json.Unmarshal([]byte(w), &wv)
		wb, _ := json.Marshal(wv)
		if string(b) != string(wb) {
			t.Errorf("%s: %s, want %s", k, b, wb)
		}
	}
	var files struct {
		Text, Stream, Again, Rename, Outside, Realpath string
		Exists                                         []bool
		Size                                           int
		List                                           []string
	}
	text("files", &files)
	if files.Text != "written by writeFileSync" || files.Stream != "writ" || files.Size != 24 || files.Realpath != "/data/sync.txt" || files.Again != "EEXIST" {
		t.Errorf("files: %+v", files)
	}
	if strings.Join(files.List, ",") != "new.txt,sync.txt" || len(files.Exists) != 2 || !files.Exists[0] || files.Exists[1] {
		t.Errorf("files: list %v, exists %v", files.List, files.Exists)
	}
	if !strings.HasPrefix(files.Rename, "ENOSYS ") || !strings.Contains(files.Rename, "fs.rename is not one of them") {
		t.Errorf("rename: %q, want ENOSYS naming fs.rename", files.Rename)
	}
	if !strings.Contains(files.Outside, "/etc/passwd is not granted") {
		t.Errorf("read /etc/passwd: %q, want the sandbox's refusal", files.Outside)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sync.txt")); err != nil || string(b) != "written by writeFileSync" {
		t.Errorf("the granted directory holds %q, %v", b, err)
	}
}

// node:child_process has no sandbox meaning: the build links a stub and says so (a warning;
// --strict fails it), and the stub's throw at start fails the load naming the module and why
// (child-process.ts of the newcomer cases).
func TestJavaScriptStubBuiltin(t *testing.T) {
	out, wasm, err := buildJSResult(t, "testdata/childprocess.js")
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if !strings.Contains(out, "warning: node:child_process (imported by testdata/childprocess.js) is a stub: a guest runs no processes or threads") {
		t.Errorf("build output lacks the stub warning:\n%s", out)
	}
	h := newHost(t)
	_, err = h.Load(context.Background(), wasm, nil)
	if err == nil || !strings.Contains(err.Error(), "node:child_process.execSync is not available in the mcpwasm sandbox: a guest runs no processes or threads") {
		t.Errorf("load: %v, want the stub's error naming node:child_process.execSync", err)
	}
	out, _, err = buildJSResult(t, "testdata/childprocess.js", "--strict")
	if err == nil || !strings.Contains(out, "error: node:child_process (imported by testdata/childprocess.js) is a stub") {
		t.Errorf("--strict build: %v\n%s; want it to fail naming the stub", err, out)
	}
}

// A server that runs its own HTTP transport (http.ts of the newcomer cases) fails the build
// saying why and what to do instead: connect with StdioServerTransport, and mcpwasm serve is
// the transport (stdio, or Streamable HTTP with --http). It once pointed a TypeScript author
// at "the whole-server path", which has no JavaScript recipe.
func TestJavaScriptOwnTransportRefused(t *testing.T) {
	out, _, err := buildJSResult(t, "testdata/httpserver.js")
	if err == nil || !strings.Contains(out, `unsupported import "@modelcontextprotocol/sdk/server/streamableHttp.js"`) ||
		!strings.Contains(out, "connect the server with StdioServerTransport (server/stdio.js) instead: `mcpwasm serve` serves it over stdio, and `mcpwasm serve --http ADDR` over Streamable HTTP") {
		t.Errorf("build: %v\n%s; want a refusal naming the import and StdioServerTransport with serve --http", err, out)
	}
}

// readFileSync at start (readfilesync.ts of the newcomer cases) goes through the fs grant:
// without one for /etc the load fails naming the file.
func TestJavaScriptReadFileSyncAtStart(t *testing.T) {
	h := newHost(t)
	_, err := h.Load(context.Background(), buildJS(t, "testdata/readfilesync.js"), nil)
	if err == nil || !strings.Contains(err.Error(), "/etc/hostname") {
		t.Errorf("load without an fs grant: %v, want a failure naming /etc/hostname", err)
	}
}

// npmServer builds the published server pkg (installed by .ci/run from
// testdata/npm-servers/package-lock.json) as `mcpwasm build DIR` does: build.mjs --package.
func npmServer(t *testing.T, pkg string) []byte {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "npm-servers", "node_modules", "@modelcontextprotocol", pkg))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		testenv.Skip(t, "testdata/npm-servers is not installed (run: npm ci --prefix testdata/npm-servers): %v", err)
	}
	var p struct{ Bin map[string]string }
	if err := json.Unmarshal(raw, &p); err != nil || len(p.Bin) != 1 {
		t.Fatalf("%s/package.json: bin %v, %v", dir, p.Bin, err)
	}
	var entry string
	for _, e := range p.Bin {
		entry = filepath.Join(dir, e)
	}
	out, wasm, err := buildJSResult(t, entry, "--package", dir)
	if err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, out)
	}
	return wasm
}

// @modelcontextprotocol/server-brave-search 0.6.2 (SDK 1.0.1's low-level Server): without the
// env grant its start exits with its own message; with it, it loads, lists its tools, and a
// search without a net grant is refused by the sandbox naming api.search.brave.com.
func TestNpmBraveSearch(t *testing.T) {
	wasm := npmServer(t, "server-brave-search")
	h := newHost(t)
	_, err := h.Load(context.Background(), wasm, &runtime.GuestConfig{Name: "bare"})
	if err == nil || !strings.Contains(err.Error(), "process.exit(1) called: Error: BRAVE_API_KEY environment variable is required") {
		t.Fatalf("load without BRAVE_API_KEY: %v, want the server's own message", err)
	}
	g, err := h.Load(context.Background(), wasm, &runtime.GuestConfig{Grants: runtime.Grants{Env: []string{"BRAVE_API_KEY=test-key-0"}}})
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, tl := range g.Manifest().Tools {
		tools = append(tools, tl.Name)
	}
	if strings.Join(tools, ",") != "brave_web_search,brave_local_search" {
		t.Fatalf("tools %v", tools)
	}
	out := call(t, g, "brave_web_search", `{"query":"mcpwasm"}`)
	if !strings.Contains(out, `"isError":true`) || !strings.Contains(out, "fetch https://api.search.brave.com/") || !strings.Contains(out, "net: no hosts are granted") {
		t.Errorf("search without a net grant: %s, want the sandbox's refusal naming api.search.brave.com", out)
	}
}

// @modelcontextprotocol/server-filesystem 2026.8.31 with two directories as args and an fs
// grant for one: read, write, list and search inside it; the other is refused by the sandbox.
// It requests each directory of its args (build.mjs fsFromArgs), so the grant for /data is
// effective without a request written into the package.
func TestNpmServerFilesystem(t *testing.T) {
	wasm := npmServer(t, "server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("first note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHost(t)
	g, err := h.Load(context.Background(), wasm, &runtime.GuestConfig{
		Args:   []string{"/data", "/secret"},
		Grants: runtime.Grants{FS: []policy.FS{{Guest: "/data", Host: dir, RW: true}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out := call(t, g, "read_text_file", `{"path":"/data/notes.txt"}`); !strings.Contains(out, `first note\n`) {
		t.Errorf("read_text_file: %s", out)
	}
	if out := call(t, g, "write_file", `{"path":"/data/new.txt","content":"written"}`); strings.Contains(out, `"isError":true`) {
		t.Errorf("write_file: %s", out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new.txt")); err != nil || string(b) != "written" {
		t.Errorf("new.txt on the host: %q, %v", b, err)
	}
	if out := call(t, g, "list_directory", `{"path":"/data"}`); !strings.Contains(out, "[FILE] new.txt") || !strings.Contains(out, "[FILE] notes.txt") {
		t.Errorf("list_directory: %s", out)
	}
	if out := call(t, g, "search_files", `{"path":"/data","pattern":"*.txt"}`); !strings.Contains(out, "/data/notes.txt") {
		t.Errorf("search_files: %s", out)
	}
	// The start's stat of /secret was refused by the sandbox (not granted), so the server left
	// it out of its allowed directories; the host's note names the grant it lacks.
	if out := call(t, g, "read_text_file", `{"path":"/secret/x.txt"}`); !strings.Contains(out, `"isError":true`) || !strings.Contains(out, `fs: /secret is not granted to guest`) {
		t.Errorf("read /secret (named in args, not granted): %s, want the sandbox's refusal", out)
	}
}

// A published-style package built with --package (testdata/npmpkg) reads its own files
// without a grant — package.json through createRequire(import.meta.url), a data file by
// new URL(…, import.meta.url) — and cannot write them (EROFS); import() of its own module
// works; the older server.tool/resource/prompt API serves; a tools/list handler set on
// McpServer.server makes the list while McpServer's tools answer the calls.
func TestNpmPackageOwnFiles(t *testing.T) {
	out, wasm, err := buildJSResult(t, "testdata/npmpkg/dist/index.js", "--package", "testdata/npmpkg")
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	h := newHost(t)
	g := load(t, h, wasm, nil)
	var listed []string
	for _, tl := range g.Manifest().Tools {
		listed = append(listed, tl.Name+": "+tl.Description)
	}
	if got, want := strings.Join(listed, "; "), "about: What the package read of itself; echo: Echoes (listed by the low-level handler)"; got != want {
		t.Errorf("tools %q, want %q", got, want)
	}
	if got, want := call(t, g, "about", `{}`), fmt.Sprintf(textResult, `"{\"version\":\"3.1.4\",\"hello\":\"hello from the package\",\"here\":\"/.mcpwasm/pkg/dist\",\"extra\":\"loaded by import()\",\"write\":\"EROFS\"}"`); got != want {
		t.Errorf("about: %s, want %s", got, want)
	}
	if got, want := call(t, g, "echo", `{"text":"hi"}`), fmt.Sprintf(textResult, `"hi"`); got != want {
		t.Errorf("echo: %s, want %s", got, want)
	}
	res, err := g.ReadResource(context.Background(), "selfread://readme")
	if want := `{"contents":[{"uri":"selfread://readme","text":"hello from the package"}]}`; err != nil || string(res) != want {
		t.Errorf("read selfread://readme: %s, %v; want %s", res, err, want)
	}
	res, err = g.GetPrompt(context.Background(), "ask", []byte(`{"topic":"wasm"}`))
	if want := `{"messages":[{"role":"user","content":{"type":"text","text":"About wasm"}}]}`; err != nil || string(res) != want {
		t.Errorf("prompt ask: %s, %v; want %s", res, err, want)
	}
}

// An import the shim does not have is refused at build with what it has, not esbuild's bare
// "No matching export".
func TestJavaScriptUnsupportedImportExplained(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ file, src, want string }{
		{"badsdk.js", `import { Server, SSEServerTransport } from "@modelcontextprotocol/sdk/server/index.js"; new Server({}); SSEServerTransport;`,
			`unsupported import "SSEServerTransport" from the MCP SDK: mcpwasm's shim serves McpServer`},
		{"badfs.js", `import { cpSync } from "node:fs"; cpSync("/a", "/b");`,
			`unsupported import "cpSync" from node:fs: mcpwasm's node:fs does not have it`},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.file)
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _, err := buildJSResult(t, p)
		if err == nil || !strings.Contains(out, c.want) {
			t.Errorf("%s: %v\n%s\nwant %q", c.file, err, out, c.want)
		}
	}
}

// date-fns's parseISO("nope") is an Invalid Date, as under Node (dateprobe-parseiso.ts of the
// newcomer cases; the engine's setUTCFullYear(NaN) is patched in the shim).
func TestNpmDateFnsParseISO(t *testing.T) {
	entry, err := filepath.Abs(filepath.Join("..", "testdata", "npm-servers", "dateprobe.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("..", "testdata", "npm-servers", "node_modules", "date-fns")); err != nil {
		testenv.Skip(t, "testdata/npm-servers is not installed (run: npm ci --prefix testdata/npm-servers): %v", err)
	}
	out, wasm, err := buildJSResult(t, entry)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	g := load(t, newHost(t), wasm, nil)
	if got, want := call(t, g, "probe", `{}`), fmt.Sprintf(textResult, `"{\"nope\":\"Invalid Date\",\"isNaN\":true,\"ok\":\"2026-12-07T04:05:06.000Z\"}"`); got != want {
		t.Errorf("probe: %s, want %s", got, want)
	}
}

// What the shim cannot serve takes the whole-server path at build, which the build says: a
// bundle carrying its own SDK, and an interval that sends notifications between calls (the
// process's timers fire between calls; runtime's TestJSServerEverything shows it).
func TestJavaScriptWholeServerPathNamed(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "ownsdk.js")
	if err := os.WriteFile(own, []byte(`class StdioServerTransport { start() {} }
new StdioServerTransport().start();
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := buildJSResult(t, own)
	if err != nil || !strings.Contains(out, "whole-server path: it brings its own MCP SDK bundle") || !strings.Contains(out, "kind javascript-server") {
		t.Errorf("own SDK bundle: %v\n%s", err, out)
	}
	ticker := filepath.Join(dir, "ticker.js")
	if err := os.WriteFile(ticker, []byte(`import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
const server = new McpServer({ name: "ticker", version: "1" });
setInterval(() => server.server.sendResourceUpdated({ uri: "tick://now" }), 1000);
await server.connect();
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = buildJSResult(t, ticker)
	if err != nil || !strings.Contains(out, "whole-server path: it sends notifications from timers between calls") || !strings.Contains(out, "kind javascript-server") {
		t.Errorf("ticker: %v\n%s", err, out)
	}
}
