package main

import (
	"encoding/json"
	jsguest "github.com/mcpwasm/mcpwasm/abi/js"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

// serveScript builds the JavaScript guest whose entry is the file entry (relative to this
// package) and starts `mcpwasm serve` on it, initialized.
func serveScript(t *testing.T, entry string) *server {
	t.Helper()
	abs, err := filepath.Abs(entry)
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, buildScriptGuest(t, abs, t.TempDir()))
	s.initialize()
	return s
}

// buildScriptGuest builds the server file entry (absolute) with the TypeScript example's
// mcpwasm/build.mjs and packages (npm ci --prefix guests/typescript) into dir and returns the
// module's path.
func buildScriptGuest(t *testing.T, entry, dir string) string {
	t.Helper()
	mods, err := filepath.Abs(exampleModules)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(mods, "esbuild")); err != nil {
		testenv.Skip(t, "guests/typescript's npm packages are not installed (run: npm ci --prefix guests/typescript): %v", err)
	}
	if err := jsguest.Sync(filepath.Join(filepath.Dir(mods), "mcpwasm")); err != nil { // generated from abi/js
		t.Fatal(err)
	}
	// The build runs in a child process: read its inputs here, so that go test's result
	// cache never replays a PASS for an edited shim.
	for _, f := range []string{"shim.js", "sdk.js", "build.mjs"} {
		if _, err := os.ReadFile(filepath.Join(filepath.Dir(mods), "mcpwasm", f)); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(entry), filepath.Ext(entry))+".wasm")
	cmd := exec.CommandContext(testContext(t), "node", "mcpwasm/build.mjs", entry, out)
	cmd.Dir = filepath.Dir(mods)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", entry, err, b)
	}
	return out
}

// readResourcesWith runs testdata/interop/resources-client.mjs (the TypeScript SDK's client)
// against server over stdio and returns what it printed: per URI, the text of the answer or
// the error.
func readResourcesWith(t *testing.T, modules string, uris []string, server ...string) []map[string]string {
	t.Helper()
	args := append(append(append([]string{"testdata/interop/resources-client.mjs"}, uris...), "--"), server...)
	cmd := exec.CommandContext(testContext(t), "node", args...)
	cmd.Env = append(os.Environ(), "MCPWASM_INTEROP_MODULES="+modules)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client against %s: %v\n%s\n%s", server[0], err, out, stderr.String())
	}
	var res []map[string]string
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("client output is not JSON: %v\n%s", err, out)
	}
	return res
}

// A resource template's handler gets the URL and the variables a Node server with the real
// TypeScript SDK (1.32.2) gets, for URIs with non-ASCII characters too: the same server file
// is read through the SDK's client on Node and under `mcpwasm serve`. The shim decoded the
// variables ("café" where Node gives "caf%C3%A9"), left non-ASCII unencoded in href, and
// refused a percent-encoded opaque host; the binding answered "Resource not found" to a URI
// with raw non-ASCII or a web host in upper case, which go-sdk's RFC 6570 routing does not
// match (it now retries it normalized as WHATWG URL spells it).
func TestResourceTemplatesMatchNode(t *testing.T) {
	sdkMCP := npmTool(t, "@modelcontextprotocol/sdk/dist/esm/server/mcp.js")
	modules := strings.TrimSuffix(sdkMCP, filepath.FromSlash("/@modelcontextprotocol/sdk/dist/esm/server/mcp.js"))
	entry, err := filepath.Abs(filepath.Join("testdata", "interop", "templates-server.js"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	module := buildScriptGuest(t, entry, dir)

	// On Node: the same file with its SDK imports pointed at the installed package.
	src, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	sdkDir := "file://" + filepath.ToSlash(filepath.Join(modules, "@modelcontextprotocol", "sdk", "dist", "esm")) + "/"
	nodeServer := filepath.Join(dir, "server.mjs")
	if err := os.WriteFile(nodeServer, []byte(strings.ReplaceAll(string(src), `"@modelcontextprotocol/sdk/`, `"`+sdkDir)), 0o644); err != nil {
		t.Fatal(err)
	}

	uris := []string{
		"note://42", "note://café", "note://caf%C3%A9", "note://日本語", "note://😀",
		"users://zoë/profile", "users://Zo%C3%AB/profile",
		"file:///docs/résumé.txt", "file:///a b/ü",
		"https://example.com/wiki/straße", "https://EXAMPLE.com/wiki/Größe", "NOTE://Ab",
		"search://q?q=grüße&lang=de", "search://q?q=%E2%82%AC&lang=fr",
		"doc://a,b,ç", "tag:ü",
	}
	node := readResourcesWith(t, modules, uris, "node", nodeServer)
	ours := readResourcesWith(t, modules, uris, binPath, "serve", "--cache-dir", cacheDir, module)
	for i, uri := range uris {
		if node[i]["text"] == "" {
			t.Errorf("%s: Node's SDK answered no text (%q): the case proves nothing", uri, node[i]["error"])
			continue
		}
		if ours[i]["text"] != node[i]["text"] || ours[i]["error"] != node[i]["error"] {
			t.Errorf("%s:\nmcpwasm %v\nNode    %v", uri, ours[i], node[i])
		}
	}
	// What Node gives, spelled out for two of them.
	for i, want := range map[int]string{
		1:  `{"template":"note","href":"note://caf%C3%A9","host":"caf%C3%A9","pathname":"","search":"","vars":{"id":"caf%C3%A9"}}`,
		14: `{"template":"doc","href":"doc://a,b,%C3%A7","host":"a,b,%C3%A7","pathname":"","search":"","vars":{"path":["a","b","%C3%A7"]}}`,
	} {
		if ours[i]["text"] != want {
			t.Errorf("%s: %q, want %q", uris[i], ours[i]["text"], want)
		}
	}
}

// notifications/cancelled reaches a JavaScript guest as its extra.signal's abort: with one
// instance and a ten-minute time limit, the cancelled call's handler, awaiting a one-minute
// timer (the clock granted: it really waits), ends cleanly — its log line, on the server's
// stderr, says so — and the next call is answered; the cancelled request gets no answer.
func TestCancelAbortsJavaScriptSignal(t *testing.T) {
	entry, err := filepath.Abs(filepath.Join("..", "..", "guests", "typescript", "testdata", "abort.js"))
	if err != nil {
		t.Fatal(err)
	}
	module := buildScriptGuest(t, entry, t.TempDir())
	conf := writeConfig(t, `{"guests": [{"path": "`+module+`", "grants": {"clock": true}}]}`)
	s := startServer(t, "--instances", "1", "--timeout", "10m", "--config", conf)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"info"}}`)
	if l := s.recv(); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":9,"result"`) {
		t.Fatalf("setLevel: %s", l)
	}
	s.send(callLine(2, "wait_timer", `{}`))
	if l := s.recv(); !strings.Contains(l, `"notifications/message"`) || !strings.Contains(l, `"waiting"`) {
		t.Fatalf("want the guest's log line waiting first, got %s", l)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, callLine(3, "wait_fetch", `{"url":"http://127.0.0.1:1/"}`))
	for {
		l := s.recv()
		if strings.Contains(l, `"notifications/message"`) { // call 3's (a cancelled request's are not sent)
			continue
		}
		if !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":3,"result"`) || !strings.Contains(l, "fetch rejected: TypeError") {
			t.Fatalf("first reply after cancel: %s (want call 3's; the cancelled request must get none)", l)
		}
		break
	}
	if code, _ := s.closeAndWait(time.Minute); code != 0 {
		t.Errorf("exit %d", code)
	}
	if want := `tool=wait_timer level=info msg="ended cleanly (aborted: AbortError)"`; !strings.Contains(s.stderr.String(), want) {
		t.Errorf("the server's log lacks %s", want)
	}
}

// A JavaScript guest whose names the TypeScript SDK serves under Node but which are outside
// ^[a-zA-Z0-9_-]{1,64}$ (server "Weather Server", tool "files.read") is served: tools/list
// shows the mapped name, a call of it reaches the handler, stderr logs the mapping. Before,
// serve failed at load: guest name "Weather Server" does not match ^[a-zA-Z0-9_-]{1,64}$.
func TestServeJavaScriptForeignNames(t *testing.T) {
	s := serveScript(t, filepath.Join("..", "..", "guests", "typescript", "testdata", "names.js"))
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var list struct {
		Result struct{ Tools []struct{ Name string } }
	}
	if err := json.Unmarshal([]byte(s.recvReply()), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Result.Tools {
		names = append(names, tl.Name)
	}
	if want := "files_read_601e4eb6 plain read_" + strings.Repeat("x", 50) + "_3922af47"; strings.Join(names, " ") != want {
		t.Errorf("tools/list: %q, want %q", names, want)
	}
	s.send(callLine(3, "files_read_601e4eb6", `{"path":"/a"}`))
	if isErr, text := toolResult(t, s.recvReply()); isErr || text != "files.read /a" {
		t.Errorf("call: %v %q", isErr, text)
	}
	if l := s.stderr.String(); !strings.Contains(l, `guest=weather-server tool=files.read served_as=files_read_601e4eb6`) {
		t.Errorf("stderr does not log the mapping:\n%s", l)
	}
}
