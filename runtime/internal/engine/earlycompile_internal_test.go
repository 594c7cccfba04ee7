package engine

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// blockingHandler is a log handler that, at the record with message at, waits for release
// (failing after a generous bound instead of hanging) and reports whether it was released.
type blockingHandler struct {
	slog.Handler
	at       string
	release  <-chan struct{}
	released chan bool
}

func (b *blockingHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == b.at {
		select {
		case <-b.release:
			b.released <- true
		case <-time.After(20 * time.Second):
			b.released <- false
		}
	}
	return b.Handler.Handle(ctx, r)
}

func (b *blockingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &blockingHandler{b.Handler.WithAttrs(as), b.at, b.release, b.released}
}

func (b *blockingHandler) WithGroup(name string) slog.Handler {
	return &blockingHandler{b.Handler.WithGroup(name), b.at, b.release, b.released}
}

// A lazy load's background compile starts while Load still validates the cached manifest,
// not after it: Load is held at its "tools hidden" log (after describe, before the guest is
// registered) until the compile has parsed the module. Compiling after Load would wait there
// for ever (the handler gives up after 20 s and the test fails).
func TestLazyCompileOverlapsLoad(t *testing.T) {
	dir := primed(t)
	parsed := make(chan struct{})
	bh := &blockingHandler{Handler: slog.NewTextHandler(&logBuffer{}, nil), at: "tools hidden by hide_tools", release: parsed, released: make(chan bool, 1)}
	h, err := NewHost(context.Background(), &Options{CacheDir: dir, Lazy: true, Logger: slog.New(bh)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	h.onParse = func([]byte) { close(parsed) }
	g := mustLoad(t, h, wat.Fixture, &GuestConfig{HideTools: []string{"echo"}})
	if !<-bh.released {
		t.Fatal("the background compile did not parse the module while Load was held before registering the guest")
	}
	if g.code.entry == nil {
		t.Fatal("the load did not use the cached manifest")
	}
	if err := g.Ready(context.Background()); err != nil {
		t.Fatalf("Ready = %v", err)
	}
}

// A lazy load that fails after its background compile started returns its own error (the
// compile, let end by the close, is discarded); the module loads again afterwards.
func TestLazyLoadFailsWhileCompiling(t *testing.T) {
	h, _ := testHost(t, Options{CacheDir: primed(t), Lazy: true})
	_, err := h.Load(context.Background(), wat.Fixture, &GuestConfig{ToolLimits: map[string]Limits{"nope": {}}})
	if err == nil || !strings.Contains(err.Error(), `limits given for unknown tool "nope"`) {
		t.Fatalf("Load = %v, want the unknown tool's error", err)
	}
	g := mustLoad(t, h, wat.Fixture, nil)
	mustCall(t, g, "echo", `{"text":"hi"}`)
	if errors.Is(g.Ready(context.Background()), ErrClosed) {
		t.Fatal("the second load's code is closed")
	}
}

// GuestConfig.KeepCode keeps the code of a lazy load's background compile resident, as
// Prewarm does, where it would otherwise be dropped (TestLazyDropsCodeAfterBackgroundCompile):
// serve sets it for the guests it prewarms, whose compile may end before Prewarm is called.
func TestLazyKeepCode(t *testing.T) {
	h, logs := testHost(t, Options{CacheDir: primed(t), Lazy: true})
	g := mustLoad(t, h, wat.Fixture, &GuestConfig{KeepCode: true})
	if err := g.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	g.code.mu.Lock()
	state, compiled := g.code.state, g.compiled
	g.code.mu.Unlock()
	if state != codeReady || compiled == nil {
		t.Fatalf("after the background compile: state %d, code resident %v; want ready and resident", state, compiled != nil)
	}
	if strings.Contains(logs.String(), "code dropped until its first call") {
		t.Errorf("the code was dropped although KeepCode was set:\n%s", logs)
	}
}
