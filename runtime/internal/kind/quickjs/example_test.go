package quickjs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpwasm/mcpwasm/abi/js"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

// exampleDir is the TypeScript example guest (an npm project; npm ci there installs esbuild,
// quickjs-wasi and zod).
var exampleDir = filepath.Join("..", "..", "..", "..", "guests", "typescript")

// built caches buildExample's modules by entry: each build runs node and the engine.
var built sync.Map

// buildExample runs the example's build (mcpwasm/build.mjs) into a temporary file and
// returns the module.
func buildExample(t testing.TB, entry string) []byte {
	t.Helper()
	// The build runs in a child process: read its inputs here, so that go test's result
	// cache (keyed by the files a test opens) never replays a PASS for edited sources.
	for _, f := range []string{"mcpwasm/shim.js", "mcpwasm/sdk.js", "mcpwasm/build.mjs", "server.ts", "package.json", "package-lock.json"} {
		if _, err := os.ReadFile(filepath.Join(exampleDir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if b, ok := built.Load(entry); ok {
		return b.([]byte)
	}
	engineBytes(t) // installed?
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Skip(t, "node is not installed: %v", err)
	}
	if err := js.Sync(filepath.Join(exampleDir, "mcpwasm")); err != nil { // generated from abi/js
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "guest.wasm")
	cmd := exec.Command(node, "mcpwasm/build.mjs", entry, out)
	cmd.Dir = exampleDir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", entry, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	built.Store(entry, b)
	return b
}

// startModule instantiates the engine and starts the script of module (its mcpwasm.js section).
func startModule(t testing.TB, module []byte, call *Call) *VM {
	t.Helper()
	script, err := Script(module)
	if err != nil {
		t.Fatal(err)
	}
	e := instantiate(t, call)
	vm, err := Start(WithCall(context.Background(), call), e, script, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

func TestTypeScriptExample(t *testing.T) {
	call := &Call{}
	module := buildExample(t, "server.ts")
	vm := startModule(t, module, call)
	for _, c := range []struct {
		entry, params, want string
	}{
		{EntryDescribe, `{}`, `{"name":"typescript","version":"0.1.0","tools":[{"name":"greet","title":"Greet","description":"Greets someone by name","annotations":{"readOnlyHint":true,"openWorldHint":false},"inputSchema":{"type":"object","properties":{"name":{"type":"string","minLength":1,"description":"who to greet"},"times":{"default":1,"type":"integer","minimum":1,"maximum":3}},"required":["name"]},"outputSchema":{"type":"object","properties":{"greeting":{"type":"string"}},"required":["greeting"],"additionalProperties":false}},{"name":"fetch_text","description":"Fetches a URL and returns the first 2000 characters of its body (needs a net grant)","inputSchema":{"type":"object","properties":{"url":{"type":"string","format":"uri","description":"an http or https URL"}},"required":["url"]}}],"resourceTemplates":[{"uriTemplate":"note://{id}","name":"note","title":"A note","mimeType":"text/plain"}],"prompts":[{"name":"review","description":"Asks for a code review","arguments":[{"name":"code","required":true},{"name":"language"}]}],"completions":true,"requests":{"net":["*:*"]}}`},
		{EntryCallTool, `{"name":"greet","arguments":{"name":"Ada","times":2}}`, `{"content":[{"type":"text","text":"hello, Ada hello, Ada"}],"structuredContent":{"greeting":"hello, Ada hello, Ada"}}`},
		{EntryCallTool, `{"name":"greet","arguments":{"name":"Ada"}}`, `{"content":[{"type":"text","text":"hello, Ada"}],"structuredContent":{"greeting":"hello, Ada"}}`},
		{EntryReadResource, `{"uri":"note://42"}`, `{"contents":[{"uri":"note://42","text":"note 42"}]}`},
		{EntryGetPrompt, `{"name":"review","arguments":{"code":"x=1"}}`, `{"messages":[{"role":"user","content":{"type":"text","text":"Please review:\n\nx=1"}}]}`},
		{EntryGetPrompt, `{"name":"review","arguments":{"code":"x=1","language":"go"}}`, `{"messages":[{"role":"user","content":{"type":"text","text":"Please review this go:\n\nx=1"}}]}`},
		{EntryComplete, `{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"language","value":"r"}}`, `{"completion":{"values":["rust"],"total":1,"hasMore":false}}`},
		{EntryComplete, `{"ref":{"type":"ref/resource","uri":"note://{id}"},"argument":{"name":"id","value":"4"}}`, `{"completion":{"values":["42"],"total":1,"hasMore":false}}`},
	} {
		out, err := vm.Run(WithCall(context.Background(), call), c.entry, []byte(c.params))
		if err != nil {
			t.Fatalf("%s %s: %v", c.entry, c.params, err)
		}
		if string(out) != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.entry, c.params, out, c.want)
		}
	}
	// The bytecode section is what started vm; the source alone gives the same guest.
	code, err := Script(module)
	if err != nil || len(code.Bytecode) == 0 {
		t.Fatalf("the build wrote no bytecode section (%v)", err)
	}
	fromBytecode, err := vm.Run(WithCall(context.Background(), call), EntryDescribe, nil)
	if err != nil {
		t.Fatal(err)
	}
	other := &Call{}
	fromSource, err := startModule(t, WithScript(engineBytes(t), code.Source), other).Run(WithCall(context.Background(), other), EntryDescribe, nil)
	if err != nil || string(fromSource) != string(fromBytecode) {
		t.Fatalf("from the source: %s, %v; want %s", fromSource, err, fromBytecode)
	}
	_, err = vm.Run(WithCall(context.Background(), call), EntryCallTool, []byte(`{"name":"greet","arguments":{"name":"Ada","times":5}}`))
	var ee *EntryError
	if want := "Input validation error: Invalid arguments for tool greet: times: Too big: expected number to be <=3"; !errors.As(err, &ee) || ee.Code != -32602 || ee.Message != want {
		t.Fatalf("times 5: %v, want -32602 %q", err, want)
	}
}

// sdkExamples is where testdata/interop installs the TypeScript SDK 1.32.2 (npm ci there).
var sdkExamples = filepath.Join("..", "..", "..", "..", "testdata", "interop", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server")

// sdkExample returns the SDK's own example server file with only its relative SDK imports
// pointed at the package name, built into a guest.
func sdkExample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sdkExamples, name))
	if err != nil {
		testenv.Skip(t, "the TypeScript SDK is not installed (run: npm ci --prefix testdata/interop): %v", err)
	}
	src := strings.ReplaceAll(string(b), "'../../server/", "'@modelcontextprotocol/sdk/server/")
	entry := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(entry)
	if err != nil {
		t.Fatal(err)
	}
	return buildExample(t, abs)
}

// The SDK's mcpServerOutputSchema example (zod/v4 input and output shapes) runs unchanged:
// tools/list shows the JSON Schemas from the shapes; get_weather answers structured content
// that meets its output schema; a wrong argument type is invalid params naming the field.
func TestSDKExampleOutputSchema(t *testing.T) {
	var logs []string
	call := &Call{Log: func(level, msg string) { logs = append(logs, level+": "+msg) }}
	vm := startModule(t, sdkExample(t, "mcpServerOutputSchema.js"), call)
	ctx := WithCall(context.Background(), call)
	m, err := vm.Run(ctx, EntryDescribe, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"mcp-output-schema-high-level-example","version":"1.0.0","tools":[{"name":"get_weather","description":"Get weather information for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string","description":"City name"},"country":{"type":"string","description":"Country code (e.g., US, UK)"}},"required":["city","country"]},"outputSchema":{"type":"object","properties":{"temperature":{"type":"object","properties":{"celsius":{"type":"number"},"fahrenheit":{"type":"number"}},"required":["celsius","fahrenheit"],"additionalProperties":false},"conditions":{"type":"string","enum":["sunny","cloudy","rainy","stormy","snowy"]},"humidity":{"type":"number","minimum":0,"maximum":100},"wind":{"type":"object","properties":{"speed_kmh":{"type":"number"},"direction":{"type":"string"}},"required":["speed_kmh","direction"],"additionalProperties":false}},"required":["temperature","conditions","humidity","wind"],"additionalProperties":false}}],"requests":{"random":true}}` // requests: inferred from Math.random
	if string(m) != want {
		t.Fatalf("manifest\n got %s\nwant %s", m, want)
	}
	if len(logs) != 1 || logs[0] != "error: High-level Output Schema Example Server running on stdio" {
		t.Errorf("logs at load %q", logs)
	}
	out, err := vm.Run(ctx, EntryCallTool, []byte(`{"name":"get_weather","arguments":{"city":"Paris","country":"FR"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Content           []struct{ Type, Text string }
		StructuredContent struct {
			Temperature struct{ Celsius, Fahrenheit float64 }
			Conditions  string
			Humidity    float64
			Wind        struct {
				SpeedKmh  float64 `json:"speed_kmh"`
				Direction string
			}
		}
		IsError bool
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	sc := res.StructuredContent
	if res.IsError || len(res.Content) != 1 || sc.Conditions == "" || sc.Wind.Direction == "" || sc.Humidity < 0 || sc.Humidity > 100 {
		t.Fatalf("get_weather: %s", out)
	}
	_, err = vm.Run(ctx, EntryCallTool, []byte(`{"name":"get_weather","arguments":{"city":7,"country":"FR"}}`))
	var ee *EntryError
	if want := "Input validation error: Invalid arguments for tool get_weather: city: Invalid input: expected string, received number"; !errors.As(err, &ee) || ee.Code != -32602 || ee.Message != want {
		t.Fatalf("city 7: %v, want -32602 %q", err, want)
	}
}

// The SDK's toolWithSampleServer example reaches the client's sampling through its request
// kind: the sandbox decides (granted here; denied is a tool error with the sandbox's reason).
func TestSDKExampleSampling(t *testing.T) {
	sb := &samplingSandbox{}
	call := &Call{Sandbox: sb}
	vm := startModule(t, sdkExample(t, "toolWithSampleServer.js"), call)
	ctx := WithCall(context.Background(), call)
	out, err := vm.Run(ctx, EntryCallTool, []byte(`{"name":"summarize","arguments":{"text":"a long text"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"short"}]}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	if want := `sampling {"messages":[{"role":"user","content":{"type":"text","text":"Please summarize the following text concisely:\n\na long text"}}],"maxTokens":500}`; len(sb.seen) != 1 || sb.seen[0] != want {
		t.Fatalf("requests %q, want %q", sb.seen, want)
	}
	sb.deny = true
	out, err = vm.Run(ctx, EntryCallTool, []byte(`{"name":"summarize","arguments":{"text":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"sampling: not granted to guest \"x\""}],"isError":true}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
}

type samplingSandbox struct {
	seen []string
	deny bool
}

func (s *samplingSandbox) Request(_ context.Context, kind string, body []byte) (abi.Status, []byte) {
	s.seen = append(s.seen, kind+" "+string(body))
	if s.deny {
		return abi.StatusDenied, []byte(`{"error":"sampling: not granted to guest \"x\""}`)
	}
	return abi.StatusOK, []byte(`{"role":"assistant","content":{"type":"text","text":"short"},"model":"m","stopReason":"endTurn"}`)
}

// The SDK's progressExample reports progress through extra.sendNotification with the
// request's progress token, and its timers fire without waiting (no clock grant).
func TestSDKExampleProgress(t *testing.T) {
	var got []string
	call := &Call{Progress: func(p, total float64, msg string) { got = append(got, fmt.Sprintf("%g/%g %s", p, total, msg)) }}
	vm := startModule(t, sdkExample(t, "progressExample.js"), call)
	out, err := vm.Run(WithCall(context.Background(), call), EntryCallTool, []byte(`{"name":"count","arguments":{"n":3},"_meta":{"progressToken":"t1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"Counted to 3"}]}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	if want := []string{"1/3 Counting: 1/3", "2/3 Counting: 2/3", "3/3 Counting: 3/3"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("progress %q, want %q", got, want)
	}
}

// A built server (zod bundled) with inputSchema {} lists the SDK's empty object schema, and
// its handler gets the arguments zod parsed against the empty object (unknown keys dropped,
// as in the SDK) and extra.
func TestBuiltEmptyShape(t *testing.T) {
	entry := filepath.Join(t.TempDir(), "empty.ts")
	src := `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
const server = new McpServer({ name: "empty", version: "1.0.0" });
server.registerTool("spin", { inputSchema: {}, outputSchema: {} }, async (args, extra) => ({ content: [{ type: "text", text: JSON.stringify(args) + " " + typeof extra.signal }], structuredContent: {} }));
server.registerTool("n", { inputSchema: { n: z.number() } }, async ({ n }) => ({ content: [{ type: "text", text: String(n) }] }));
await server.connect();
`
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(entry)
	if err != nil {
		t.Fatal(err)
	}
	call := &Call{}
	vm := startModule(t, buildExample(t, abs), call)
	ctx := WithCall(context.Background(), call)
	m, err := vm.Run(ctx, EntryDescribe, nil)
	if want := `{"name":"empty","version":"1.0.0","tools":[{"name":"spin","inputSchema":{"type":"object","properties":{}},"outputSchema":{"type":"object","properties":{},"additionalProperties":false}},{"name":"n","inputSchema":{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}}]}`; err != nil || string(m) != want {
		t.Fatalf("describe: %s, %v\nwant %s", m, err, want)
	}
	out, err := vm.Run(ctx, EntryCallTool, []byte(`{"name":"spin","arguments":{"extra":1}}`))
	if want := `{"content":[{"type":"text","text":"{} object"}],"structuredContent":{}}`; err != nil || string(out) != want {
		t.Fatalf("spin: %s, %v; want %s", out, err, want)
	}
}
