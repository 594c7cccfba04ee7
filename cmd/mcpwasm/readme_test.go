package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// The grants example of docs/grants.md (the README's until the guides moved to docs/) loads
// as written once its setup lines have run: files.wasm's fs grant names "docs" beside the
// config (it named /srv/docs, which a newcomer's machine does not have: exit 3 after
// compiling every guest). Without that directory it fails, naming it. echo.wasm and
// state.wasm stand in for fetch.wasm and git.wasm (their grants are not effective then; their
// tool names, echo and remember, clash with no other guest's, as the real guests' do not);
// files.wasm is the real guest, whose request makes the fs grant count.
func TestReadmeGrantsExample(t *testing.T) {
	_, after, ok := strings.Cut(docFileText(t, "docs/grants.md"), "Nothing is granted by default.")
	_, block, ok2 := strings.Cut(after, "```json\n")
	block, _, ok3 := strings.Cut(block, "```\n")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/grants.md: no json block after \"Nothing is granted by default.\"")
	}
	dir := t.TempDir()
	files := filepath.Join(dir, "files.wasm")
	cmd := exec.CommandContext(testContext(t), "go", "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-o", files, "../../guests/files")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building guests/files: %v\n%s", err, out)
	}
	for name, b := range map[string][]byte{"fetch.wasm": wat.Echo, "git.wasm": wat.State} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := filepath.Join(dir, "mcpwasm.json")
	if err := os.WriteFile(config, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI("inspect", "--cache-dir", cacheDir, "--config", config)
	if want := filepath.Join(dir, "docs"); code != ExitLoad || !strings.Contains(errOut, want) {
		t.Errorf("without docs/: exit %d, stderr %q; want exit %d naming %s", code, errOut, ExitLoad, want)
	}
	if err := os.Mkdir(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("inspect", "--cache-dir", cacheDir, "--config", config)
	if want := "    effective: fs /data=" + filepath.Join(dir, "docs") + "\n"; code != ExitOK || !strings.Contains(out, want) {
		t.Errorf("exit %d, stderr %q; output lacks %q:\n%s", code, errOut, want, out)
	}
}
