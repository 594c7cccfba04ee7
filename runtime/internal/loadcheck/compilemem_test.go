package loadcheck

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// The bundled guests (Go, ~3-4 MB) are estimated well under the default compile memory limit:
// a Go guest's functions are small (the largest of these is ~50 KB). Measured peaks: 87 MiB
// (calc) and 110 MiB (text). A QuickJS engine (~640 KB) stays under it unless one function
// alone exceeds ~560 KiB.
func TestCompileEstimateBundledGuests(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "..", "guests", "*.wasm"))
	if len(paths) == 0 {
		t.Fatal("no bundled guests")
	}
	for _, p := range paths {
		wasm, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := compileEstimate(wasm)
		if !ok || c.estimate() > policy.DefaultLimits().CompileMemory/2 {
			t.Errorf("%s: estimated %s (%+v), want under half the limit", p, approxBytes(c.estimate()), c)
		}
		if err := CompileMemory(wasm, policy.DefaultLimits()); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if _, err := capTables(wasm, policy.DefaultLimits()); err != nil { // reads its tables and elements
			t.Errorf("%s: tables: %v", p, err)
		}
	}
	// One function of 512 KiB (a large interpreter loop) fits alone.
	if est := (moduleCost{largest: 512 << 10, code: 640 << 10, entries: 5000}).estimate(); est > policy.DefaultLimits().CompileMemory {
		t.Errorf("a 640 KB module with a 512 KiB function is estimated %s", approxBytes(est))
	}
}
