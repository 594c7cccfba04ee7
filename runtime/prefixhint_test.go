package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// Per-tool limits and grants name a tool as served, with the guest's tool prefix. Naming it
// without the prefix is a load error that says the name to use; a name that is no tool at all
// gets no hint.
func TestToolConfigWithoutPrefixSaysName(t *testing.T) {
	h, _ := newHost(t)
	for _, c := range []struct {
		conf runtime.GuestConfig
		want string
	}{
		{runtime.GuestConfig{Name: "b", ToolPrefix: "b-", ToolLimits: map[string]runtime.Limits{"echo": {Timeout: time.Second}}},
			`guest "b": limits given for unknown tool "echo" (with the tool prefix "b-" it is "b-echo")`},
		{runtime.GuestConfig{Name: "b", ToolPrefix: "b-", ToolGrants: map[string]runtime.Grants{"echo": {}}},
			`guest "b": grants given for unknown tool "echo" (with the tool prefix "b-" it is "b-echo")`},
		{runtime.GuestConfig{Name: "b", ToolPrefix: "b-", ToolLimits: map[string]runtime.Limits{"nope": {Timeout: time.Second}}},
			`guest "b": limits given for unknown tool "nope"`},
	} {
		g, err := h.Load(context.Background(), wat.Echo, &c.conf)
		if err == nil || err.Error() != c.want {
			t.Errorf("Load error = %v; want %q", err, c.want)
		}
		if g != nil {
			t.Errorf("Load returned a guest with its error")
		}
	}
	// With the prefixed name the guest loads.
	g, err := h.Load(context.Background(), wat.Echo, &runtime.GuestConfig{Name: "b", ToolPrefix: "b-",
		ToolLimits: map[string]runtime.Limits{"b-echo": {Timeout: time.Second}}})
	if err != nil {
		t.Fatalf("Load with the prefixed name: %v", err)
	}
	if err := g.Close(context.Background()); err != nil {
		t.Error(err)
	}
}
