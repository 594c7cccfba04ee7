package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runClient runs `mcpwasm ARGS...` and returns stdout and the exit code. A client command's
// connect and request time limits are the test's remaining time, not the 30 s and 60 s
// defaults: a first start that compiles guests on a slow machine is slow, not a failure.
func runClient(t *testing.T, args ...string) (string, int) {
	t.Helper()
	if _, ok := clientCommands[args[0]]; ok {
		limit := waitLimit(t).String()
		args = append([]string{args[0], "--connect-timeout", limit, "--timeout", limit}, args[1:]...)
	}
	cmd := exec.CommandContext(testContext(t), binPath, args...)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mcpwasm %v: %v", args, err)
	}
	if code != 0 && code != ExitToolError {
		t.Logf("mcpwasm %v: exit %d\nstderr:\n%s", args, code, stderr.String())
	}
	return string(out), code
}

// toolLines returns the tool names of `mcpwasm tools` human output (unindented lines, before
// "(arguments) — title").
func toolLines(out string) []string {
	var names []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, " ") {
			name, _, _ := strings.Cut(l, "(")
			names = append(names, name)
		}
	}
	return names
}

var bundledTools = []string{"base64_decode", "base64_encode", "calc", "count", "echo", "json_query", "regex_match", "sha256"}

func TestClientStdio(t *testing.T) {
	server := []string{"--", binPath, "serve", "--cache-dir", cacheDir}
	out, code := runClient(t, append([]string{"tools"}, server...)...)
	if code != 0 {
		t.Fatalf("tools: exit %d", code)
	}
	if diff := cmp.Diff(bundledTools, toolLines(out)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	out, code = runClient(t, append([]string{"call", "calc", `{"expression":"1+2"}`}, server...)...)
	if out != "{\"value\":3}\n" || code != 0 {
		t.Errorf("call calc = %q (exit %d), want {\"value\":3}", out, code)
	}
	out, code = runClient(t, append([]string{"call", "calc", `{"expression":"1/0"}`}, server...)...)
	if out != "division by zero\n" || code != ExitToolError {
		t.Errorf("call calc 1/0 = %q (exit %d), want a tool error (exit %d)", out, code, ExitToolError)
	}
	out, code = runClient(t, append([]string{"call", "--json", "calc", `{"expression":"2*3"}`}, server...)...)
	var res struct {
		StructuredContent map[string]float64 `json:"structuredContent"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.StructuredContent["value"] != 6 {
		t.Errorf("call --json = %q (exit %d, %v)", out, code, err)
	}
	if _, code := runClient(t, "call", "calc", "--"); code != ExitUsage {
		t.Errorf("call without a server: exit %d, want %d", code, ExitUsage)
	}
}

func TestClientHTTP(t *testing.T) {
	help, _ := exec.Command(binPath, "serve", "-h").CombinedOutput()
	if !strings.Contains(string(help), "-http") {
		testenv.Skip(t, "serve --http not supported by this build")
	}
	base, _ := startHTTP(t)
	out, code := runClient(t, "tools", "--url", base+"/mcp", "--header", "X-Test: 1")
	if code != 0 {
		t.Fatalf("tools: exit %d", code)
	}
	if diff := cmp.Diff(bundledTools, toolLines(out)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	out, code = runClient(t, "call", "calc", `{"expression":"1+2"}`, "--url", base+"/mcp")
	if out != "{\"value\":3}\n" || code != 0 {
		t.Errorf("call calc = %q (exit %d), want {\"value\":3}", out, code)
	}
}

var upstreamGuest struct {
	once sync.Once
	path string
	err  error
}

// upstreamWasm builds guests/upstream once per test binary.
func upstreamWasm(t *testing.T) string {
	t.Helper()
	upstreamGuest.once.Do(func() {
		out := filepath.Join(filepath.Dir(binPath), "upstream.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "../../guests/upstream")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			upstreamGuest.err = err
			t.Logf("%s", b)
		}
		upstreamGuest.path = out
	})
	if upstreamGuest.err != nil {
		t.Fatal(upstreamGuest.err)
	}
	return upstreamGuest.path
}

// writeUpstreamConfig writes a config whose upstream "docs" is `mcpwasm serve` (the bundled guests,
// among them echo and calc) and whose guest is guests/upstream with grants.
func writeUpstreamConfig(t *testing.T, grants string, expose bool) string {
	t.Helper()
	cfg := map[string]any{
		"guests": []any{map[string]any{"path": upstreamWasm(t), "grants": json.RawMessage(grants)}},
		"upstreams": map[string]any{"docs": map[string]any{
			"command": []string{binPath, "serve", "--cache-dir", cacheDir, "--log-level", "warn"}, "expose": expose}},
	}
	b, _ := json.Marshal(cfg)
	p := filepath.Join(t.TempDir(), "mcpwasm.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A guest calls an upstream tool through its mcp grant and post-processes the result; the
// upstream's tools are also served directly as docs__tool (gateway).
func TestGuestCallsUpstreamAndGateway(t *testing.T) {
	server := []string{"--", binPath, "serve", "--cache-dir", cacheDir, "--config", writeUpstreamConfig(t, `{"mcp":["docs"]}`, true)}
	out, code := runClient(t, append([]string{"call", "shout_echo", `{"text":"hello upstream"}`}, server...)...)
	if out != "HELLO UPSTREAM\n" || code != 0 {
		t.Errorf("shout_echo = %q (exit %d), want HELLO UPSTREAM", out, code)
	}
	out, code = runClient(t, append([]string{"call", "upstream_tools", `{}`}, server...)...)
	if want := strings.Join(bundledTools, "\n") + "\n"; out != want || code != 0 {
		t.Errorf("upstream_tools = %q (exit %d), want %q", out, code, want)
	}
	out, code = runClient(t, append([]string{"call", "docs__calc", `{"expression":"6*7"}`}, server...)...)
	if out != "{\"value\":42}\n" || code != 0 {
		t.Errorf("docs__calc = %q (exit %d)", out, code)
	}
	out, _ = runClient(t, append([]string{"tools"}, server...)...)
	want := []string{"shout_echo", "upstream_tools"}
	for _, n := range bundledTools {
		want = append(want, "docs__"+n)
	}
	got := toolLines(out)
	// The gateway registers the upstream's tools once it has listed them; the SDK serves the
	// list sorted by name.
	if diff := cmp.Diff(sortedCopy(want), got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}

// Without an mcp grant the guest's call is refused with a reason naming the upstream.
func TestGuestUpstreamDenied(t *testing.T) {
	server := []string{"--", binPath, "serve", "--cache-dir", cacheDir, "--config", writeUpstreamConfig(t, `{}`, false)}
	out, code := runClient(t, append([]string{"call", "shout_echo", `{"text":"x"}`}, server...)...)
	want := "mcp.call: DENIED: mcp: upstream \"docs\" is not granted to guest \"upstream\"\n"
	if out != want || code != ExitToolError {
		t.Errorf("shout_echo = %q (exit %d), want %q (exit %d)", out, code, want, ExitToolError)
	}
}

// everything returns the entry point of @modelcontextprotocol/server-everything.
func everything(t *testing.T) string {
	return npmTool(t, "@modelcontextprotocol/server-everything/dist/index.js")
}

// Interop with a third-party server (the reference "everything" server, TypeScript SDK).
func TestClientInteropEverything(t *testing.T) {
	server := []string{"--", "node", everything(t), "stdio"}
	out, code := runClient(t, append([]string{"tools", "--json"}, server...)...)
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 {
		t.Fatalf("tools --json: %v (exit %d)\n%s", err, code, out)
	}
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
	}
	for _, n := range []string{"echo", "get-sum"} {
		if !names[n] {
			t.Errorf("tool %q missing from %v", n, list.Tools)
		}
	}
	if out, code := runClient(t, append([]string{"call", "echo", `{"message":"hi there"}`}, server...)...); out != "Echo: hi there\n" || code != 0 {
		t.Errorf("echo = %q (exit %d)", out, code)
	}
	if out, code := runClient(t, append([]string{"call", "get-sum", `{"a":2,"b":3}`}, server...)...); out != "The sum of 2 and 3 is 5.\n" || code != 0 {
		t.Errorf("get-sum = %q (exit %d)", out, code)
	}
	out, code = runClient(t, append([]string{"resources"}, server...)...)
	first, _, _ := strings.Cut(out, "\n")
	if code != 0 || !strings.HasPrefix(first, "demo://resource/static/document/") {
		t.Fatalf("resources = %q (exit %d)", out, code)
	}
	if !strings.Contains(out, "{") { // resource templates follow the resources
		t.Errorf("resources lists no resource template: %q", out)
	}
	uri, _, _ := strings.Cut(first, "\t")
	out, code = runClient(t, append([]string{"read", "--json", uri}, server...)...)
	var rr struct {
		Contents []struct{ URI, Text string } `json:"contents"`
	}
	if err := json.Unmarshal([]byte(out), &rr); err != nil || code != 0 || len(rr.Contents) != 1 || rr.Contents[0].URI != uri || rr.Contents[0].Text == "" {
		t.Errorf("read %s = %q (exit %d, %v)", uri, out, code, err)
	}
	out, code = runClient(t, append([]string{"prompt", "args-prompt", `{"city":"Lyon"}`}, server...)...)
	if code != 0 || !strings.Contains(out, "user: ") || !strings.Contains(out, "Lyon") {
		t.Errorf("prompt args-prompt = %q (exit %d)", out, code)
	}
}

// our client always sends "arguments":{} — never omits it or sends null.
func TestClientSendsEmptyArguments(t *testing.T) {
	b, err := json.Marshal(&mcp.CallToolParams{Name: "echo", Arguments: orEmptyMap(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"echo","arguments":{}}`; string(b) != want {
		t.Errorf("tools/call params = %s, want %s", b, want)
	}
}

// read of an unknown resource names the URI (the SDK's error does not).
func TestClientReadUnknownResource(t *testing.T) {
	cmd := exec.Command(binPath, "read", "calc://nope", "--", binPath, "serve", "--cache-dir", cacheDir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != ExitError {
		t.Errorf("exit %d (%v), want %d", code, err, ExitError)
	}
	if want := `mcpwasm read: calc://nope: calling "resources/read": Resource not found` + "\n"; !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("stderr %q, want it to end with %q", stderr.String(), want)
	}
}

// Interop with the reference server's task tool (server-everything's simulate-research-query,
// execution.taskSupport "required", the 2025-11-25 tasks utility): call sends the "task" param,
// follows the task through its stages and prints the result from tasks/result.
func TestClientTaskEverything(t *testing.T) {
	server := []string{"--", "node", everything(t), "stdio"}
	out, code := runClient(t, append([]string{"call", "simulate-research-query", `{"topic":"wasm"}`}, server...)...)
	if first, _, _ := strings.Cut(out, "\n"); code != 0 || first != "# Research Report: wasm" {
		t.Errorf("simulate-research-query = %q (exit %d), want the research report", out, code)
	}
}

// TestCallArgumentsFromFile: `call TOOL @FILE` reads the arguments from FILE, so arguments
// longer than a command line takes (Linux refuses one argument over 128 KiB) round-trip
// exactly; a missing file and a file that is not a JSON object are usage errors naming them.
func TestCallArgumentsFromFile(t *testing.T) {
	server := []string{"--", binPath, "serve", "--cache-dir", cacheDir}
	text := strings.Repeat("é", 150_000) + "🙂 \u2028 \"quoted\""
	args, err := json.Marshal(map[string]string{"text": text})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "args.json")
	if err := os.WriteFile(file, args, 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := runClient(t, append([]string{"call", "echo", "@" + file}, server...)...)
	if code != 0 || out != text+"\n" {
		t.Errorf("call echo @FILE: exit %d, %d bytes out, want %d bytes", code, len(out), len(text)+1)
	}
	for _, c := range []struct{ file, content, want string }{
		{filepath.Join(dir, "missing.json"), "", "mcpwasm call: arguments: open " + filepath.Join(dir, "missing.json") + ": no such file or directory"},
		{filepath.Join(dir, "array.json"), "[1]", "mcpwasm call: arguments must be a JSON object: [1]"},
		{filepath.Join(dir, "empty.json"), "", "mcpwasm call: arguments must be a JSON object: (empty)"},
		{"", "", "mcpwasm call: arguments: @ needs a file name: @FILE"},
		{dir, "", "mcpwasm call: arguments: " + dir + ": read " + dir + ": is a directory"},
		{filepath.Join(dir, "huge.json"), "", "mcpwasm call: arguments: " + filepath.Join(dir, "huge.json") + " is over 64 MiB"},
	} {
		if strings.HasSuffix(c.file, "huge.json") { // sparse: 64 MiB and a byte of zeros
			if err := os.WriteFile(c.file, nil, 0o600); err != nil || os.Truncate(c.file, maxArgsFile+1) != nil {
				t.Fatal("huge.json")
			}
		}
		if strings.HasSuffix(c.file, "empty.json") || c.content != "" {
			if err := os.WriteFile(c.file, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.CommandContext(testContext(t), binPath, append([]string{"call", "echo", "@" + c.file}, server...)...)
		stderr, _ := cmd.CombinedOutput()
		if got, _, _ := strings.Cut(string(stderr), "\n"); cmd.ProcessState.ExitCode() != ExitUsage || got != c.want {
			t.Errorf("call echo @%s: exit %d, %q; want exit %d, %q", filepath.Base(c.file), cmd.ProcessState.ExitCode(), got, ExitUsage, c.want)
		}
	}
}
