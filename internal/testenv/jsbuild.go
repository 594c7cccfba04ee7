package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	jsguest "github.com/mcpwasm/mcpwasm/abi/js"
)

// BuildJS builds guests/typescript/testdata/file with the TypeScript example's build script
// (abi/js, synced into guests/typescript/mcpwasm first) and returns the module. root is the
// repository's root from the test's directory (".." for runtime, "../.." for a package two
// levels down); args go to the build after the input and output (e.g. "--strict"). Without
// node or the example's npm packages (npm ci --prefix guests/typescript) it skips, which CI
// turns into a failure (Skip).
func BuildJS(t testing.TB, root, file string, args ...string) []byte {
	t.Helper()
	dir := filepath.Join(root, "guests", "typescript")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "esbuild")); err != nil {
		Skip(t, "guests/typescript's npm packages are not installed (run: npm ci --prefix guests/typescript): %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		Skip(t, "node is not installed: %v", err)
	}
	if err := jsguest.Sync(filepath.Join(dir, "mcpwasm")); err != nil { // generated from abi/js
		t.Fatal(err)
	}
	// The build runs in a child process: read its inputs here, so that go test's result cache
	// never replays a PASS for an edited source.
	for _, f := range []string{"testdata/" + file, "mcpwasm/shim.js", "mcpwasm/sdk.js", "mcpwasm/build.mjs"} {
		if _, err := os.ReadFile(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "guest.wasm")
	cmd := exec.CommandContext(t.Context(), node, append([]string{"mcpwasm/build.mjs", "testdata/" + file, out}, args...)...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", file, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
