package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// bulkBound bounds how long after its deadline, Stop or Close a loop over one large bulk
// operation may run. Generous: one iteration (a 64 MiB fill) takes milliseconds, and the host
// looks at the flag before every large one; when the flag was looked at only every 4096 loop
// iterations, these calls ran tens of seconds over (reproducer bulk-op-deadline: ~70 s for
// 64 MiB, and 87 s after the kill switch).
const bulkBound = 5 * time.Second

// A loop whose body is one large memory.fill or memory.copy stops at its time limit.
func TestBulkLoopStopsAtDeadline(t *testing.T) {
	h := interruptHost(t, nil)
	const limit = 300 * time.Millisecond
	g := load(t, h, wat.Bulk, &runtime.GuestConfig{Limits: runtime.Limits{Timeout: limit, Instances: 1}})
	for _, tool := range []string{"fill", "copy"} {
		start := time.Now()
		_, err := g.Call(context.Background(), tool, nil)
		took := time.Since(start)
		want := fmt.Sprintf(`guest "bulk" tool %q: time limit exceeded (300ms)`, tool)
		if err == nil || err.Error() != want || !errors.Is(err, runtime.ErrTimeLimit) {
			t.Fatalf("%s: err = %v; want %s", tool, err, want)
		}
		if took > limit+bulkBound {
			t.Errorf("%s: stopped %v after the call began; limit %v", tool, took, limit)
		}
	}
	if got := call(t, g, "ok", ""); got != `{"content":[]}` {
		t.Errorf("next call: %s", got)
	}
}

// The kill switch (Host.Stop) and Guest.Close end such loops promptly too.
func TestBulkLoopStopsOnStopAndClose(t *testing.T) {
	h := interruptHost(t, nil)
	g := load(t, h, wat.Bulk, &runtime.GuestConfig{Limits: runtime.Limits{Timeout: time.Hour, Instances: 2}})
	run := func(tool string) <-chan error {
		done := make(chan error, 1)
		ctx, entered := enteredCtx(context.Background())
		go func() { _, err := g.Call(ctx, tool, nil); done <- err }()
		<-entered
		return done
	}
	fill, cp := run("fill"), run("copy")
	start := time.Now()
	h.Stop()
	for _, done := range []<-chan error{fill, cp} {
		if err := <-done; !errors.Is(err, runtime.ErrStopped) {
			t.Errorf("err = %v; want ErrStopped", err)
		}
	}
	if took := time.Since(start); took > bulkBound {
		t.Errorf("stopped %v after Stop", took)
	}
	h.Resume()
	if got := call(t, g, "ok", ""); got != `{"content":[]}` {
		t.Errorf("after Resume: %s", got)
	}
	fill = run("fill")
	start = time.Now()
	if err := g.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-fill; !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("err = %v; want ErrClosed", err)
	}
	if took := time.Since(start); took > bulkBound {
		t.Errorf("closed %v after Close", took)
	}
}

// A guest that names the host's fuel counter (a global index past its own) is refused at
// load, with an error naming the function, the instruction and the index (reproducer
// interrupt-bypass: it loaded, its loop never stopped, and the next garbage collection froze
// the process). The host keeps serving.
func TestLoadRefusesHostIndexes(t *testing.T) {
	h, _ := newHost(t)
	_, err := h.Load(context.Background(), wat.Bypass, &runtime.GuestConfig{Source: "bypass.wasm"})
	want := "bypass.wasm: compiling: reference to an index the module does not define: function 3: global.set names global 0, but the module defines no globals"
	if err == nil || err.Error() != want {
		t.Fatalf("Load: %v\nwant: %s", err, want)
	}
	answersNormally(t, h)
}
