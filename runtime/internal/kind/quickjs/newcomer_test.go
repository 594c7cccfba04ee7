package quickjs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
)

// A timer an earlier call left behind that throws does not fail the call running when it
// fires: its throw goes to the log as the guest's error, naming the timer, and that call
// answers as it would have.
func TestStrayTimerThrowIsLoggedNotBlamed(t *testing.T) {
	var logs []string
	call := &Call{Log: func(level, msg string) { logs = append(logs, level+": "+msg) }}
	vm := start(t, `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "imp", version: "1" });
server.registerTool("a", {}, () => { setTimeout(() => { throw new Error("A's stray timer"); }, 10); return { content: [{ type: "text", text: "a" }] }; });
server.registerTool("b", {}, async () => { await new Promise((r) => setTimeout(r, 50)); return { content: [{ type: "text", text: "b" }] }; });
`, call, 32<<20)
	for _, c := range []struct{ tool, want string }{{"a", `{"content":[{"type":"text","text":"a"}]}`}, {"b", `{"content":[{"type":"text","text":"b"}]}`}} {
		out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": c.tool, "arguments": map[string]any{}})
		if err != nil || string(out) != c.want {
			t.Fatalf("%s: %s, %v; want %s", c.tool, out, err, c.want)
		}
	}
	if len(logs) != 1 || !strings.HasPrefix(logs[0], "error: uncaught exception in a timer callback: Error: A's stray timer\n") {
		t.Fatalf("logs %q, want one error naming the timer's throw", logs)
	}
}

// A script's own failure during a call or its start reads as the guest's failure (a trap),
// not as a breach of the ABI; an engine that is not quickjs-wasi is one.
func TestScriptFailureIsATrap(t *testing.T) {
	s := &started{}
	c := &kind.Call{}
	err := s.fault(fmt.Errorf("%w: calling the shim: Error: boom", ErrScript), c)
	if !errors.Is(err, fault.ErrTrap) || errors.Is(err, fault.ErrABI) || err.Error() != "guest trapped: script failed: calling the shim: Error: boom" {
		t.Fatalf("script error: %v", err)
	}
	if err := s.fault(fmt.Errorf("%w: export \"qjs_init\" is missing", ErrEngine), c); !errors.Is(err, fault.ErrABI) {
		t.Fatalf("engine error: %v", err)
	}
}

// The host reads a guest's tools once, at start: a handler that enables a hidden tool or
// registers a new one is told so, once, by a warning in the log naming the tool and the
// operation; changes during the script's start are quiet.
func TestToolChangeAfterStartWarnsOnce(t *testing.T) {
	var logs []string
	call := &Call{Log: func(level, msg string) { logs = append(logs, level+": "+msg) }}
	vm := start(t, `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "imp", version: "1" });
const hidden = server.registerTool("hidden", {}, () => ({ content: [] }));
hidden.disable();
server.registerTool("change", {}, () => {
  hidden.enable();
  server.registerTool("added", {}, () => ({ content: [] }));
  return { content: [{ type: "text", text: "changed" }] };
});
`, call, 32<<20)
	if m, err := run(t, vm, call, EntryDescribe, nil); err != nil || string(m) != `{"name":"imp","version":"1","tools":[{"name":"change","inputSchema":{"type":"object","properties":{}}}]}` {
		t.Fatalf("describe: %s, %v", m, err)
	}
	if len(logs) != 0 {
		t.Fatalf("logs at start %q, want none", logs)
	}
	for range 2 { // the second call's registerTool throws "already registered": a tool error
		if _, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "change", "arguments": map[string]any{}}); err != nil {
			t.Fatal(err)
		}
	}
	want := `warning: mcpwasm reads a guest's tool list once, at start: enable() of tool "hidden" after start is not served (tools/list does not change; neither does it for later changes)`
	if len(logs) != 1 || logs[0] != want {
		t.Fatalf("logs %q, want [%q]", logs, want)
	}
}

// buildSource builds src, a server file in a fresh directory (with files, by path, beside
// it: a node_modules there is resolved before the example's), into a guest.
func buildSource(t *testing.T, src string, files map[string]string) []byte {
	t.Helper()
	dir := t.TempDir()
	files["server.ts"] = src
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs, err := filepath.Abs(filepath.Join(dir, "server.ts"))
	if err != nil {
		t.Fatal(err)
	}
	return buildExample(t, abs)
}

// node:buffer (and buffer) is the global Buffer, node:timers/promises the promise form of
// the shim's timers; importing the latter asks for the clock, as setTimeout does.
func TestBuildServesNodeBufferAndTimerPromises(t *testing.T) {
	module := buildSource(t, `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Buffer } from "node:buffer";
import B from "buffer";
import { setTimeout as sleep } from "node:timers/promises";
const server = new McpServer({ name: "nodeish", version: "1" });
server.registerTool("b64", {}, async () => {
  const v = await sleep(20, "slept");
  return { content: [{ type: "text", text: [Buffer.from("hi").toString("base64"), B.Buffer === globalThis.Buffer, v].join(" ") }] };
});
await server.connect();
`, map[string]string{})
	call := &Call{}
	vm := startModule(t, module, call)
	if m, err := run(t, vm, call, EntryDescribe, nil); err != nil || !strings.HasSuffix(string(m), `"requests":{"clock":true}}`) {
		t.Fatalf("describe: %s, %v; want requests {clock: true}", m, err)
	}
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "b64", "arguments": map[string]any{}})
	if want := `{"content":[{"type":"text","text":"aGk= true slept"}]}`; err != nil || string(out) != want {
		t.Fatalf("b64: %s, %v; want %s", out, err, want)
	}
}

// A package whose default build imports a Node built-in and whose "browser" export condition
// uses the web platform (as nanoid's) is bundled from its browser build.
func TestBuildPicksBrowserCondition(t *testing.T) {
	module := buildSource(t, `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { pick } from "fixrand";
const server = new McpServer({ name: "browserish", version: "1" });
server.registerTool("pick", {}, () => ({ content: [{ type: "text", text: pick() }] }));
`, map[string]string{
		"node_modules/fixrand/package.json": `{"name":"fixrand","version":"1.0.0","type":"module","exports":{".":{"browser":"./browser.js","default":"./node.js"}}}`,
		"node_modules/fixrand/node.js":      `import { randomFillSync } from "node:crypto";` + "\nexport const pick = () => \"node \" + randomFillSync(new Uint8Array(2)).length;\n",
		"node_modules/fixrand/browser.js":   "export const pick = () => \"browser \" + crypto.getRandomValues(new Uint8Array(2)).length;\n",
	})
	call := &Call{}
	vm := startModule(t, module, call)
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "pick", "arguments": map[string]any{}})
	if want := `{"content":[{"type":"text","text":"browser 2"}]}`; err != nil || string(out) != want {
		t.Fatalf("pick: %s, %v; want %s", out, err, want)
	}
}

// A ResourceTemplate's list callback is not called (resources/list is served from the lists
// read at start): the manifest shows the template only, and describe says so once.
func TestTemplateListCallbackSaidOnce(t *testing.T) {
	var logs []string
	call := &Call{Log: func(level, msg string) { logs = append(logs, level+": "+msg) }}
	vm := start(t, `
const { McpServer, ResourceTemplate } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "imp", version: "1" });
server.registerResource("item", new ResourceTemplate("item://{id}", { list: async () => ({ resources: [{ uri: "item://1", name: "one" }] }) }), {}, async (uri, { id }) => ({ contents: [{ uri: uri.href, text: id }] }));
`, call, 32<<20)
	for range 2 {
		m, err := run(t, vm, call, EntryDescribe, nil)
		if want := `{"name":"imp","version":"1","tools":[],"resourceTemplates":[{"uriTemplate":"item://{id}","name":"item"}]}`; err != nil || string(m) != want {
			t.Fatalf("describe: %s, %v; want %s", m, err, want)
		}
	}
	want := `warning: ResourceTemplate "item": a list callback is not called by mcpwasm: resources/list shows the template, not the resources list would return (the lists are read once, at start)`
	if len(logs) != 1 || logs[0] != want {
		t.Fatalf("logs %q, want [%q]", logs, want)
	}
}
