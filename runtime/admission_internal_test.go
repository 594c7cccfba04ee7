package runtime

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

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
		wasm       []byte
		delivered  int64 // resource.updated reports that reach the hook
	}{
		{"mcpwasm", "flood", wat.Updated, kind.CallMessages}, // 20,000 made: the budget's worth delivered
		{"extism", "touch", dyn, 1},
	} {
		t.Run(c.kind, func(t *testing.T) {
			g, err := h.Load(ctx, c.wasm, &GuestConfig{Name: c.kind})
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
			if delivered.Load() != c.delivered || int64(b.Messages) != c.delivered {
				t.Errorf("%d resource.updated delivered, %d admissions; want %d of each", delivered.Load(), b.Messages, c.delivered)
			}
		})
	}
}
