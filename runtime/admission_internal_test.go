package runtime

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// One report costs one admission for every kind: each resource.updated the guest makes that
// reaches the client is one report of the call's budget (kind.Budget.Messages), never two
// (an Extism notify_resource_updated was admitted by the plugin's host function and again
// by the seam's resource.updated, so a plugin got half its budget).
func TestOneReportOneAdmission(t *testing.T) {
	ctx := context.Background()
	h, err := NewHost(ctx, &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	dyn, err := os.ReadFile(filepath.Join("internal", "kind", "extism", "testdata", "dyn.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind, tool string
		wasm       func(t *testing.T) []byte
		delivered  int64 // resource.updated reports that reach the hook; 0: as many as admitted
	}{
		{"mcpwasm", "flood", func(*testing.T) []byte { return wat.Updated }, 0}, // 20,000 made: the budget's worth
		{"extism", "touch", func(*testing.T) []byte { return dyn }, 1},
		{"javascript", "touch", buildJSGuest, 1},
	} {
		t.Run(c.kind, func(t *testing.T) {
			g, err := h.Load(ctx, c.wasm(t), &GuestConfig{Name: c.kind})
			if err != nil {
				t.Fatal(err)
			}
			if g.Kind() != c.kind {
				t.Fatalf("kind %q", g.Kind())
			}
			var delivered atomic.Int64
			cctx := WithCallHooks(ctx, &CallHooks{ResourceUpdated: func(string) { delivered.Add(1) }})
			tl := g.lists().tools[c.tool]
			inst, err := tl.pool.acquire(cctx, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = inst.enter(cctx, kind.EntryTool, c.tool, []byte(`{}`), tl.limits, tl.sandbox)
			b := inst.budget.Take()
			tl.pool.release(inst, err == nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := c.delivered; delivered.Load() != int64(b.Messages) || delivered.Load() == 0 || (want != 0 && delivered.Load() != want) {
				t.Errorf("%d resource.updated delivered, %d admissions; want as many admissions as deliveries (%d)", delivered.Load(), b.Messages, want)
			}
		})
	}
}

// buildJSGuest builds guests/typescript/testdata/updated.js with the TypeScript example's
// mcpwasm/build.mjs (npm ci --prefix guests/typescript installs what it needs).
func buildJSGuest(t *testing.T) []byte {
	t.Helper()
	dir := filepath.Join("..", "guests", "typescript")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "esbuild")); err != nil {
		testenv.Skip(t, "guests/typescript's npm packages are not installed (run: npm ci --prefix guests/typescript): %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Skip(t, "node is not installed: %v", err)
	}
	for _, f := range []string{"testdata/updated.js", "mcpwasm/shim.js", "mcpwasm/build.mjs"} {
		if _, err := os.ReadFile(filepath.Join(dir, f)); err != nil { // the test cache's key
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "guest.wasm")
	cmd := exec.CommandContext(t.Context(), node, "mcpwasm/build.mjs", "testdata/updated.js", out)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
