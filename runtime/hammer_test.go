package runtime_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// TestHammerOneInstance runs many goroutines against a guest with a single instance, the
// shape wazero's hammer tests use: every call must get its own instance turn, and what a
// call prints must be logged from that call, never raced with the next call's writes (a
// regression test for reading the captured stdout after the instance went back to the pool).
func TestHammerOneInstance(t *testing.T) {
	h, logs := newHost(t)
	g := load(t, h, wat.Fixture, &runtime.GuestConfig{Limits: runtime.Limits{Instances: 1}})
	const goroutines, calls = 8, 25
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				out, err := g.Call(context.Background(), "print", nil)
				if err != nil || string(out) != `{"content":[{"type":"text","text":"ok"}]}` {
					t.Errorf("print: %s, %v", out, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got, want := strings.Count(logs.String(), `stream=stdout text="to-stdout\n"`), goroutines*calls; got != want {
		t.Errorf("logged %d stdout lines; want %d (one per call)", got, want)
	}
}
