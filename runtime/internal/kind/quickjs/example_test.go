package quickjs

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/tetratelabs/wazero"
)

// exampleDir is the TypeScript example guest (an npm project; npm ci there installs esbuild,
// quickjs-wasi and zod).
var exampleDir = filepath.Join("..", "..", "..", "..", "guests", "typescript")

// buildExample runs the example's build (mcpwasm/build.mjs) into a temporary file and
// returns the module.
func buildExample(t testing.TB, entry string) []byte {
	t.Helper()
	engineBytes(t) // installed?
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Skip(t, "node is not installed: %v", err)
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
	return b
}

// startModule instantiates the engine and starts the script of module (its mcpwasm.js section).
func startModule(t testing.TB, module []byte, call *Call) *VM {
	t.Helper()
	script, err := Script(module)
	if err != nil {
		t.Fatal(err)
	}
	r := runtimeFor(t)
	ctx := WithCall(context.Background(), call)
	mod, err := r.r.InstantiateModule(ctx, r.compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mod.Close(context.Background()) })
	vm, err := Start(ctx, mod, Plain, script, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

func TestTypeScriptExample(t *testing.T) {
	call := &Call{}
	vm := startModule(t, buildExample(t, "server.ts"), call)
	for _, c := range []struct {
		entry, params, want string
	}{
		{EntryDescribe, `{}`, `{"name":"typescript","version":"0.1.0","tools":[{"name":"greet","title":"Greet","description":"Greets someone by name","annotations":{"readOnlyHint":true,"openWorldHint":false},"inputSchema":{"type":"object","properties":{"name":{"type":"string","minLength":1,"description":"who to greet"},"times":{"default":1,"type":"integer","minimum":1,"maximum":3}},"required":["name"]},"outputSchema":{"type":"object","properties":{"greeting":{"type":"string"}},"required":["greeting"],"additionalProperties":false}},{"name":"fetch_text","description":"Fetches a URL and returns the first 2000 characters of its body (needs a net grant)","inputSchema":{"type":"object","properties":{"url":{"type":"string","format":"uri","description":"an http or https URL"}},"required":["url"]}}],"resourceTemplates":[{"uriTemplate":"note://{id}","name":"note","title":"A note","mimeType":"text/plain"}],"prompts":[{"name":"review","description":"Asks for a code review","arguments":[{"name":"code","required":true}]}],"requests":{"net":["*"]}}`},
		{EntryCallTool, `{"name":"greet","arguments":{"name":"Ada","times":2}}`, `{"content":[{"type":"text","text":"hello, Ada hello, Ada"}],"structuredContent":{"greeting":"hello, Ada hello, Ada"}}`},
		{EntryCallTool, `{"name":"greet","arguments":{"name":"Ada"}}`, `{"content":[{"type":"text","text":"hello, Ada"}],"structuredContent":{"greeting":"hello, Ada"}}`},
		{EntryReadResource, `{"uri":"note://42"}`, `{"contents":[{"uri":"note://42","text":"note 42"}]}`},
		{EntryGetPrompt, `{"name":"review","arguments":{"code":"x=1"}}`, `{"messages":[{"role":"user","content":{"type":"text","text":"Please review:\n\nx=1"}}]}`},
	} {
		out, err := vm.Run(WithCall(context.Background(), call), c.entry, []byte(c.params))
		if err != nil {
			t.Fatalf("%s %s: %v", c.entry, c.params, err)
		}
		if string(out) != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.entry, c.params, out, c.want)
		}
	}
	_, err := vm.Run(WithCall(context.Background(), call), EntryCallTool, []byte(`{"name":"greet","arguments":{"name":"Ada","times":5}}`))
	var ee *EntryError
	if want := "Input validation error: Invalid arguments for tool greet: times: Too big: expected number to be <=3"; !errors.As(err, &ee) || ee.Code != -32602 || ee.Message != want {
		t.Fatalf("times 5: %v, want -32602 %q", err, want)
	}
}
