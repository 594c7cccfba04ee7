package runtime_test

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// A call handed to a version that is then replaced, drained and closed before the call
// reaches it (a --watch reload racing a tools/call: the drain saw 0 running calls and the
// close refused the late call, "…: closed") is answered by the version that replaced it —
// tool calls and resource reads alike. The events are ordered by the test, not by timing:
// the call is made after ReplacedBy, Drain and Close have returned.
func TestCallReachingReplacedVersion(t *testing.T) {
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	old, err := h.Load(ctx, wat.Updated, &runtime.GuestConfig{Name: "g"})
	if err != nil {
		t.Fatal(err)
	}
	next, err := h.Load(ctx, wat.Updated, &runtime.GuestConfig{Name: "g"})
	if err != nil {
		t.Fatal(err)
	}
	old.ReplacedBy(next)
	if err := old.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if out, err := old.Call(ctx, "flood", nil); err != nil || string(out) != `{"content":[{"type":"text","text":"status 4"}]}` {
		t.Errorf("tools/call on the replaced version: %s %v", out, err)
	}
	if out, err := old.ReadResource(ctx, "test://a"); err != nil || string(out) != `{"contents":[{"uri":"test://a","text":"x"}]}` {
		t.Errorf("resources/read on the replaced version: %s %v", out, err)
	}
}
