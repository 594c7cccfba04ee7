package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// extismTestdata is where the Extism test plugins are (built from their C sources).
var extismTestdata = filepath.Join("..", "..", "runtime", "internal", "kind", "extism", "testdata")

// A hyper-mcp v1 plugin served over stdio from a config: its config map reaches config_get,
// its net grant lets http_request reach the granted server only, a plugin error is a tool
// error.
func TestExtismServeStdio(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "pong") }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	plugin, err := filepath.Abs(filepath.Join(extismTestdata, "v1.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "mcpwasm.json")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`{"guests":[{"path":%q,"name":"plug","config":{"greeting":"hello"},"grants":{"net":[%q]}}]}`, plugin, u.Host)), 0o600)
	server := []string{"--", binPath, "serve", "--cache-dir", cacheDir, "--config", cfg}
	out, code := runClient(t, append([]string{"tools"}, server...)...)
	if code != 0 || !strings.Contains(out, "echo(text?)") || !strings.Contains(out, "callbacks()") {
		t.Fatalf("tools: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		tool, args, want string
		code             int
	}{
		{"echo", `{"text":"hi"}`, "hi\n", 0},
		{"config", `{}`, "greeting=hello; missing unset\n", 0},
		{"http", fmt.Sprintf(`{"url":%q}`, srv.URL), "200\npong\n", 0},
		{"http", `{"url":"http://127.0.0.1:1/"}`, `net: host "127.0.0.1:1" is not granted to guest "plug"`, ExitToolError},
		{"fail", `{"text":"no"}`, "boom: no\n", ExitToolError},
		{"trap", `{}`, "guest trapped", ExitToolError},
	} {
		out, code := runClient(t, append([]string{"call", tc.tool, tc.args}, server...)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("call %s %s = %q (exit %d), want %q (exit %d)", tc.tool, tc.args, out, code, tc.want, tc.code)
		}
	}
}

// A hyper-mcp v2 plugin served over Streamable HTTP: tools, prompts, resource templates and
// resources/read.
func TestExtismServeHTTP(t *testing.T) {
	base, _ := startHTTP(t, filepath.Join(extismTestdata, "v2.wasm"))
	mcp := base + "/mcp"
	out, code := runClient(t, "tools", "--url", mcp)
	if code != 0 || !strings.Contains(out, "echo()") || !strings.Contains(out, "fail()") {
		t.Errorf("tools: exit %d\n%s", code, out)
	}
	out, code = runClient(t, "prompt", "greet", `{"who":"ada"}`, "--url", mcp)
	if code != 0 || !strings.Contains(out, "hello ada") {
		t.Errorf("prompt: exit %d\n%s", code, out)
	}
	out, code = runClient(t, "read", "mem://notes/9", "--url", mcp)
	if code != 0 || out != "content of mem://notes/9\n" {
		t.Errorf("read: exit %d %q", code, out)
	}
	out, code = runClient(t, "resources", "--url", mcp)
	if code != 0 || !strings.Contains(out, "mem://readme") {
		t.Errorf("resources: exit %d\n%s", code, out)
	}
	out, code = runClient(t, "call", "echo", `{"x":1}`, "--url", mcp)
	if code != 0 || !strings.Contains(out, `"request":{"name":"echo","arguments":{"x":1}}`) {
		t.Errorf("call: exit %d\n%s", code, out)
	}
}

// The TypeScript SDK's client drives a hyper-mcp plugin over stdio: the plugin's
// create_message reaches the client's sampling handler (granted), its elicitation is refused
// as hyper-mcp refuses one (not granted), and the tool result carries both.
func TestExtismInteropTypeScript(t *testing.T) {
	plugin, err := filepath.Abs(filepath.Join(extismTestdata, "v1.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	conf := writeConfig(t, `{"guests": [{"path": "`+plugin+`", "grants": {"sampling": true}}]}`)
	res, _ := runSamplingClient(t, "callbacks", conf)
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("client result: %+v", res)
	}
	lines := strings.Split(res.Content[0].Text, "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], `"text":"answer from the TypeScript client (1 message)"`) ||
		lines[1] != `{"action":"decline","content":{"error":"elicitation: not granted to guest \"v1\""}}` {
		t.Errorf("callbacks answered:\n%s", res.Content[0].Text)
	}
}

// --watch reloads a plugin like any guest: the v2 plugin's file replaced by the v1 plugin's
// is served after tools/list_changed; a failed reload keeps it serving. The stop file stops a
// plugin in a loop.
func TestExtismWatchReloadAndStop(t *testing.T) {
	v1, err := os.ReadFile(filepath.Join(extismTestdata, "v1.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	v2, err := os.ReadFile(filepath.Join(extismTestdata, "v2.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path, stop := filepath.Join(dir, "plugin.wasm"), filepath.Join(dir, "STOP")
	if err := os.WriteFile(path, v2, 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "--watch", "--stop-file", stop, path)
	s.initialize()
	if err := os.WriteFile(path, v1, 0o644); err != nil {
		t.Fatal(err)
	}
	// v1 has no prompts or resources: v2's go with it (their list_changed may come first).
	for l := s.recv(); l != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`; l = s.recv() {
		if l != `{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{}}` &&
			l != `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}}` {
			t.Fatalf("after reload: %s", l)
		}
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if l := s.recvReply(); !strings.Contains(l, `"name":"callbacks"`) {
		t.Errorf("tools after reload: %s", l)
	}
	if err := os.WriteFile(path, []byte("not wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitLog(t, s.stderr, "reload failed; the old version keeps serving")
	s.send(callLine(3, "echo", `{"text":"still here"}`))
	if _, text := toolResult(t, s.recvReply()); text != "still here" {
		t.Errorf("after a failed reload: %s", text)
	}
	s.send(callLine(4, "loop", `{}`))
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for {
		l := s.recvReply()
		if strings.Contains(l, `"method":"notifications/message"`) {
			continue // the plugin's "looping" log line
		}
		if isErr, text := toolResult(t, l); !isErr || text != `guest "plugin" tool "loop": calls are stopped by the operator` {
			t.Errorf("stopped loop: %v %q", isErr, text)
		}
		break
	}
}

// Over MCP (stdio, JSON-RPC as a client sends it): a v2 plugin's completion and its progress
// report for the call's progressToken; a v1 plugin's log lines as notifications/message at the
// level the client set.
func TestExtismCompletionProgressLogging(t *testing.T) {
	s := startServer(t, filepath.Join(extismTestdata, "v2.wasm"))
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"b"}}}`)
	if l := s.recv(); !strings.Contains(l, `"values":["prompt","b-one"]`) {
		t.Errorf("completion: %s", l)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":"p1"}}}`)
	if l := s.recv(); !strings.Contains(l, `"method":"notifications/progress"`) || !strings.Contains(l, `"progress":3`) || !strings.Contains(l, `"progressToken":"p1"`) {
		t.Errorf("progress: %s", l)
	}
	if isErr, _ := toolResult(t, s.recv()); isErr {
		t.Errorf("echo failed")
	}

	s = startServer(t, filepath.Join(extismTestdata, "v1.wasm"))
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"info"}}`)
	if l := s.recv(); !strings.Contains(l, `"id":4,"result"`) {
		t.Fatalf("setLevel: %s", l)
	}
	s.send(callLine(5, "log", `{}`))
	var logs []string
	for {
		l := s.recv()
		if strings.Contains(l, `"method":"notifications/message"`) {
			var n struct {
				Params struct {
					Level string
					Data  string
				}
			}
			json.Unmarshal([]byte(l), &n)
			logs = append(logs, n.Params.Level+":"+n.Params.Data)
			continue
		}
		if _, text := toolResult(t, l); text != "level=2" {
			t.Errorf("log: %s", l)
		}
		break
	}
	if strings.Join(logs, " ") != "info:i warning:w error:e" {
		t.Errorf("log notifications: %q", logs)
	}
}

// inspect names the plugin protocol (extism v1, extism v2), and each tool's requests line
// shows what the tool is granted against — its plugin's requests, inferred from the imports —
// not "none" under a header that lists them.
func TestInspectExtismKindAndToolRequests(t *testing.T) {
	for name, kind := range map[string]string{"v1": "extism v1", "v2": "extism v2"} {
		stdout, stderr, code := runCLI("inspect", "--cache-dir", t.TempDir(), filepath.Join(extismTestdata, name+".wasm"))
		if code != 0 {
			t.Fatalf("inspect %s: exit %d\n%s", name, code, stderr)
		}
		if !strings.Contains(stdout, "\nkind: "+kind+"\n") {
			t.Errorf("inspect %s lacks kind: %s:\n%s", name, kind, stdout)
		}
		var header string
		var tools int
		for _, line := range strings.Split(stdout, "\n") {
			if v, ok := strings.CutPrefix(line, "requests: "); ok {
				header = v
			}
			if v, ok := strings.CutPrefix(line, "    requests:  "); ok {
				tools++
				if v != header {
					t.Errorf("inspect %s: a tool requests %q under the plugin's %q", name, v, header)
				}
			}
		}
		if name == "v1" && header != `net *:*; sampling; elicitation; roots` {
			t.Errorf("inspect v1: requests %q", header)
		}
		if tools == 0 {
			t.Errorf("inspect %s: no tool requests lines:\n%s", name, stdout)
		}
	}
	stdout, _, _ := runCLI("inspect", "--json", "--cache-dir", t.TempDir(), filepath.Join(extismTestdata, "v2.wasm"))
	var o struct {
		Kind        string `json:"kind"`
		KindVersion string `json:"kind_version"`
	}
	if err := json.Unmarshal([]byte(stdout), &o); err != nil || o.Kind != "extism" || o.KindVersion != "v2" {
		t.Errorf("inspect --json: %+v %v", o, err)
	}
}

// A hyper-mcp v2 plugin's "context" carries the MCP request's JSON-RPC id and _meta
// (progressToken included), as hyper-mcp passes them; it was {"id":0,"_meta":{}}.
func TestExtismV2ContextCarriesRequest(t *testing.T) {
	s := startServer(t, filepath.Join(extismTestdata, "v2.wasm"))
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":"ctx-9","method":"tools/call","params":{"name":"echo","arguments":{"x":1},"_meta":{"progressToken":"p1","trace":{"span":7}}}}`)
	var text string
	for {
		l := s.recv()
		if strings.Contains(l, `"method":"notifications/progress"`) {
			continue
		}
		_, text = toolResult(t, l)
		break
	}
	if want := `{"context":{"id":"ctx-9","_meta":{"progressToken":"p1","trace":{"span":7}}},"request":{"name":"echo","arguments":{"x":1}}}`; text != want {
		t.Errorf("the plugin got %s\nwant %s", text, want)
	}
	s.send(`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if _, text := toolResult(t, s.recv()); !strings.HasPrefix(text, `{"context":{"id":41,"_meta":{}},`) {
		t.Errorf("without _meta the plugin got %s", text)
	}
}

// A plugin whose call changes its tool and prompt lists (and reports it many times): the
// client receives notifications/tools/list_changed and notifications/prompts/list_changed,
// then tools/list and prompts/list show the new lists and the new tool can be called.
func TestExtismListChangedOverMCP(t *testing.T) {
	s := startServer(t, filepath.Join(extismTestdata, "dyn.wasm"))
	s.initialize()
	tools := func(id int) string {
		t.Helper()
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
		var r struct {
			Result struct{ Tools []struct{ Name string } }
		}
		for {
			l := s.recv()
			if strings.Contains(l, `"method":"notifications/`) {
				continue
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range r.Result.Tools {
				names = append(names, tl.Name)
			}
			return strings.Join(names, " ")
		}
	}
	if got := tools(2); got != "grow lists quiet touch" {
		t.Fatalf("tools at start: %s", got)
	}
	s.send(callLine(3, "grow", `{}`))
	seen := map[string]bool{}
	for !(seen["result"] && seen["tools"] && seen["prompts"]) {
		l := s.recv()
		switch {
		case strings.Contains(l, `"method":"notifications/tools/list_changed"`):
			seen["tools"] = true
		case strings.Contains(l, `"method":"notifications/prompts/list_changed"`):
			seen["prompts"] = true
		case strings.Contains(l, `"id":3,`):
			if _, text := toolResult(t, l); text != "extra=1" {
				t.Fatalf("grow: %s", l)
			}
			seen["result"] = true
		}
	}
	if got := tools(4); got != "extra1 grow lists quiet touch" {
		t.Errorf("tools after grow: %s", got)
	}
	s.send(callLine(5, "extra1", `{}`))
	if _, text := toolResult(t, s.recvReply()); text != "extra tool of 1" {
		t.Errorf("extra1: %q", text)
	}
	s.send(`{"jsonrpc":"2.0","id":6,"method":"prompts/list"}`)
	if l := s.recvReply(); !strings.Contains(l, `"name":"more"`) {
		t.Errorf("prompts/list: %s", l)
	}
	// notify_resource_updated reaches a session subscribed to the resource.
	s.send(`{"jsonrpc":"2.0","id":7,"method":"resources/subscribe","params":{"uri":"dyn://state"}}`)
	if l := s.recvReply(); !strings.Contains(l, `"id":7,"result"`) {
		t.Fatalf("subscribe: %s", l)
	}
	s.send(callLine(8, "touch", `{}`))
	for updated, result := false, false; !updated || !result; {
		l := s.recv()
		updated = updated || strings.Contains(l, `"method":"notifications/resources/updated"`) && strings.Contains(l, `"uri":"dyn://state"`)
		result = result || strings.Contains(l, `"id":8,`)
	}
}

// Two plugins naming a tool alike: serve refuses to start, naming both guests and the config
// key that resolves it; with "tool_prefix" on one, both are served and the prefixed tool
// reaches its plugin under its own name.
func TestExtismSameToolNameTwoPlugins(t *testing.T) {
	plugin, err := filepath.Abs(filepath.Join(extismTestdata, "v1.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	conf := writeConfig(t, fmt.Sprintf(`{"guests": [{"name": "a", "path": %q}, {"name": "b", "path": %q}]}`, plugin, plugin))
	_, stderr, code := runCLI("serve", "--cache-dir", t.TempDir(), "--config", conf)
	if want := `tool "echo" of guest "b" is already provided by guest "a"; to serve both, give one a tool prefix (config: "tool_prefix" of the guest`; code == 0 || !strings.Contains(stderr, want) {
		t.Fatalf("serve: exit %d, stderr %s\nwant it to contain %s", code, stderr, want)
	}
	conf = writeConfig(t, fmt.Sprintf(`{"guests": [{"name": "a", "path": %q}, {"name": "b", "path": %q, "tool_prefix": "b_",
		"tools": {"b_config": {"limits": {"timeout_ms": 5000}}}, "config": {"greeting": "from b"}}]}`, plugin, plugin))
	s := startServer(t, "--config", conf)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if l := s.recv(); !strings.Contains(l, `"name":"echo"`) || !strings.Contains(l, `"name":"b_echo"`) || !strings.Contains(l, `"name":"b_config"`) {
		t.Fatalf("tools/list: %s", l)
	}
	s.send(callLine(3, "b_config", `{}`))
	if _, text := toolResult(t, s.recv()); text != "greeting=from b; missing unset" {
		t.Errorf("b_config: %q", text)
	}
}

// A v1 and a v2 plugin driven by the TypeScript SDK's client, over stdio and over Streamable
// HTTP (issue 25's must-show): tools/list, tools/call, logging at the level the client set,
// progress for the client's token, and for v2 prompts, resource templates, resources/read and
// completion. The client (testdata/interop/plugin-client.mjs) uses what the capabilities say;
// progress it reports late (after the response, typescript-sdk#2580) counts as received.
func TestExtismPluginsThroughTypeScriptClient(t *testing.T) {
	type seen struct {
		Tools     []string `json:"tools"`
		Log       string   `json:"log"`
		Echo      string   `json:"echo"`
		Progress  []float64
		Prompts   []string `json:"prompts"`
		Prompt    string   `json:"prompt"`
		Resources []string `json:"resources"`
		Templates []string `json:"templates"`
		Read      string   `json:"read"`
		Complete  []string `json:"complete"`
		Logs      []string `json:"logs"`
	}
	v1Tools := []string{"alloc", "badjson", "callbacks", "config", "echo", "fail", "grow", "http", "kernel", "log", "loop", "trap", "vars"}
	want := map[string]seen{
		"v1": {Tools: v1Tools, Log: "level=2", Echo: "héllo ✓", Progress: []float64{}, Logs: []string{"info:i", "warning:w", "error:e"}},
		"v2": {Tools: []string{"echo", "fail"}, Progress: []float64{3}, Prompts: []string{"greet"}, Prompt: "hello ann",
			Resources: []string{"mem://readme"}, Templates: []string{"mem://notes/{id}"}, Read: "content of mem://notes/7",
			Complete: []string{"prompt", "b-one"}, Logs: []string{}},
	}
	for _, plugin := range []string{"v1", "v2"} {
		path, err := filepath.Abs(filepath.Join(extismTestdata, plugin+".wasm"))
		if err != nil {
			t.Fatal(err)
		}
		for _, transport := range []string{"stdio", "http"} {
			t.Run(plugin+"/"+transport, func(t *testing.T) {
				args := []string{"testdata/interop/plugin-client.mjs", "stdio", "--", binPath, "serve", "--cache-dir", cacheDir, path}
				if transport == "http" {
					base, _ := startHTTP(t, path)
					args = []string{"testdata/interop/plugin-client.mjs", "http", base + "/mcp"}
				}
				var got seen
				stderr := runInteropClient(t, &got, args...)
				w := want[plugin]
				if plugin == "v2" {
					// v2's echo answers the whole call_tool input: the request, with the
					// client's arguments, and the context.
					if !strings.Contains(got.Echo, `"arguments":{"text":"héllo ✓"}`) || !strings.Contains(got.Echo, `"context":{"id":`) {
						t.Errorf("v2 echo = %s", got.Echo)
					}
					w.Echo = got.Echo
				}
				if diff := cmp.Diff(w, got); diff != "" {
					t.Errorf("the TypeScript client saw (-want +got):\n%s\nstderr:\n%s", diff, stderr)
				}
			})
		}
	}
}
