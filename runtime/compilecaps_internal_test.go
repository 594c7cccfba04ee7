package runtime

import (
	"os"
	"path/filepath"
	"testing"
)

// The bundled guests (Go, ~3-4 MB) are estimated far under the default compile memory limit:
// a Go guest's functions are small (the largest of these is ~50 KB). Measured peaks: 87 MiB
// (calc) and 110 MiB (text). A QuickJS engine (~640 KB) stays under it unless one function
// alone exceeds ~560 KiB.
func TestCompileEstimateBundledGuests(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "guests", "*.wasm"))
	if len(paths) == 0 {
		t.Fatal("no bundled guests")
	}
	for _, p := range paths {
		wasm, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		est, largest, _, funcs, code, ok := compileEstimate(wasm)
		if !ok || est > DefaultLimits().CompileMemory/4 {
			t.Errorf("%s: estimated %s (largest function %d bytes, %d functions, %d bytes of code), want under a quarter of the limit",
				p, approxBytes(est), largest, funcs, code)
		}
		if err := checkCompileMemory(wasm, DefaultLimits()); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	// One function of 512 KiB (a large interpreter loop) fits alone.
	if est := uint64(compileBase) + compilePerLargestByte*(512<<10) + compilePerCodeByte*(640<<10) + compilePerFunction*1000; est > DefaultLimits().CompileMemory {
		t.Errorf("a 640 KB module with a 512 KiB function is estimated %s", approxBytes(est))
	}
}
