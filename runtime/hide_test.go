package runtime_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

func toolNames(g *runtime.Guest) []string {
	var out []string
	for _, t := range g.Manifest().Tools {
		out = append(out, t.Name)
	}
	return out
}

// HideTools hides the tools whose declared name a pattern matches whole, before ToolPrefix,
// for every kind: not listed, and a call is an unknown tool (issue 45 item 14, hyper-mcp's
// skip_tools). A pattern that does not compile is refused, naming it.
func TestHideTools(t *testing.T) {
	h, _ := newHost(t)
	ctx := context.Background()
	g := load(t, h, wat.Fixture, &runtime.GuestConfig{ToolPrefix: "p_", HideTools: []string{"sh.*", "add", "p_echo", "rea"}})
	names := toolNames(g)
	for _, hidden := range []string{"p_shape_ok", "p_shape_bad", "p_add"} {
		if slices.Contains(names, hidden) {
			t.Errorf("%s served: %v", hidden, names)
		}
		if _, err := g.Call(ctx, hidden, nil); !errors.Is(err, runtime.ErrUnknownTool) {
			t.Errorf("call %s: %v, want ErrUnknownTool", hidden, err)
		}
	}
	// Patterns match the declared name whole: "p_echo" (the served name) hides nothing, nor
	// does "rea" (a part of "read").
	for _, kept := range []string{"p_echo", "p_read", "p_spin"} {
		if !slices.Contains(names, kept) {
			t.Errorf("%s hidden: %v", kept, names)
		}
	}
	if out := call(t, g, "p_echo", `{"a":1}`); !strings.Contains(out, `"a":1`) {
		t.Errorf("p_echo: %s", out)
	}
	// An Extism plugin (another kind) too.
	x := load(t, h, extismPlugin(t, "v1"), &runtime.GuestConfig{Source: "v1.wasm", HideTools: []string{"echo"}})
	if n := toolNames(x); slices.Contains(n, "echo") || len(n) != 12 {
		t.Errorf("extism tools %v, want the 12 but echo", n)
	}
	_, err := h.Load(ctx, wat.Fixture, &runtime.GuestConfig{HideTools: []string{"a(b"}})
	if want := `hide_tools pattern "a(b": error parsing regexp`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("bad pattern: %v, want %q", err, want)
	}
}
