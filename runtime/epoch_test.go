package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	goruntime "runtime"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// Tests of the interruption mechanism (runtime/internal/watchdog, runtime/internal/instrument) on testdata/wat/interrupt.wat.

// slowUpstream is an upstream "slow" whose tool never answers: CallTool returns only when its
// context is done, and reports that on returned.
type slowUpstream struct {
	entered, returned chan struct{}
}

func newSlowUpstream() *slowUpstream {
	return &slowUpstream{entered: make(chan struct{}, 100), returned: make(chan struct{}, 100)}
}

func (s *slowUpstream) ListTools(ctx context.Context, server string) ([]byte, error) {
	return []byte(`{"tools":[]}`), nil
}

func (s *slowUpstream) CallTool(ctx context.Context, server, tool string, args []byte) ([]byte, error) {
	s.entered <- struct{}{}
	<-ctx.Done()
	s.returned <- struct{}{}
	return nil, ctx.Err()
}

func interruptHost(t *testing.T, up peer.Upstreams) *runtime.Host {
	t.Helper()
	h, err := runtime.NewHost(context.Background(), &runtime.Options{
		CacheDir:  cacheDir,
		Logger:    slog.New(slog.DiscardHandler),
		Upstreams: up,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// enteredCtx returns a context whose calls signal entered when the guest logs "entered",
// which interrupt.wat does first thing in every call.
func enteredCtx(ctx context.Context) (context.Context, chan struct{}) {
	entered := make(chan struct{}, 1)
	return runtime.WithCallHooks(ctx, &runtime.CallHooks{Log: func(_ abi.Level, msg string) {
		if msg == "entered" {
			select {
			case entered <- struct{}{}:
			default:
			}
		}
	}}), entered
}

// prompt bounds how long Stop, Close or a cancel take to end calls, and how late after its
// time limit a runaway call stops: the tests run more spinning guests than a 2-core machine
// has cores, so the bound is the Go scheduler's, not the mechanism's (the watchdog looks
// every watchTick, 5 ms: runtime/internal/watchdog).
const prompt = time.Second

// A loop, a deep recursion and a blocked host call all stop at the deadline, are reported as
// ErrTimeLimit, and free their instance (one allowed: the next call needs it). The deadline is
// the event here, and it is a time: a call must not stop before it, and stops within prompt
// after it — a bound wide enough for a loaded machine's scheduler, not the mechanism's 5 ms.
func TestInterruptDeadline(t *testing.T) {
	up := newSlowUpstream()
	h := interruptHost(t, up)
	const limit = 300 * time.Millisecond
	g := load(t, h, wat.Interrupt, &runtime.GuestConfig{Limits: runtime.Limits{Timeout: limit, Instances: 1},
		Grants: runtime.Grants{MCP: []string{"slow"}}})
	for _, tool := range []string{"spin", "tree", "block"} {
		t.Run(tool, func(t *testing.T) {
			start := time.Now()
			_, err := g.Call(context.Background(), tool, nil)
			took := time.Since(start)
			want := fmt.Sprintf(`guest "interrupt" tool %q: time limit exceeded (300ms)`, tool)
			if err == nil || err.Error() != want || !errors.Is(err, runtime.ErrTimeLimit) {
				t.Fatalf("err = %v; want %s", err, want)
			}
			if took < limit || took > limit+prompt {
				t.Errorf("stopped after %v; want within [%v, %v]", took, limit, limit+prompt)
			}
			if got := call(t, g, "ok", ""); got != `{"content":[]}` {
				t.Errorf("next call: %s", got)
			}
		})
	}
	select {
	case <-up.returned:
	default:
		t.Error("the blocked host call did not return")
	}
}

// Cancelling the caller's context stops the call with ErrCancelled and context.Canceled.
func TestInterruptCancel(t *testing.T) {
	h := interruptHost(t, newSlowUpstream())
	g := load(t, h, wat.Interrupt, &runtime.GuestConfig{Limits: runtime.Limits{Instances: 1}, Grants: runtime.Grants{MCP: []string{"slow"}}})
	for _, tool := range []string{"spin", "tree", "block"} {
		t.Run(tool, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ctx, entered := enteredCtx(ctx)
			done := make(chan error, 1)
			go func() { _, err := g.Call(ctx, tool, nil); done <- err }()
			<-entered
			start := time.Now()
			cancel()
			err := <-done
			if took := time.Since(start); took > prompt {
				t.Errorf("stopped %v after the cancel", took)
			}
			want := fmt.Sprintf(`guest "interrupt" tool %q: call cancelled: context canceled`, tool)
			if err == nil || err.Error() != want || !errors.Is(err, runtime.ErrCancelled) || !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v; want %s", err, want)
			}
			if got := call(t, g, "ok", ""); got != `{"content":[]}` {
				t.Errorf("next call: %s", got)
			}
		})
	}
}

// Host.Stop ends running calls, including one blocked in a host call, with ErrStopped.
func TestInterruptStop(t *testing.T) {
	up := newSlowUpstream()
	h := interruptHost(t, up)
	g := load(t, h, wat.Interrupt, &runtime.GuestConfig{Limits: runtime.Limits{Instances: 3}, Grants: runtime.Grants{MCP: []string{"slow"}}})
	tools := []string{"spin", "tree", "block"}
	done := make(chan error, len(tools))
	for _, tool := range tools {
		ctx, entered := enteredCtx(context.Background())
		go func() { _, err := g.Call(ctx, tool, nil); done <- err }()
		<-entered
	}
	<-up.entered
	start := time.Now()
	h.Stop()
	for range tools {
		err := <-done
		if !errors.Is(err, runtime.ErrStopped) {
			t.Errorf("err = %v; want ErrStopped", err)
		}
	}
	if took := time.Since(start); took > prompt {
		t.Errorf("stopped %v after Stop", took)
	}
	<-up.returned
	h.Resume()
	if got := call(t, g, "ok", ""); got != `{"content":[]}` {
		t.Errorf("after Resume: %s", got)
	}
}

// Guest.Close ends running calls, including one blocked in a host call, with ErrClosed.
func TestInterruptClose(t *testing.T) {
	up := newSlowUpstream()
	h := interruptHost(t, up)
	g := load(t, h, wat.Interrupt, &runtime.GuestConfig{Limits: runtime.Limits{Instances: 3}, Grants: runtime.Grants{MCP: []string{"slow"}}})
	tools := []string{"spin", "tree", "block"}
	done := make(chan error, len(tools))
	for _, tool := range tools {
		ctx, entered := enteredCtx(context.Background())
		go func() { _, err := g.Call(ctx, tool, nil); done <- err }()
		<-entered
	}
	<-up.entered
	start := time.Now()
	if err := g.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range tools {
		if err := <-done; !errors.Is(err, runtime.ErrClosed) {
			t.Errorf("err = %v; want ErrClosed", err)
		}
	}
	if took := time.Since(start); took > prompt {
		t.Errorf("stopped %v after Close", took)
	}
	<-up.returned
}

// A deadline during instantiation stops a runaway _initialize, and a runaway start function
// (which the rewrite turns into an export the host calls after instantiating).
func TestInterruptInitialize(t *testing.T) {
	h := interruptHost(t, nil)
	const limit = 300 * time.Millisecond
	for _, mode := range []string{"i", "s"} {
		t.Run(mode, func(t *testing.T) {
			wasm := bytes.Replace(wat.Interrupt, []byte("mode:-"), []byte("mode:"+mode), 1)
			cfg := &runtime.GuestConfig{Source: "x.wasm", Limits: runtime.Limits{Timeout: limit}}
			_, err := h.Load(context.Background(), wasm, cfg) // fills the compilation cache
			start := time.Now()
			if _, err = h.Load(context.Background(), wasm, cfg); err == nil {
				t.Fatal("loaded")
			}
			took := time.Since(start)
			if want := "x.wasm: instantiating: time limit exceeded (300ms)"; err == nil || err.Error() != want || !errors.Is(err, runtime.ErrTimeLimit) {
				t.Fatalf("err = %v; want %s", err, want)
			}
			// Load also reads the compiled code back from the cache and decodes it, outside
			// the time limit: bound loosely.
			if took > limit+prompt {
				t.Errorf("stopped after %v; want at most %v", took, limit+prompt)
			}
		})
	}
}

// A limit that lands while the kind prepares the call (mcpwasm_alloc, before the tool's
// export runs) reads as the limit, as it does anywhere else in the call: the stop, cancel
// and time-limit errors carry no export name (a client once saw "spin: mcpwasm_alloc: calls
// are stopped by the operator" when the kill switch landed there).
func TestInterruptDuringAlloc(t *testing.T) {
	h := interruptHost(t, nil)
	wasm := bytes.Replace(wat.Interrupt, []byte("mode:-"), []byte("mode:a"), 1)
	g := load(t, h, wasm, &runtime.GuestConfig{Source: "x.wasm", Limits: runtime.Limits{Timeout: 200 * time.Millisecond}})
	_, err := g.Call(context.Background(), "ok", []byte(`{}`))
	if want := `guest "interrupt" tool "ok": time limit exceeded (200ms)`; err == nil || err.Error() != want || !errors.Is(err, runtime.ErrTimeLimit) {
		t.Fatalf("err = %v; want %s", err, want)
	}
	// Cancelled once the alloc logged: a context cancelled before Call could end it while it
	// waits for an instance instead ("waiting for a free instance: …"), as select picks.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = runtime.WithCallHooks(ctx, &runtime.CallHooks{Log: func(abi.Level, string) { cancel() }})
	_, err = g.Call(ctx, "ok", []byte(`{}`))
	if want := `guest "interrupt" tool "ok": call cancelled: context canceled`; err == nil || err.Error() != want || !errors.Is(err, runtime.ErrCancelled) {
		t.Fatalf("err = %v; want %s", err, want)
	}
}

// Many goroutines share one instance: calls that run out of time or are cancelled, normal
// calls, and the kill switch toggling. Each ends with the error its own cause explains (a
// late interrupt of one call never hits another), and the instance pool survives. Run it
// under -race: the interrupt flag is written from AfterFunc goroutines, Stop and callers.
func TestInterruptHammer(t *testing.T) {
	h := interruptHost(t, nil)
	const shortLimit, blockLimit, longLimit = 20 * time.Millisecond, 5 * time.Millisecond, 10 * time.Second
	short := runtime.Limits{Timeout: shortLimit}
	g := load(t, h, wat.Interrupt, &runtime.GuestConfig{Limits: runtime.Limits{Timeout: longLimit, Instances: 1},
		ToolLimits: map[string]runtime.Limits{"spin": short, "tree": short, "block": {Timeout: blockLimit}}})
	// stale: a time-limit error that came before the call's own limit had passed, so from a
	// deadline another call left on the shared instance: the error this test exists to catch.
	// (The limit is measured from before Call, so a call's own timeout always passes it.)
	stale := func(err error, start time.Time, limit time.Duration) bool {
		return (errors.Is(err, runtime.ErrTimeLimit) || errors.Is(err, context.DeadlineExceeded)) && time.Since(start) < limit
	}
	const workers, rounds = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds+1)
	stopDone := make(chan struct{})
	go func() { // the kill switch, a few times
		defer close(stopDone)
		for range 5 {
			h.Stop()
			h.Resume()
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				var err error
				start := time.Now()
				switch (w + i) % 3 {
				case 0: // runs out of time, or waits for the instance until then
					_, err = g.Call(context.Background(), "spin", nil)
					if !errors.Is(err, runtime.ErrTimeLimit) && !errors.Is(err, runtime.ErrStopped) && !errors.Is(err, context.DeadlineExceeded) || stale(err, start, shortLimit) {
						errs <- fmt.Errorf("spin: %v after %v", err, time.Since(start))
					}
				case 1: // cancelled
					ctx, cancel := context.WithCancel(context.Background())
					time.AfterFunc(time.Millisecond, cancel)
					_, err = g.Call(ctx, "tree", nil)
					if !errors.Is(err, runtime.ErrCancelled) && !errors.Is(err, runtime.ErrTimeLimit) && !errors.Is(err, runtime.ErrStopped) || stale(err, start, shortLimit) {
						errs <- fmt.Errorf("tree: %v after %v", err, time.Since(start))
					}
					cancel()
				case 2: // quick, but may meet the kill switch; every other one is block, whose
					// refused request returns at once, under a limit of its own, which it must
					// not leave behind for the next call
					tool, limit := "ok", longLimit
					if i%2 == 0 {
						tool, limit = "block", blockLimit
					}
					_, err = g.Call(context.Background(), tool, nil)
					if err != nil && !errors.Is(err, runtime.ErrStopped) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, runtime.ErrTimeLimit) || stale(err, start, limit) {
						errs <- fmt.Errorf("%s: %v after %v", tool, err, time.Since(start))
					}
				}
			}
		}()
	}
	wg.Wait()
	<-stopDone
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	h.Resume()
	if got := call(t, g, "ok", ""); got != `{"content":[]}` {
		t.Errorf("after the hammer: %s", got)
	}
}

// A spinning guest must not stall the garbage collector: native code has no preemption
// points, so without the checks' periodic trip into Go a stop-the-world would wait forever
// for this call, and so would the process (RATIONALE.md, "Why rewrite function bodies").
// If this test hangs, that trip is gone.
func TestInterruptLetsGCRun(t *testing.T) {
	h := interruptHost(t, nil)
	g := load(t, h, wat.Interrupt, &runtime.GuestConfig{Limits: runtime.Limits{Instances: 1}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx, entered := enteredCtx(ctx)
	done := make(chan error, 1)
	go func() { _, err := g.Call(ctx, "spin", nil); done <- err }()
	<-entered
	for range 3 {
		goruntime.GC()
	}
	cancel()
	if err := <-done; !errors.Is(err, runtime.ErrCancelled) {
		t.Fatalf("err = %v; want ErrCancelled", err)
	}
}
