package engine

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/kind/extism"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// Each instance of a plugin gets its own kernel module through kind.Traits.Linked: the
// kernel's bytes live in that module's memory (a 100-byte call grows it to one page, counted
// with the instance's memory), two instances have two, and closing the guest closes them.
func TestExtismKernelLinkedPerInstance(t *testing.T) {
	wasm, err := os.ReadFile(filepath.Join("..", "kind", "extism", "testdata", "v1.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHost(context.Background(), &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	ctx := context.Background()
	g, err := h.Load(ctx, wasm, &GuestConfig{Source: "v1.wasm", Limits: Limits{Instances: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Call(ctx, "echo", []byte(`{"text":"x"}`)); err != nil {
		t.Fatal(err)
	}
	p := g.pools[0]
	a := <-p.idle
	b, err := p.instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ka, kb := a.Linked(extism.EnvModule), b.Linked(extism.EnvModule)
	if ka == nil || kb == nil || ka == kb {
		t.Fatalf("kernel modules %v and %v, want one per instance", ka, kb)
	}
	if got := ka.Memory().Size(); got != 65536 {
		t.Errorf("the called instance's kernel memory is %d bytes, want one page", got)
	}
	if got := a.vars.Used(); got != 65536 {
		t.Errorf("the called instance accounts %d host-side bytes, want its kernel's page", got)
	}
	if got := kb.Memory().Size(); got != 0 || b.vars.Used() != 0 {
		t.Errorf("a fresh instance's kernel memory is %d bytes (%d accounted), want 0", got, b.vars.Used())
	}
	b.close(ctx)
	if !kb.IsClosed() {
		t.Error("closing an instance left its kernel module open")
	}
	p.idle <- a
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if !ka.IsClosed() {
		t.Error("closing the guest left its instance's kernel module open")
	}
}

// The kernel module's compiled code goes through the authenticated disk cache as a guest's
// does: a second host on the same cache finds it signed, and discards nothing.
func TestExtismKernelCompiledCodeSigned(t *testing.T) {
	wasm, err := os.ReadFile(filepath.Join("..", "kind", "extism", "testdata", "v1.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx := context.Background()
	for i := range 2 {
		var logs strings.Builder
		h, err := NewHost(ctx, &Options{CacheDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		g, err := h.Load(ctx, wasm, &GuestConfig{Source: "v1.wasm"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Call(ctx, "echo", []byte(`{"text":"x"}`)); err != nil {
			t.Fatal(err)
		}
		// A guest compiled after the kernel checks the cache again.
		if _, err := h.Load(ctx, wat.Echo, nil); err != nil {
			t.Fatal(err)
		}
		h.Close(ctx)
		if strings.Contains(logs.String(), "fails authentication") {
			t.Errorf("host %d: %s", i+1, logs.String())
		}
	}
}
