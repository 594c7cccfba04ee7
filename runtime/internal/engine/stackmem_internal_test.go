package engine

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/memory"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// The native stack size is readable from the wazero in go.mod: a fresh instance has one.
func TestNativeStackReadable(t *testing.T) {
	h, err := NewHost(context.Background(), &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	g, err := h.Load(context.Background(), wat.Hardening, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Call(context.Background(), "ok", nil); err != nil {
		t.Fatal(err)
	}
	inst := <-g.lists().tools["ok"].pool.idle
	defer func() { g.lists().tools["ok"].pool.idle <- inst }()
	if p := memory.NativeStack(inst.fns[abi.ExportCall]); p == nil || len(*p) == 0 {
		t.Fatal("memory.NativeStack found no stack: wazero's callEngine no longer has a stack []byte field; update runtime/internal/memory/stack.go")
	}
	if n := inst.stackBytes(); n > memory.RetainStackBytes {
		t.Fatalf("a shallow call left %d bytes of stack", n)
	}
}

// A deep recursion that returns normally does not leave its grown stack in an idle pooled
// instance (reproducer stack-memory); the next call gets a fresh instance and answers.
func TestDeepCallStackNotPooled(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	h, err := NewHost(context.Background(), &Options{NoDiskCache: true, Logger: slog.New(slog.NewTextHandler(
		writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(b) }),
		&slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	g, err := h.Load(context.Background(), wat.Hardening, &GuestConfig{Limits: Limits{MemoryBytes: 4 << 20, Instances: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p := g.lists().tools["deep"].pool
	if _, err := g.Call(context.Background(), "deep", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case inst := <-p.idle:
		n := inst.stackBytes()
		p.idle <- inst
		if n > memory.RetainStackBytes {
			t.Fatalf("an idle instance keeps %d bytes of call stack", n)
		}
	default: // discarded: nothing idle
	}
	mu.Lock()
	discarded := strings.Contains(logs.String(), "instance discarded: its call stack grew")
	mu.Unlock()
	if !discarded {
		t.Error("no log line for the discarded instance")
	}
	if out, err := g.Call(context.Background(), "ok", nil); err != nil || len(out) == 0 {
		t.Fatalf("ok after deep: %s %v", out, err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
