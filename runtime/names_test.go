package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/runtime"
)

// A JavaScript guest names its server, tools and prompts as the TypeScript SDK allows under
// Node: it loads, each name outside abi.NamePattern is served as names.MapName maps it (the
// gateway's rule), a call or prompt of the served name reaches the handler of the declared
// one, each mapping is logged once, and the guest is named from its display name. Before, the
// load failed: `guest name "Weather Server" does not match ^[a-zA-Z0-9_-]{1,64}$`.
func TestJavaScriptForeignNames(t *testing.T) {
	wasm := testenv.BuildJS(t, "..", "names.js")
	h, logs := newHost(t)
	ctx := context.Background()
	g, err := h.Load(ctx, wasm, &runtime.GuestConfig{Source: "names.wasm"})
	if err != nil {
		t.Fatal(err)
	}
	long := "read_" + strings.Repeat("x", 95)
	longServed := "read_" + strings.Repeat("x", 50) + "_3922af47"
	if g.Name() != "weather-server" {
		t.Errorf("guest name %q, want weather-server", g.Name())
	}
	var tools, prompts []string
	for _, td := range g.Manifest().Tools {
		tools = append(tools, td.Name)
	}
	for _, p := range g.Manifest().Prompts {
		prompts = append(prompts, p.Name)
	}
	if want := []string{"files_read_601e4eb6", longServed, "plain"}; strings.Join(tools, " ") != strings.Join(want, " ") {
		t.Errorf("tools %q, want %q", tools, want)
	}
	if want := "greet_formal_b3f71835"; strings.Join(prompts, " ") != want {
		t.Errorf("prompts %q, want [%q]", prompts, want)
	}
	if got := call(t, g, "files_read_601e4eb6", `{"path":"/a"}`); got != `{"content":[{"type":"text","text":"files.read /a"}]}` {
		t.Errorf("files_read: %s", got)
	}
	if got := call(t, g, longServed, `{}`); got != `{"content":[{"type":"text","text":"long"}]}` {
		t.Errorf("%s: %s", longServed, got)
	}
	if _, err := g.Call(ctx, "files.read", []byte(`{"path":"/a"}`)); err == nil || !strings.Contains(err.Error(), `unknown tool "files.read"`) {
		t.Errorf("the declared name is not served: %v", err)
	}
	out, err := g.GetPrompt(ctx, "greet_formal_b3f71835", []byte(`{"who":"Ada"}`))
	if err != nil || !strings.Contains(string(out), `"text":"Good day, Ada"`) {
		t.Errorf("prompt: %s, %v", out, err)
	}
	// A completion of the served prompt's argument reaches the declared prompt's completer.
	out, err = g.Complete(ctx, []byte(`{"ref":{"type":"ref/prompt","name":"greet_formal_b3f71835"},"argument":{"name":"who","value":"Al"}}`))
	if err != nil || string(out) != `{"completion":{"values":["Alan"],"total":1,"hasMore":false}}` {
		t.Errorf("complete: %s, %v", out, err)
	}
	l := logs.String()
	for _, want := range []string{
		`msg="guest name outside ^[a-zA-Z0-9_-]{1,64}$ served under a derived name" name="Weather Server" guest=weather-server`,
		`msg="name outside ^[a-zA-Z0-9_-]{1,64}$ served under a mapped name" guest=weather-server tool=files.read served_as=files_read_601e4eb6`,
		`tool=` + long + ` served_as=` + longServed,
		`guest=weather-server prompt=greet.formal served_as=` + "greet_formal_b3f71835",
	} {
		if n := strings.Count(l, want); n != 1 {
			t.Errorf("log has %d of %q, want 1:\n%s", n, want, l)
		}
	}
	if strings.Contains(l, "tool=plain") {
		t.Errorf("a name that fits is logged as mapped:\n%s", l)
	}

	// Limits name a tool as it is served; the declared name gets a hint.
	if _, err := h.Load(ctx, wasm, &runtime.GuestConfig{Name: "w3", ToolLimits: map[string]runtime.Limits{"files.read": {Timeout: time.Second}}}); err == nil ||
		err.Error() != `guest "w3": limits given for unknown tool "files.read" (it is served as "files_read_601e4eb6")` {
		t.Errorf("limits for the declared name: %v", err)
	}

	// The config's name still overrides the display name, and must match the pattern.
	g2, err := h.Load(ctx, wasm, &runtime.GuestConfig{Name: "weather2"})
	if err != nil || g2.Name() != "weather2" {
		t.Errorf("config name: %v, %v", g2, err)
	}
	if _, err := h.Load(ctx, wasm, &runtime.GuestConfig{Name: "Weather Server"}); err == nil || !strings.Contains(err.Error(), `guest name "Weather Server" does not match ^[a-zA-Z0-9_-]{1,64}$`) {
		t.Errorf("a config name outside the pattern: %v", err)
	}
}

// Two names a JavaScript guest declares that would be served alike refuse the load with an
// error naming both.
func TestJavaScriptNameCollision(t *testing.T) {
	wasm := testenv.BuildJS(t, "..", "names-collide.js")
	h, _ := newHost(t)
	_, err := h.Load(context.Background(), wasm, &runtime.GuestConfig{Source: "collide.wasm"})
	want := `guest "collide": tools "a.b" and "a_b_2e7336dc" are both served as "a_b_2e7336dc" (a name outside ^[a-zA-Z0-9_-]{1,64}$ is served with "_" for other characters and a hash of it at the end); rename one of them`
	if err == nil || err.Error() != want {
		t.Errorf("load: %v\nwant %s", err, want)
	}
}

// An Extism plugin's names follow hyper-mcp's rules: tool "files.read" and prompt
// "greet.formal" are served mapped and the plugin is called with the names it declared; a
// tool it adds later ("more.tools", after "grow" reports its tools changed) is mapped too, and
// each mapping is logged once.
func TestExtismForeignNames(t *testing.T) {
	h, logs := newHost(t)
	ctx := context.Background()
	g := load(t, h, extismPlugin(t, "names"), &runtime.GuestConfig{Source: "names.wasm"})
	var tools []string
	for _, td := range g.Manifest().Tools {
		tools = append(tools, td.Name)
	}
	if want := "files_read_601e4eb6 grow"; strings.Join(tools, " ") != want {
		t.Errorf("tools %q, want %q", tools, want)
	}
	if text, _ := toolText(t, []byte(call(t, g, "files_read_601e4eb6", `{}`))); text != "called files.read" {
		t.Errorf("files_read_601e4eb6: %q, want the plugin called with files.read", text)
	}
	out, err := g.GetPrompt(ctx, "greet_formal_b3f71835", nil)
	if err != nil || !strings.Contains(string(out), `"text":"prompt greet.formal"`) {
		t.Errorf("prompt: %s, %v", out, err)
	}
	call(t, g, "grow", `{}`)
	if text, _ := toolText(t, []byte(call(t, g, "more_tools_3cdcb0d7", `{}`))); text != "called more.tools" {
		t.Errorf("more_tools: %q", text)
	}
	l := logs.String()
	for _, want := range []string{"tool=files.read served_as=files_read_601e4eb6", "prompt=greet.formal served_as=greet_formal_b3f71835", "tool=more.tools served_as=more_tools_3cdcb0d7"} {
		if n := strings.Count(l, want); n != 1 {
			t.Errorf("log has %d of %q, want 1:\n%s", n, want, l)
		}
	}
}
