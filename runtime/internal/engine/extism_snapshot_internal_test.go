package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// An Extism plugin under session isolation starts later sessions' instances from the
// snapshot (its kind restores them), and a restored instance's vars and kernel are empty: one
// session's var_set is never seen by another's var_get.
func TestExtismSnapshotSessionVars(t *testing.T) {
	wasm, err := os.ReadFile(filepath.Join("..", "kind", "extism", "testdata", "v1.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	h, logs := snapHost(t, true)
	g := mustLoad(t, h, wasm, &GuestConfig{Isolation: "session", Limits: Limits{Instances: 1}})
	text := func(out string) string {
		t.Helper()
		const pre, post = `{"content":[{"type":"text","text":"`, `"}]}`
		if len(out) < len(pre)+len(post) || out[:len(pre)] != pre {
			t.Fatalf("not a text result: %s", out)
		}
		return out[len(pre) : len(out)-len(post)]
	}
	for i, s := range []struct{ session, want string }{
		{"A", "count=1 tmp deleted"},
		{"A", "count=2 tmp deleted"},
		{"B", "count=1 tmp deleted"}, // restored: A's count is not there
		{"B", "count=2 tmp deleted"},
		{"A", "count=1 tmp deleted"}, // one instance: A's was B's, restored again
	} {
		if got := text(snapCall(t, g, s.session, "vars", `{}`)); got != s.want {
			t.Errorf("step %d (session %s): %q; want %q", i, s.session, got, s.want)
		}
	}
	if g.lists().tools["vars"].pool.snaps.get() == nil {
		t.Fatalf("no snapshot; log:\n%s", logs)
	}
	// The one instance went from A to B and back, reset in place each time (reset.go): the
	// kind's Restore gave it an empty kernel and vars again.
	if got := g.stats.resets.Load(); got != 2 {
		t.Errorf("%d resets; want 2", got)
	}
}
