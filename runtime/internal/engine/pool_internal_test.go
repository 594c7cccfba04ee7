package engine

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/tetratelabs/wazero/api"
)

// checkingModule runs onCheck the first time release asks whether the module closed itself:
// that is the moment between a call's end and its instance's parking.
type checkingModule struct {
	api.Module
	onCheck func()
}

func (m *checkingModule) IsClosed() bool {
	if f := m.onCheck; f != nil {
		m.onCheck = nil
		f()
	}
	return m.Module.IsClosed()
}

// A call that ends while Guest.Close drains its pool does not park its instance in the
// drained pool, where nothing would close it before Host.Close.
func TestReleaseAfterCloseClosesInstance(t *testing.T) {
	ctx := context.Background()
	h, err := NewHost(ctx, &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	g, err := h.Load(ctx, wat.Echo, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := g.pools[0]
	inst, err := p.acquire(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	mod := inst.mod
	inst.mod = &checkingModule{Module: mod, onCheck: func() { p.close(ctx) }}
	p.release(inst, true, 0)
	if n := len(p.idle); n != 0 {
		t.Errorf("after close: %d instance(s) parked in the closed pool, want 0", n)
	}
	if n := len(p.tokens); n != 0 {
		t.Errorf("after close: %d instance slot(s) held, want 0", n)
	}
	if !mod.IsClosed() {
		t.Error("the released instance's module is still open")
	}
}

// The same invariant through the public API, as a hammer (the window is too narrow to hit
// reliably; TestReleaseAfterCloseClosesInstance pins it): calls racing Guest.Close leave no
// instance behind in any pool, whichever side of the close each call ends on.
func TestCallsRacingGuestCloseLeaveNoInstance(t *testing.T) {
	ctx := context.Background()
	h, err := NewHost(ctx, &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	for range 20 {
		g, err := h.Load(ctx, wat.Echo, nil)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for range 10 {
					if _, err := g.Call(ctx, "echo", []byte(`{"text":"x"}`)); err != nil {
						return // ErrClosed once the close lands
					}
				}
			}()
		}
		close(start)
		if err := g.Close(ctx); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for i, p := range g.pools {
			if n, m := len(p.idle), len(p.tokens); n != 0 || m != 0 {
				t.Fatalf("pool %d after Guest.Close and its calls' end: %d idle, %d slots held, want 0 and 0", i, n, m)
			}
		}
	}
}

// A call queued for a guest's one instance when the host closes (what serve does when stdin
// ends) is answered as a running call is: closed, or after Shutdown closed with its reason
// (reproducer: "guest "shapes" tool "spin": instantiating: guest trapped: runtime closed with
// exit_code(0)", the queued call instantiating in the closed runtime once the running call
// freed its slot). The running call is an instance acquired by the test, released after the
// close as a call the close ended releases it.
func TestQueuedCallEndsClosed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		close func(*Host) error
		want  string
	}{
		{"Close", func(h *Host) error { return h.Close(context.Background()) }, `guest "echo" tool "echo": closed`},
		{"Shutdown", func(h *Host) error { return h.Shutdown(context.Background()) }, `guest "echo" tool "echo": closed: the server is shutting down`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			h, err := NewHost(ctx, &Options{NoDiskCache: true})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(ctx)
			g, err := h.Load(ctx, wat.Echo, &GuestConfig{Limits: Limits{Instances: 1}})
			if err != nil {
				t.Fatal(err)
			}
			p := g.pools[0]
			running, err := p.acquire(ctx, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			queued := make(chan struct{})
			p.testWaiting = func() { close(queued) }
			done := make(chan error, 1)
			go func() {
				_, err := g.Call(ctx, "echo", []byte(`{"text":"x"}`))
				done <- err
			}()
			<-queued
			if err := tc.close(h); err != nil {
				t.Fatal(err)
			}
			p.release(running, true, 0) // the close ended it: its slot is freed
			err = <-done
			if err == nil || err.Error() != tc.want {
				t.Errorf("queued call: %v; want %s", err, tc.want)
			}
			if !errors.Is(err, ErrClosed) {
				t.Errorf("queued call: %v is not ErrClosed", err)
			}
		})
	}
}
