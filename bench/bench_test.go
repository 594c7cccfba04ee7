package bench

import (
	"bytes"
	"context"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestCurrent rebuilds the committed .wasm files from their .wat sources (fast; no Go build).
func TestCurrent(t *testing.T) {
	wat2wasm, err := exec.LookPath("wat2wasm")
	if err != nil {
		testenv.Skip(t, "wat2wasm not installed (Debian package wabt)")
	}
	for _, name := range []string{"bare_echo", "extism_echo", "extism_v1_echo"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), name+".wasm")
			src := filepath.Join("testdata", name)
			if b, err := exec.Command(wat2wasm, src+".wat", "-o", out).CombinedOutput(); err != nil {
				t.Fatalf("wat2wasm %s.wat: %v\n%s", src, err, b)
			}
			want, _ := os.ReadFile(out)
			got, err := os.ReadFile(src + ".wasm")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("bench/%s.wasm is stale: run wat2wasm bench/%s.wat -o bench/%s.wasm", src, src, src)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	for _, n := range Sizes {
		if got := len(Args(n)); got != n {
			t.Errorf("len(Args(%d)) = %d", n, got)
		}
	}
	b, name := GoEchoCopy([]byte("xx"+GoEchoID+"yy"), 42)
	if name != "gecho0042" || string(b) != "xxgecho0042yy" {
		t.Errorf("GoEchoCopy = %q, %q", b, name)
	}
}

var (
	envOnce sync.Once
	envDir  string
	env     *Env
	envErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if env != nil {
		env.Close()
	}
	if envDir != "" {
		os.RemoveAll(envDir)
	}
	os.Exit(code)
}

// getEnv builds the Go guests and sets up the shared Env on first use, so plain
// `go test ./...` never pays for it.
func getEnv(b *testing.B) *Env {
	envOnce.Do(func() {
		envDir, envErr = os.MkdirTemp("", "mcpwasm-bench")
		if envErr != nil {
			return
		}
		env, envErr = NewEnv(context.Background(), envDir)
	})
	if envErr != nil {
		b.Fatal(envErr)
	}
	return env
}

func benchName(c Case) string {
	n := c.Group + "/" + strings.NewReplacer(" ", "_", ":", "", "+", "").Replace(c.Name)
	if c.Size > 0 {
		n += "/" + SizeName(c.Size)
	}
	return n
}

// BenchmarkWarm: a warm-instance echo of 100 B, 10 KiB and 1 MiB through the floor, mcpwasm
// and Extism.
func BenchmarkWarm(b *testing.B) {
	for _, c := range getEnv(b).WarmCases(Sizes) {
		b.Run(benchName(c), c.F)
	}
}

// BenchmarkCPU: SHA-256 of 1 MiB in a Go guest with no interruption checks, with wazero's
// WithCloseOnContextDone, and through mcpwasm.
func BenchmarkCPU(b *testing.B) {
	for _, c := range getEnv(b).CPUCases() {
		b.Run(benchName(c), c.F)
	}
}

// BenchmarkLoad: Host.Load with a warm compilation cache, and Close, of an mcpwasm guest and
// of an Extism plugin of the same byte size.
func BenchmarkLoad(b *testing.B) {
	for _, c := range getEnv(b).LoadCases() {
		b.Run(benchName(c), c.F)
	}
}

func TestPadTo(t *testing.T) {
	for _, n := range []int{len(wat.Echo) + 6, len(wat.Echo) + 200, len(wat.Echo) + 300} {
		if got := PadTo(wat.Echo, n); len(got) != n || !bytes.Equal(got[:len(wat.Echo)], wat.Echo) {
			t.Errorf("PadTo(%d bytes, %d) is %d bytes", len(wat.Echo), n, len(got))
		}
	}
	if got := PadTo(wat.Echo, len(wat.Echo)+5); len(got) != len(wat.Echo) { // no section is 5 bytes
		t.Errorf("PadTo(+5) is %d bytes", len(got))
	}
}

// BenchmarkFresh: a 100-byte echo in a fresh instance per call.
func BenchmarkFresh(b *testing.B) {
	for _, c := range getEnv(b).FreshCases() {
		b.Run(benchName(c), c.F)
	}
}
