package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildGoPDK builds testdata/gopdk — a hyper-mcp v1 plugin written with the Extism Go PDK
// (pinned to v1.1.3 by its own go.mod) in the shape of hyper-mcp's Go plugins — with stock Go,
// after fix rewrites its source, and returns the module's path.
func buildGoPDK(t *testing.T, fix func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "gopdk", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "main.go" {
			b = []byte(fix(string(b)))
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "gopdk.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=-mod=mod", "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building testdata/gopdk: %v\n%s", err, b)
	}
	return out
}

// An Extism plugin built with stock Go from TinyGo-style //export lines exports only
// _initialize: it is refused with the fix in the message; with the two-line fix
// (//go:wasmexport) it is served (issue 45 item 15).
func TestGoPDKPluginWithStockGo(t *testing.T) {
	asIs := buildGoPDK(t, func(s string) string { return s })
	out, err := exec.Command(binPath, "inspect", "--cache-dir", cacheDir, asIs).CombinedOutput()
	want := "exports only _initialize, as stock Go builds a module whose functions are marked //export (TinyGo's directive, which Go ignores): " +
		"use //go:wasmexport NAME on each entry point (an Extism plugin: //go:wasmexport call and //go:wasmexport describe"
	if err == nil || !strings.Contains(string(out), want) {
		t.Errorf("inspect of the unmodified plugin: %v\n%s\nwant %q", err, out, want)
	}
	fixed := buildGoPDK(t, func(s string) string {
		s = strings.Replace(s, "//export call\n", "//go:wasmexport call\n", 1)
		return strings.Replace(s, "//export describe\n", "//go:wasmexport describe\n", 1)
	})
	out, err = exec.Command(binPath, "call", "greet", `{"name":"Ada"}`, "--", binPath, "serve", "--cache-dir", cacheDir, fixed).CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "Hello, Ada!\n") {
		t.Errorf("call of the fixed plugin: %v\n%s", err, out)
	}
}
