package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

var cacheDir string

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "mcpwasm-cache-")
	if err != nil {
		panic(err)
	}
	cacheDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// syncBuffer is a log sink safe for the host's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newHost(t testing.TB) (*runtime.Host, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	h, err := runtime.NewHost(context.Background(), &runtime.Options{
		CacheDir: cacheDir,
		Logger:   slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, logs
}

func load(t testing.TB, h *runtime.Host, wasm []byte, cfg *runtime.GuestConfig) *runtime.Guest {
	t.Helper()
	g, err := h.Load(context.Background(), wasm, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func call(t testing.TB, g *runtime.Guest, tool, args string) string {
	t.Helper()
	out, err := g.Call(context.Background(), tool, []byte(args))
	if err != nil {
		t.Fatalf("Call(%s, %s): %v", tool, args, err)
	}
	return string(out)
}

func TestEchoReferenceGuest(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, wat.Echo, nil)
	if diff := cmp.Diff("echo", g.Name()); diff != "" {
		t.Error(diff)
	}
	got := call(t, g, "echo", `{"text":"hi"}`)
	if diff := cmp.Diff(`{"content":[],"structuredContent":{"text":"hi"}}`, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	// A second, larger input makes the host ask for a bigger input region.
	big := `{"text":"` + strings.Repeat("x", 100_000) + `"}`
	if got := call(t, g, "echo", big); got != `{"content":[],"structuredContent":`+big+`}` {
		t.Errorf("large echo came back with %d bytes", len(got))
	}
	if got := call(t, g, "echo", ""); got != `{"content":[],"structuredContent":{}}` {
		t.Errorf("empty args: got %s", got)
	}
}

func TestManifest(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, wat.Fixture, &runtime.GuestConfig{Name: "fx"})
	m := g.Manifest()
	var names []string
	for _, tl := range m.Tools {
		names = append(names, tl.Name)
	}
	want := []string{"echo", "add", "spin", "tree", "trap", "grow", "oom", "print", "read", "fail", "steps", "logs", "shape_ok", "shape_bad"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if g.Name() != "fx" || m.Name != "fixture" {
		t.Errorf("Name() = %q, manifest name %q; want fx, fixture", g.Name(), m.Name)
	}
}

// arguments that fail the schema never reach the guest.
func TestInvalidArgumentsDoNotEnterGuest(t *testing.T) {
	h, logs := newHost(t)
	g := load(t, h, wat.Fixture, nil)
	for _, tc := range []struct{ args, want string }{
		{`{"a":1,"b":"two"}`, `guest "fixture" tool "add": invalid arguments: validating /properties/b: type: two has type "string", want "integer"`},
		{`{"a":1,"b":2,"x":true}`, `guest "fixture" tool "add": invalid arguments: unexpected additional properties ["x"]`},
		{`{"a":1}`, `guest "fixture" tool "add": invalid arguments: required: missing properties: ["b"]`},
		{`[1,2]`, `guest "fixture" tool "add": invalid arguments: arguments must be a JSON object, got array`},
	} {
		_, err := g.Call(context.Background(), "add", []byte(tc.args))
		if !errors.Is(err, runtime.ErrInvalidArguments) {
			t.Errorf("%s: error %v does not wrap ErrInvalidArguments", tc.args, err)
			continue
		}
		if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.args, diff)
		}
	}
	if strings.Contains(logs.String(), "entered") {
		t.Errorf("guest was entered for invalid arguments; log:\n%s", logs)
	}
	if got := call(t, g, "add", `{"a":1,"b":2}`); got != `{"content":[],"structuredContent":{"a":1,"b":2}}` {
		t.Errorf("valid add: %s", got)
	}
	if !strings.Contains(logs.String(), "entered") {
		t.Errorf("valid call did not enter the guest")
	}
}

func TestUnknownTool(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, wat.Echo, nil)
	_, err := g.Call(context.Background(), "nope", nil)
	if !errors.Is(err, runtime.ErrUnknownTool) || err.Error() != `guest "echo": unknown tool "nope"` {
		t.Fatalf("err = %v", err)
	}
}

func TestToolError(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, wat.Fixture, nil)
	if got := call(t, g, "fail", ""); got != `{"content":[{"type":"text","text":"it failed"}],"isError":true}` {
		t.Errorf("got %s", got)
	}
}

// a loop and a 2^30-call recursion both stop at the time limit, are reported as such,
// and the next call on the guest works.
func TestRunawayGuestsStopAtTimeLimit(t *testing.T) {
	h, _ := newHost(t)
	const limit = 500 * time.Millisecond
	g := load(t, h, wat.Fixture, &runtime.GuestConfig{Limits: runtime.Limits{Timeout: limit, Instances: 2}})
	for _, tool := range []string{"spin", "tree"} {
		t.Run(tool, func(t *testing.T) {
			start := time.Now()
			_, err := g.Call(context.Background(), tool, nil)
			took := time.Since(start)
			t.Logf("%s stopped after %v", tool, took)
			want := fmt.Sprintf(`guest "fixture" tool %q: time limit exceeded (500ms)`, tool)
			if err == nil || err.Error() != want {
				t.Fatalf("err = %v; want %s", err, want)
			}
			if !errors.Is(err, runtime.ErrTimeLimit) {
				t.Errorf("error does not wrap ErrTimeLimit")
			}
			if took < limit {
				t.Errorf("stopped after %v, before the limit", took)
			}
			if got := call(t, g, "echo", `{}`); got != `{"content":[],"structuredContent":{}}` {
				t.Errorf("next call: %s", got)
			}
		})
	}
}

func TestTrapDiscardsInstance(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, wat.Fixture, &runtime.GuestConfig{Limits: runtime.Limits{Instances: 1}})
	_, err := g.Call(context.Background(), "trap", nil)
	if !errors.Is(err, runtime.ErrTrap) {
		t.Fatalf("err = %v; want ErrTrap", err)
	}
	if want := `guest "fixture" tool "trap": guest trapped: wasm error: unreachable`; err.Error() != want {
		t.Errorf("err = %q; want %q", err, want)
	}
	// With one instance allowed, the next call can only succeed if the trapped one was freed.
	if got := call(t, g, "echo", `{"n":1}`); got != `{"content":[],"structuredContent":{"n":1}}` {
		t.Errorf("after trap: %s", got)
	}
}

// memory limits are per instance and clamp a declared 2 GiB maximum.
func TestMemoryLimit(t *testing.T) {
	h, _ := newHost(t)
	// fixture.wasm declares a maximum of 32768 pages (2 GiB): it must load under 16 MiB.
	g := load(t, h, wat.Fixture, &runtime.GuestConfig{Limits: runtime.Limits{MemoryBytes: 16 << 20, Instances: 1}})
	if got := call(t, g, "grow", ""); got != `{"content":[{"type":"text","text":"pages=256"}]}` {
		t.Errorf("grow: %s; want pages=256 (16 MiB)", got)
	}
	_, err := g.Call(context.Background(), "oom", nil)
	if !errors.Is(err, runtime.ErrMemoryLimit) {
		t.Fatalf("oom: err = %v; want ErrMemoryLimit", err)
	}
	if want := `guest "fixture" tool "oom": memory limit reached (16 MiB): wasm error: unreachable`; err.Error() != want {
		t.Errorf("oom: err = %q; want %q", err, want)
	}
	if got := call(t, g, "echo", `{}`); got != `{"content":[],"structuredContent":{}}` {
		t.Errorf("after oom: %s", got)
	}
}

func TestMemoryLimitBelowModuleMinimum(t *testing.T) {
	h, _ := newHost(t)
	_, err := h.Load(context.Background(), wat.Fixture, &runtime.GuestConfig{Source: "fixture.wasm", Limits: runtime.Limits{MemoryBytes: 65536}})
	want := "fixture.wasm: minimum linear memory 128 KiB exceeds the memory limit 64 KiB"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v; want %s", err, want)
	}
}

// 32 concurrent calls into one guest all succeed, never sharing an instance.
func TestConcurrentCalls(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, wat.Fixture, &runtime.GuestConfig{Limits: runtime.Limits{Instances: 4}})
	var wg sync.WaitGroup
	var failed atomic.Int32
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool, args := "echo", fmt.Sprintf(`{"i":%d}`, i)
			if i%8 == 7 {
				tool = "trap" // a trap poisons only its own instance
			}
			out, err := g.Call(context.Background(), tool, []byte(args))
			if tool == "trap" {
				if !errors.Is(err, runtime.ErrTrap) {
					t.Errorf("call %d: err = %v; want trap", i, err)
					failed.Add(1)
				}
				return
			}
			if want := `{"content":[],"structuredContent":` + args + `}`; err != nil || string(out) != want {
				t.Errorf("call %d: %s, %v; want %s", i, out, err, want)
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	if failed.Load() != 0 {
		t.Fatalf("%d calls failed", failed.Load())
	}
}

// guest stdout/stderr go to the host log, never elsewhere; stdin is empty.
func TestGuestStdio(t *testing.T) {
	h, logs := newHost(t)
	g := load(t, h, wat.Fixture, nil)
	if got := call(t, g, "print", ""); got != `{"content":[{"type":"text","text":"ok"}]}` {
		t.Errorf("print: %s", got)
	}
	for _, want := range []string{`stream=stdout text="to-stdout\n"`, `stream=stderr text="to-stderr\n"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
	if got := call(t, g, "read", ""); got != `{"content":[{"type":"text","text":"read=0"}]}` {
		t.Errorf("read: %s; want read=0 (EOF at once)", got)
	}
}

// Cancelling a running call's context ends it with ErrCancelled. The cancel comes once the
// call is running (it logged "entered"), not after a fixed time; how soon the call ends after
// it is bounded by prompt, the scheduler's bound on a loaded machine.
func TestCancel(t *testing.T) {
	h := interruptHost(t, nil)
	g := load(t, h, wat.Interrupt, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx, entered := enteredCtx(ctx)
	done := make(chan error, 1)
	go func() { _, err := g.Call(ctx, "spin", nil); done <- err }()
	<-entered
	start := time.Now()
	cancel()
	err := <-done
	if !errors.Is(err, runtime.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want ErrCancelled and context.Canceled", err)
	}
	if took := time.Since(start); took > prompt {
		t.Errorf("cancel took %v", took)
	}
}

func TestCloseStopsRunningCall(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, wat.Fixture, nil)
	done := make(chan error, 1)
	go func() { _, err := g.Call(context.Background(), "spin", nil); done <- err }()
	time.Sleep(50 * time.Millisecond)
	if err := g.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, runtime.ErrClosed) {
			t.Errorf("err = %v; want ErrClosed", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("running call not stopped by Close")
	}
	if _, err := g.Call(context.Background(), "echo", nil); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("call after Close: %v; want ErrClosed", err)
	}
	if err := g.Close(context.Background()); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestLogHook(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, wat.Fixture, nil)
	var got []string
	ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{
		Log: func(l abi.Level, msg string) { got = append(got, l.String()+":"+msg) },
	})
	if _, err := g.Call(ctx, "echo", nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"info:entered "}, got); diff != "" {
		t.Errorf("log hook (-want +got):\n%s", diff)
	}
}

func TestLoadErrors(t *testing.T) {
	h, _ := newHost(t)
	for _, tc := range []struct {
		name string
		wasm []byte
		want string
	}{
		{"not wasm", []byte("hello"), "x.wasm: compiling: invalid magic number"},
		// No kind's import module, no kind's entry points: no guess.
		{"empty module", []byte("\x00asm\x01\x00\x00\x00"), "x.wasm: ABI violation: not a guest module: imports nothing, exports no function (see abi/ABI.md)"},
		// (module (import "env" "f" (func)) (func (export "run")))
		{"other module", []byte("\x00\x61\x73\x6d\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00\x02\x09\x01\x03\x65\x6e\x76\x01\x66\x00\x00\x03\x02\x01\x00\x07\x07\x01\x03\x72\x75\x6e\x00\x01\x0a\x04\x01\x02\x00\x0b"),
			"x.wasm: ABI violation: not a guest module: imports env (1), exports run (see abi/ABI.md)"},
		// (module (func (export "mcpwasm_describe") (result i64) i64.const 0)): an mcpwasm
		// guest by its export alone, so the mcpwasm checks name what it lacks.
		{"describe only", []byte("\x00\x61\x73\x6d\x01\x00\x00\x00\x01\x05\x01\x60\x00\x01\x7e\x03\x02\x01\x00\x07\x14\x01\x10\x6d\x63\x70\x77\x61\x73\x6d\x5f\x64\x65\x73\x63\x72\x69\x62\x65\x00\x00\x0a\x06\x01\x04\x00\x42\x00\x0b"),
			"x.wasm: ABI violation: missing export mcpwasm_abi_version (not an mcpwasm guest? see abi/ABI.md)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.Load(context.Background(), tc.wasm, &runtime.GuestConfig{Source: "x.wasm"})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v; want %s", err, tc.want)
			}
		})
	}
}

// The operator's kill switch stops running calls, refuses new ones, and Resume undoes it.
func TestStopResume(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, wat.Fixture, nil)
	done := make(chan error, 1)
	go func() { _, err := g.Call(context.Background(), "spin", nil); done <- err }()
	time.Sleep(50 * time.Millisecond)
	h.Stop()
	select {
	case err := <-done:
		if want := `guest "fixture" tool "spin": calls are stopped by the operator`; err == nil || err.Error() != want {
			t.Errorf("running call: %v; want %s", err, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not end the running call")
	}
	if _, err := g.Call(context.Background(), "echo", nil); !errors.Is(err, runtime.ErrStopped) {
		t.Errorf("call while stopped: %v", err)
	}
	h.Resume()
	if got := call(t, g, "echo", `{}`); got != `{"content":[],"structuredContent":{}}` {
		t.Errorf("after Resume: %s", got)
	}
}
