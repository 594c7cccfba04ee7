package extism

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkEcho: a warm call of bench/testdata/extism_echo.wasm (the plugin the bench module
// runs through extism/go-sdk, BenchmarkWarm's "Extism go-sdk Plugin.Call") through this
// kernel, at 100 B and 1 MiB. The two are compared in RATIONALE.md; when the kind is
// registered the bench module measures it through runtime.
func BenchmarkEcho(b *testing.B) {
	wasm, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "bench", "testdata", "extism_echo.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	p := newEnv(b, 64<<20).loadModule(wasm, false)
	ctx := context.Background()
	for _, n := range []int{100, 1 << 20} {
		in := bytes.Repeat([]byte("x"), n)
		b.Run(map[int]string{100: "100B", 1 << 20: "1MiB"}[n], func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			c := &Call{OutputBytes: 2 << 20}
			for b.Loop() {
				out, err := p.Run(ctx, c, "echo", in)
				if err != nil || len(out) != n {
					b.Fatalf("echo: %d bytes, %v", len(out), err)
				}
			}
		})
	}
}
