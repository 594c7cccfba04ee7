package runtime_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// What one call leaves in an instance's linear memory is visible to the next call that
// instance serves. The isolation setting decides who that can be: with one instance per guest,
// the state guest shows exactly which calls shared an instance. Under session and call the
// one instance is reused, reset in place to the state after its start (GuestStats.Resets
// counts it): what is invisible is so in the very instance that held it.
func TestIsolation(t *testing.T) {
	type step struct {
		session string
		args    string
		want    string // structuredContent: the arguments the instance kept from its previous call
	}
	for _, tc := range []struct {
		iso    string
		steps  []step
		resets uint64
	}{
		{"shared", []step{
			{"A", `{"secret":"a"}`, `{}`},
			{"B", `{"b":1}`, `{"secret":"a"}`}, // B reads what A left
			{"A", `{"a":2}`, `{"b":1}`},
		}, 0},
		{"session", []step{
			{"A", `{"secret":"a"}`, `{}`},
			{"A", `{"a":2}`, `{"secret":"a"}`}, // the same session keeps its warm instance
			{"B", `{"b":1}`, `{}`},             // another session never sees it
			{"A", `{"a":3}`, `{}`},             // and A's instance was not kept for B either
		}, 2},
		{"call", []step{
			{"A", `{"secret":"a"}`, `{}`},
			{"A", `{"a":2}`, `{}`},
			{"B", `{"b":1}`, `{}`},
		}, 2},
	} {
		t.Run(tc.iso, func(t *testing.T) {
			h, _ := newHost(t)
			g := load(t, h, wat.State, &runtime.GuestConfig{Isolation: tc.iso, Limits: runtime.Limits{Instances: 1}})
			for i, s := range tc.steps {
				ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{Session: s.session})
				out, err := g.Call(ctx, "remember", []byte(s.args))
				if want := `{"content":[],"structuredContent":` + s.want + `}`; err != nil || string(out) != want {
					t.Errorf("step %d (session %s): %s, %v; want %s", i, s.session, out, err, want)
				}
			}
			if st := h.Stats(); len(st) != 1 || st[0].Resets != tc.resets {
				t.Errorf("Stats: %+v; want Resets %d", st, tc.resets)
			}
		})
	}
}

// GuestConfig.Validate accepts the three modes and "" and names a bad one with the three
// allowed; Load refuses it the same way, before reading the module.
func TestIsolationValidate(t *testing.T) {
	for _, s := range []string{"", "shared", "session", "call"} {
		if err := (&runtime.GuestConfig{Isolation: s}).Validate(); err != nil {
			t.Errorf("Validate(%q) = %v", s, err)
		}
	}
	const want = `isolation "tenant": want shared, session or call`
	if err := (&runtime.GuestConfig{Isolation: "tenant"}).Validate(); fmt.Sprint(err) != want {
		t.Errorf("Validate(tenant) = %v; want %s", err, want)
	}
	h, _ := newHost(t)
	_, err := h.Load(context.Background(), wat.State, &runtime.GuestConfig{Source: "state.wasm", Isolation: "tenant"})
	if got := fmt.Sprint(err); got != "state.wasm: "+want {
		t.Errorf("Load = %s; want state.wasm: %s", got, want)
	}
}

// Validate makes Load's checks of limits and grants too, naming the field.
func TestGuestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		c    *runtime.GuestConfig
		want string
	}{
		{nil, "<nil>"},
		{&runtime.GuestConfig{}, "<nil>"},
		{&runtime.GuestConfig{Limits: runtime.Limits{MemoryBytes: 1000}}, "memory limit 1000 bytes is below one 64 KiB page"},
		{&runtime.GuestConfig{Grants: runtime.Grants{Net: []string{"https://a.example"}}}, `grants: net "https://a.example": want host[:port], not a URL`},
		{&runtime.GuestConfig{ToolGrants: map[string]runtime.Grants{"fetch": {Env: []string{"=x"}}}}, `tool "fetch" grants: env "=x": bad variable name`},
	} {
		if got := fmt.Sprint(tc.c.Validate()); got != tc.want {
			t.Errorf("%+v: Validate = %s; want %s", tc.c, got, tc.want)
		}
	}
}
