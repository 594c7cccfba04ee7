package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var conformanceOnce struct {
	sync.Once
	path string
	err  error
	out  []byte
}

// conformanceGuest builds the Go guest testdata/guests/conformance (completions, a
// subscribable resource, the conformance suite's fixtures) once per test run and returns the
// .wasm path.
func conformanceGuest(t *testing.T) string {
	t.Helper()
	c := &conformanceOnce
	c.Do(func() {
		c.path = filepath.Join(filepath.Dir(binPath), "conformance.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-o", c.path, "../../testdata/guests/conformance")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		c.out, c.err = cmd.CombinedOutput()
	})
	if c.err != nil {
		t.Fatalf("building testdata/guests/conformance: %v\n%s", c.err, c.out)
	}
	return c.path
}
