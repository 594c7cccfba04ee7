package engine

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// A stop that lands while a fresh instance allocates its input region is the call's stop,
// not an error of mcpwasm_alloc: the call fails as a stop landing anywhere else does
// (cmd/mcpwasm TestOperatorStop saw "mcpwasm_alloc: calls are stopped by the operator").
func TestStopDuringAllocIsTheCallsStop(t *testing.T) {
	ctx := context.Background()
	h, err := NewHost(ctx, &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	g, err := h.Load(ctx, wat.Fixture, nil)
	if err != nil {
		t.Fatal(err)
	}
	tl := g.lists().tools["spin"]
	inst, err := tl.pool.acquire(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	inst.intr.Interrupt(exitCodeStopped) // before the first call: it allocates its input first
	_, err = inst.enter(ctx, kind.EntryTool, "spin", emptyObject, tl.limits, tl.sandbox)
	tl.pool.release(inst, false, 0)
	if err == nil || err.Error() != "calls are stopped by the operator" {
		t.Errorf("err = %v, want the stop itself", err)
	}
}
