package runtime_test

import (
	"bytes"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestWATFixturesCurrent rebuilds every testdata/wat/*.wat and compares it with the
// committed .wasm. It lives here because `go test ./...` skips testdata directories.
func TestWATFixturesCurrent(t *testing.T) {
	wat2wasm, err := exec.LookPath("wat2wasm")
	if err != nil {
		testenv.Skip(t, "wat2wasm not installed (Debian package wabt)")
	}
	for _, name := range []string{"echo", "fixture", "interrupt", "hardening", "hygiene", "state", "updated"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), name+".wasm")
			if b, err := exec.Command(wat2wasm, filepath.Join("..", "testdata", "wat", name+".wat"), "-o", out).CombinedOutput(); err != nil {
				t.Fatalf("wat2wasm %s.wat: %v\n%s", name, err, b)
			}
			want, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join("..", "testdata", "wat", name+".wasm"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("testdata/wat/%s.wasm is stale: run wat2wasm testdata/wat/%s.wat -o testdata/wat/%s.wasm", name, name, name)
			}
		})
	}
}
