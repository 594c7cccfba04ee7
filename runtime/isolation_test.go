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
// the state guest shows exactly which calls shared an instance.
func TestIsolation(t *testing.T) {
	type step struct {
		session string
		args    string
		want    string // structuredContent: the arguments the instance kept from its previous call
	}
	for _, tc := range []struct {
		iso   runtime.Isolation
		steps []step
	}{
		{runtime.IsolationShared, []step{
			{"A", `{"secret":"a"}`, `{}`},
			{"B", `{"b":1}`, `{"secret":"a"}`}, // B reads what A left
			{"A", `{"a":2}`, `{"b":1}`},
		}},
		{runtime.IsolationSession, []step{
			{"A", `{"secret":"a"}`, `{}`},
			{"A", `{"a":2}`, `{"secret":"a"}`}, // the same session keeps its warm instance
			{"B", `{"b":1}`, `{}`},             // another session never sees it
			{"A", `{"a":3}`, `{}`},             // and A's instance was not kept for B either
		}},
		{runtime.IsolationCall, []step{
			{"A", `{"secret":"a"}`, `{}`},
			{"A", `{"a":2}`, `{}`},
			{"B", `{"b":1}`, `{}`},
		}},
	} {
		t.Run(tc.iso.String(), func(t *testing.T) {
			h, _ := newHost(t)
			g := load(t, h, wat.State, &runtime.GuestConfig{Isolation: tc.iso, Limits: runtime.Limits{Instances: 1}})
			for i, s := range tc.steps {
				ctx := runtime.WithSession(context.Background(), s.session)
				out, err := g.Call(ctx, "remember", []byte(s.args))
				if want := `{"content":[],"structuredContent":` + s.want + `}`; err != nil || string(out) != want {
					t.Errorf("step %d (session %s): %s, %v; want %s", i, s.session, out, err, want)
				}
			}
		})
	}
}

func TestParseIsolation(t *testing.T) {
	for _, s := range []string{"", "shared", "session", "call"} {
		iso, err := runtime.ParseIsolation(s)
		if err != nil || (s != "" && iso.String() != s) {
			t.Errorf("ParseIsolation(%q) = %v, %v", s, iso, err)
		}
	}
	_, err := runtime.ParseIsolation("tenant")
	if want := `isolation "tenant": want shared, session or call`; fmt.Sprint(err) != want {
		t.Errorf("ParseIsolation(tenant) = %v; want %s", err, want)
	}
}
