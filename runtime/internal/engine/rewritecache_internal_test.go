package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/cacheauth"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// countRewrites counts the modules h's compiles rewrite (Host.onRewrite); set before Load.
func countRewrites(h *Host) *atomic.Int32 {
	n := new(atomic.Int32)
	h.onRewrite = func([]byte) { n.Add(1) }
	return n
}

// rewrittenFiles lists the rewritten modules kept in cache dir.
func rewrittenFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, rewriteDir, "*.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// rewritePath is the file of wasm's rewrite under the default limits in cache dir.
func rewritePath(dir string, wasm []byte) string {
	return filepath.Join(dir, rewriteDir, rewriteName(sha256.Sum256(wasm), policy.DefaultLimits()))
}

// A warm start compiles the rewrite the first start kept, without rewriting the module
// again: lazily (the background compile, which also skips the structural-cap scan) and
// eagerly. The guest answers as before.
func TestRewriteCacheWarmStartSkipsRewrite(t *testing.T) {
	dir := t.TempDir()
	h, _ := testHost(t, Options{CacheDir: dir})
	first := countRewrites(h)
	mustCall(t, mustLoad(t, h, wat.Fixture, nil), "echo", `{"text":"hi"}`)
	h.Close(context.Background())
	if n := first.Load(); n != 1 {
		t.Fatalf("the first start rewrote the module %d times, want 1", n)
	}
	if files := rewrittenFiles(t, dir); len(files) != 1 || files[0] != rewritePath(dir, wat.Fixture) {
		t.Fatalf("rewritten modules kept: %v, want [%s]", files, rewritePath(dir, wat.Fixture))
	}
	for _, lazy := range []bool{true, false} {
		h, logs := testHost(t, Options{CacheDir: dir, Lazy: lazy})
		n := countRewrites(h)
		g := mustLoad(t, h, wat.Fixture, nil)
		if err := g.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := mustCall(t, g, "echo", `{"text":"hi"}`); !strings.Contains(got, "hi") {
			t.Errorf("lazy %v: echo = %s", lazy, got)
		}
		if n.Load() != 0 {
			t.Errorf("lazy %v: the warm start rewrote the module %d times, want 0", lazy, n.Load())
		}
		if strings.Contains(logs.String(), "discarded") {
			t.Errorf("lazy %v: a good file was discarded:\n%s", lazy, logs)
		}
	}
}

// A rewritten module changed in the cache is discarded (logged, removed) and the module is
// rewritten again, and the file written afresh; so is a good file copied under the name of
// another module's rewrite.
func TestRewriteCacheTamperedRewrittenAgain(t *testing.T) {
	dir := primed(t)
	path := rewritePath(dir, wat.Fixture)
	sealed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	patched := bytes.Clone(sealed)
	patched[len(patched)-1] ^= 0x01
	for _, lazy := range []bool{true, false} {
		if err := os.WriteFile(path, patched, 0o600); err != nil {
			t.Fatal(err)
		}
		h, logs := testHost(t, Options{CacheDir: dir, Lazy: lazy})
		n := countRewrites(h)
		g := mustLoad(t, h, wat.Fixture, nil)
		if err := g.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		mustCall(t, g, "echo", `{"text":"hi"}`)
		if n.Load() != 1 {
			t.Errorf("lazy %v: rewrites with a tampered file: %d, want 1", lazy, n.Load())
		}
		const want = "compilation cache: discarded a rewritten module that fails authentication"
		if !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), filepath.Join(rewriteDir, filepath.Base(path))) {
			t.Errorf("lazy %v: discard not logged (%q):\n%s", lazy, want, logs)
		}
		h.Close(context.Background())
		now, err := os.ReadFile(path)
		if err != nil || bytes.Equal(now, patched) {
			t.Fatalf("lazy %v: the tampered file was kept (err %v)", lazy, err)
		}
		auth, err := cacheauth.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := auth.Unseal(filepath.Base(path), now); err != nil {
			t.Fatalf("lazy %v: the file written again: %v", lazy, err)
		}
	}

	// A good file under another module's name.
	other := append(bytes.Clone(wat.Fixture), 0, 6, 4, 'x', 'y', 'z', 'w', 0) // a custom section
	good, _ := os.ReadFile(path)
	if err := os.WriteFile(rewritePath(dir, other), good, 0o600); err != nil {
		t.Fatal(err)
	}
	h, logs := testHost(t, Options{CacheDir: dir})
	n := countRewrites(h)
	mustCall(t, mustLoad(t, h, other, nil), "echo", `{"text":"hi"}`)
	if n.Load() != 1 || !strings.Contains(logs.String(), "fails authentication") {
		t.Errorf("a file moved to another module's name: rewrites %d (want 1), logs:\n%s", n.Load(), logs)
	}
}

// Limits that change the rewrite (the table bound follows the memory limit) or the checks a
// hit skips miss the cache: the module is rewritten and checked under them.
func TestRewriteCacheLimitsMiss(t *testing.T) {
	dir := primed(t)
	for i, l := range []Limits{{MemoryBytes: 32 << 20}, {CompileMemory: 512 << 20}} {
		h, _ := testHost(t, Options{CacheDir: dir, Lazy: true})
		n := countRewrites(h)
		g := mustLoad(t, h, wat.Fixture, &GuestConfig{Limits: l})
		if err := g.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		mustCall(t, g, "echo", `{"text":"hi"}`)
		if n.Load() != 1 {
			t.Errorf("limits %+v: rewrites %d, want 1", l, n.Load())
		}
		if files := rewrittenFiles(t, dir); len(files) != i+2 {
			t.Errorf("limits %+v: %d rewritten modules kept, want %d", l, len(files), i+2)
		}
	}
}
