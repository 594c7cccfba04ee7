package runtime_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// WASI commands small enough to compile in a moment: each exports _start and imports only
// wasi_snapshot_preview1.
const (
	// reader reads stdin until its end, then returns (exit code 0).
	watReader = `(module
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 256))
    (loop $more
      (drop (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
      (br_if $more (i32.load (i32.const 8))))))`
	// spinner loops forever.
	watSpinner = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start") (loop $l (br $l))))`
	// grower grows its memory until refused, then traps.
	watGrower = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (loop $l (br_if $l (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
    unreachable))`
)

func watModule(t *testing.T, src string) []byte {
	t.Helper()
	wat2wasm, err := exec.LookPath("wat2wasm")
	if err != nil {
		testenv.Skip(t, "wat2wasm not installed (Debian package wabt)")
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "m.wat"), filepath.Join(dir, "m.wasm")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(wat2wasm, in, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wasiHost(t *testing.T) *runtime.Host {
	t.Helper()
	h, err := runtime.NewHost(t.Context(), &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

func loadServer(t *testing.T, h *runtime.Host, src string, cfg *runtime.GuestConfig) *runtime.Server {
	t.Helper()
	s, err := h.LoadServer(t.Context(), watModule(t, src), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func ended(t *testing.T, p peer.Process) error {
	t.Helper()
	select {
	case <-p.Done():
		return p.Err()
	case <-time.After(time.Minute):
		t.Fatal("the instance did not end")
		return nil
	}
}

// A WASI command is a whole server: Load refuses it, naming LoadServer; a module that imports
// anything else is not one.
func TestWASIServerDetected(t *testing.T) {
	h := wasiHost(t)
	wasm := watModule(t, watReader)
	if !h.IsWASIServer(wasm) {
		t.Fatal("IsWASIServer(reader) = false")
	}
	if _, err := h.Load(t.Context(), wasm, &runtime.GuestConfig{Source: "reader.wasm"}); err == nil || err.Error() != "reader.wasm: ABI violation: module is a whole MCP server (a WASI command: exports _start, imports only wasi_snapshot_preview1); load it with LoadServer" {
		t.Errorf("Load: %v", err)
	}
	other := watModule(t, `(module (import "env" "f" (func)) (import "wasi_snapshot_preview1" "proc_exit" (func (param i32))) (func (export "_start")))`)
	if h.IsWASIServer(other) {
		t.Error("IsWASIServer(imports env) = true")
	}
	if _, err := h.LoadServer(t.Context(), other, &runtime.GuestConfig{Source: "other.wasm"}); err == nil {
		t.Error("LoadServer accepted a module that imports env")
	}
	for _, iso := range []string{"", "session", "shared", "call"} {
		s, err := h.LoadServer(t.Context(), wasm, &runtime.GuestConfig{Source: "reader.wasm", Isolation: iso})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"": "session"}[iso]; s.Isolation() != iso && s.Isolation() != want {
			t.Errorf("isolation %q: %q", iso, s.Isolation())
		}
		s.Close(t.Context())
	}
	if _, err := h.LoadServer(t.Context(), wasm, &runtime.GuestConfig{Source: "reader.wasm", Isolation: "process"}); err == nil {
		t.Error(`LoadServer accepted isolation "process"`)
	}
}

// Close ends a program blocked reading stdin (its stdin ends: it returns, exit code 0) and,
// after the grace, one that never reads.
func TestWASIServerClose(t *testing.T) {
	h := wasiHost(t)
	r := loadServer(t, h, watReader, &runtime.GuestConfig{Source: "reader.wasm"})
	p, err := r.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if err := ended(t, p); err == nil || err.Error() != "the server exited (exit code 0)" {
		t.Errorf("reader: %v", err)
	}
	s := loadServer(t, h, watSpinner, &runtime.GuestConfig{Source: "spinner.wasm"})
	p, err = s.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if err := ended(t, p); err == nil || err.Error() != "instance stopped" {
		t.Errorf("spinner: %v", err)
	}
	if n := s.Running(); n != 0 {
		t.Errorf("running %d", n)
	}
}

// Host.Close ends a whole server's running instance, one that loops forever included, with
// ErrClosed (its interrupt global is set; it used to rely on the runtime closing under it,
// which an instance still being instantiated then could miss: once in a -race run it spun on).
func TestWASIServerHostClose(t *testing.T) {
	h, err := runtime.NewHost(t.Context(), &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := h.LoadServer(t.Context(), watModule(t, watSpinner), &runtime.GuestConfig{Source: "spinner.wasm"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := ended(t, p); !errors.Is(err, runtime.ErrClosed) || err.Error() != "closed" {
		t.Errorf("running instance: %v", err)
	}
}

// The kill switch ends running instances with ErrStopped and refuses new ones until Resume.
func TestWASIServerKillSwitch(t *testing.T) {
	h := wasiHost(t)
	s := loadServer(t, h, watSpinner, &runtime.GuestConfig{Source: "spinner.wasm"})
	p, err := s.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	h.Stop()
	if err := ended(t, p); !errors.Is(err, runtime.ErrStopped) {
		t.Errorf("running instance: %v, want ErrStopped", err)
	}
	if _, err := s.Start(t.Context()); !errors.Is(err, runtime.ErrStopped) {
		t.Errorf("Start while stopped: %v", err)
	}
	h.Resume()
	p, err = s.Start(t.Context())
	if err != nil {
		t.Fatalf("Start after Resume: %v", err)
	}
	p.Stop()
	ended(t, p)
}

// The instances limit: a Start beyond it waits for its context, then names the limit; an
// instance's end frees its place.
func TestWASIServerInstanceLimit(t *testing.T) {
	h := wasiHost(t)
	s := loadServer(t, h, watReader, &runtime.GuestConfig{Source: "reader.wasm", Limits: runtime.Limits{Instances: 1}})
	p, err := s.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = s.Start(ctx)
	if want := "instance limit reached: all 1 instances are in use by other sessions (limit instances): context deadline exceeded"; err == nil || err.Error() != want {
		t.Errorf("second Start: %v, want %q", err, want)
	}
	p.Close()
	ended(t, p)
	p, err = s.Start(t.Context())
	if err != nil {
		t.Fatalf("Start after the first ended: %v", err)
	}
	p.Close()
}

// A program that grows its memory past the limit ends with ErrMemoryLimit naming it.
func TestWASIServerMemoryLimit(t *testing.T) {
	h := wasiHost(t)
	s := loadServer(t, h, watGrower, &runtime.GuestConfig{Source: "grower.wasm", Limits: runtime.Limits{MemoryBytes: 4 << 20}})
	p, err := s.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	err = ended(t, p)
	if want := "memory limit reached: its linear memory would exceed 4 MiB; the instance ended"; err == nil || err.Error() != want || !errors.Is(err, runtime.ErrMemoryLimit) {
		t.Errorf("grower: %v, want %q", err, want)
	}
}
