package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

func skipWithoutFileIdentity(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("file identity is implemented on linux only; LoadFile reads the file elsewhere")
	}
}

// writeModule writes wasm to a new file in dir and returns its path.
func writeModule(t *testing.T, dir string, wasm []byte) string {
	t.Helper()
	p := filepath.Join(dir, "guest.wasm")
	if err := os.WriteFile(p, wasm, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustLoadFile(t *testing.T, h *Host, path string, cfg *GuestConfig) *Guest {
	t.Helper()
	g, err := h.LoadFile(context.Background(), path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLoadFileServesCachedWithoutReading: the first LoadFile reads the module and records the
// file's identity; the next (a new host, as at the next start) serves the guest from the
// cached manifest without reading the file, and its calls work once the background compile
// has read and checked it.
func TestLoadFileServesCachedWithoutReading(t *testing.T) {
	skipWithoutFileIdentity(t)
	dir := t.TempDir()
	path := writeModule(t, t.TempDir(), wat.Fixture)
	h1, _ := testHost(t, Options{CacheDir: dir, Lazy: true})
	g1 := mustLoadFile(t, h1, path, nil)
	if g1.code.entry != nil || g1.Source() != path {
		t.Fatalf("first LoadFile: entry used %v, source %q", g1.code.entry != nil, g1.Source())
	}
	want := mustCall(t, g1, "echo", `{"x":1}`)
	h1.Close(context.Background())

	lookups := &lookupCounter{}
	h2, _ := testHost(t, Options{CacheDir: dir, Lazy: true, Observer: lookups})
	release := holdCompiles(h2)
	defer release()
	g2 := mustLoadFile(t, h2, path, nil)
	if lookups.hits.Load() != 1 || lookups.misses.Load() != 0 {
		t.Errorf("manifest cache lookups reported: %d hits, %d misses; want 1 hit (a newcomer saw 0 and 0)", lookups.hits.Load(), lookups.misses.Load())
	}
	if g2.code.entry == nil || g2.code.wasm != nil || g2.code.path != path {
		t.Fatalf("second LoadFile: entry %v, bytes held %v, path %q; want the cached manifest and the file unread", g2.code.entry != nil, g2.code.wasm != nil, g2.code.path)
	}
	if g2.Name() != g1.Name() || len(g2.Manifest().Tools) != len(g1.Manifest().Tools) {
		t.Errorf("cached manifest differs: %s/%d tools, want %s/%d", g2.Name(), len(g2.Manifest().Tools), g1.Name(), len(g1.Manifest().Tools))
	}
	release()
	if got := mustCall(t, g2, "echo", `{"x":1}`); got != want {
		t.Errorf("echo = %s, want %s", got, want)
	}
}

// otherModule is the fixture plus a custom section: different bytes, the same manifest.
func otherModule() []byte {
	return append(bytes.Clone(wat.Fixture), 0, 5, 3, 'x', 'y', 'z', 0)
}

// TestLoadFileChangedBytesNeverRun: bytes that change after LoadFile served the cached
// manifest (the file replaced before the background compile reads it) are refused before
// anything runs; and a file replaced before LoadFile has a new identity, so it is read and
// described afresh.
func TestLoadFileChangedBytesNeverRun(t *testing.T) {
	skipWithoutFileIdentity(t)
	dir := t.TempDir()
	path := writeModule(t, t.TempDir(), wat.Fixture)
	h1, _ := testHost(t, Options{CacheDir: dir, Lazy: true})
	mustLoadFile(t, h1, path, nil)
	h1.Close(context.Background())

	h2, _ := testHost(t, Options{CacheDir: dir, Lazy: true})
	release := holdCompiles(h2)
	defer release()
	g := mustLoadFile(t, h2, path, &GuestConfig{Source: "guest.wasm"})
	if g.code.entry == nil {
		t.Fatal("LoadFile did not use the cached manifest")
	}
	if err := os.WriteFile(path, otherModule(), 0o600); err != nil {
		t.Fatal(err)
	}
	release()
	_, err := g.Call(context.Background(), "echo", []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), "guest.wasm: loading in the background: "+ErrABI.Error()+": the module does not match its manifest cache entry") {
		t.Fatalf("Call after the file changed = %v, want the manifest mismatch", err)
	}

	// The next start sees a new identity: the file is read and described, and works.
	h3, _ := testHost(t, Options{CacheDir: dir, Lazy: true})
	g3 := mustLoadFile(t, h3, path, nil)
	if g3.code.entry != nil && g3.code.wasm == nil {
		t.Fatal("a changed file was served from its old identity's entry")
	}
	mustCall(t, g3, "echo", `{}`)
}

// TestLoadFilePinned: a sha256 pin is checked against the cached entry before the list is
// served (a different pin reads the file and fails with Load's message), and the bytes against
// it before they run.
func TestLoadFilePinned(t *testing.T) {
	skipWithoutFileIdentity(t)
	dir := t.TempDir()
	path := writeModule(t, t.TempDir(), wat.Fixture)
	sum := sha256.Sum256(wat.Fixture)
	pin := hexOf(sum)
	h1, _ := testHost(t, Options{CacheDir: dir, Lazy: true})
	mustLoadFile(t, h1, path, &GuestConfig{SHA256: pin})
	h1.Close(context.Background())

	h2, _ := testHost(t, Options{CacheDir: dir, Lazy: true})
	g := mustLoadFile(t, h2, path, &GuestConfig{SHA256: strings.ToUpper(pin)})
	if g.code.entry == nil || g.code.wasm != nil {
		t.Fatal("a matching pin did not use the cached manifest")
	}
	mustCall(t, g, "echo", `{}`)

	wrong := strings.Repeat("0", 64)
	_, err := h2.LoadFile(context.Background(), path, &GuestConfig{Name: "other", SHA256: wrong})
	if want := path + ": sha256 is " + pin + ", config pins " + wrong; err == nil || err.Error() != want {
		t.Fatalf("LoadFile with another pin = %v, want %s", err, want)
	}
}

// TestLoadFileEager: without Lazy, LoadFile reads and compiles the module as Load does; a
// missing file is the open error.
func TestLoadFileEager(t *testing.T) {
	dir := t.TempDir()
	path := writeModule(t, t.TempDir(), wat.Fixture)
	h, _ := testHost(t, Options{CacheDir: dir})
	g := mustLoadFile(t, h, path, nil)
	if g.compiled == nil || g.code.entry != nil {
		t.Fatal("eager LoadFile did not compile")
	}
	mustCall(t, g, "echo", `{}`)
	missing := filepath.Join(dir, "missing.wasm")
	if _, err := h.LoadFile(context.Background(), missing, nil); err == nil || !os.IsNotExist(err) {
		t.Fatalf("LoadFile(missing) = %v, want not-exist", err)
	}
}

// lookupCounter is an Observer counting manifest cache lookups.
type lookupCounter struct{ hits, misses atomic.Int64 }

func (*lookupCounter) CallDone(string, string, string, time.Duration) {}
func (*lookupCounter) RequestStart(context.Context, string, string, string) func(abi.Status) {
	return nil
}
func (c *lookupCounter) CacheLookup(hit bool) {
	if hit {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
}
