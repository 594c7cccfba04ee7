package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var builds sync.Map // package → *build

type build struct {
	once sync.Once
	wasm []byte
	err  string
}

// GoWasip1 builds Go package pkg (an import path of the main module's dependencies, or
// "./testdata/x") for GOOS=wasip1 GOARCH=wasm with the main module's go.mod, in t.TempDir(),
// and returns the module's bytes. A package is built once per test process; later calls get
// the same bytes (do not modify them). A failed build fails t, naming the go command's
// output; no go command skips (Skip).
func GoWasip1(t testing.TB, pkg string) []byte {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		Skip(t, "no go command to build %s for wasip1: %v", pkg, err)
	}
	v, _ := builds.LoadOrStore(pkg, &build{})
	b := v.(*build)
	b.once.Do(func() {
		out := filepath.Join(t.TempDir(), "m.wasm")
		cmd := exec.Command(goCmd, "build", "-o", out, pkg)
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=-buildvcs=false")
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.err = "building " + pkg + " for wasip1: " + err.Error() + "\n" + string(msg)
			return
		}
		wasm, err := os.ReadFile(out)
		if err != nil {
			b.err = err.Error()
			return
		}
		b.wasm = wasm
	})
	if b.err != "" {
		t.Fatal(b.err)
	}
	return b.wasm
}
