package engine

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// A warm call costs no context, timer or goroutine of its own (runtime/internal/watchdog): its only allocation
// is the copy of the result it returns. A context.WithTimeout per call, or an AfterFunc,
// would show here as more.
func TestWarmCallAllocatesOnlyItsResult(t *testing.T) {
	h, err := NewHost(context.Background(), &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	g, err := h.Load(context.Background(), wat.Echo, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	args := []byte(`{"text":"hello"}`)
	var callErr error
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := g.Call(ctx, "echo", args); err != nil {
			callErr = err
		}
	})
	if callErr != nil {
		t.Fatal(callErr)
	}
	if allocs != 1 {
		t.Errorf("a warm call allocates %v times, want 1 (its result)", allocs)
	}
}

// The watchdog is one goroutine per host, started by the first armed call, and Close ends it
// and waits for it: a closed host leaves no goroutine behind.
func TestWatchdogLifecycle(t *testing.T) {
	h, err := NewHost(context.Background(), &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	g, err := h.Load(context.Background(), wat.Echo, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if _, err := g.Call(context.Background(), "echo", nil); err != nil {
			t.Fatal(err)
		}
	}
	if armed, _ := h.watch.State(); armed {
		t.Error("after 100 calls: a call is still armed")
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, running := h.watch.State(); running {
		t.Error("watchdog still running after Close")
	}
	h.Close(context.Background()) // idempotent, and must not wait forever
}
