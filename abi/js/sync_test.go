package js

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// readTree returns the files under dir by slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// sameFiles reports how got differs from Files: a file missing, extra or with other bytes.
func sameFiles(t *testing.T, what string, got map[string][]byte) {
	t.Helper()
	want := Files()
	for rel, b := range want {
		if g, ok := got[rel]; !ok {
			t.Errorf("%s: %s missing", what, rel)
		} else if !bytes.Equal(g, b) {
			t.Errorf("%s: %s differs from abi/js/%s", what, rel, rel)
		}
	}
	for rel := range got {
		if _, ok := want[rel]; !ok {
			t.Errorf("%s: %s is not a file of the guest SDK", what, rel)
		}
	}
}

// sync.mjs, which the example runs at npm ci and npm run build, writes exactly Files: the
// generated mcpwasm/ is current. A stale file is replaced, a current one left alone.
func TestSyncScript(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" { // as internal/testenv does (abi imports nothing of ours)
			t.Fatalf("node is not installed: %v", err)
		}
		t.Skipf("node is not installed: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "mcpwasm")
	for range 2 { // the second run finds every file current
		if b, err := exec.Command(node, "sync.mjs", dir).CombinedOutput(); err != nil {
			t.Fatalf("node sync.mjs: %v\n%s", err, b)
		}
		sameFiles(t, "sync.mjs", readTree(t, dir))
	}
	if err := os.WriteFile(filepath.Join(dir, "shim.js"), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(node, "sync.mjs", dir).CombinedOutput(); err != nil {
		t.Fatalf("node sync.mjs: %v\n%s", err, b)
	}
	sameFiles(t, "sync.mjs after a stale shim.js", readTree(t, dir))
}

// Sync writes exactly Files, replaces a stale file and leaves no temporary file behind.
func TestSync(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcpwasm")
	if err := Sync(dir); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "Sync", readTree(t, dir))
	if err := os.WriteFile(filepath.Join(dir, "node", "fs.js"), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Sync(dir); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "Sync after a stale node/fs.js", readTree(t, dir))
	if _, ok := Files()["node/fs.js"]; !ok {
		t.Fatal("Files has no node/fs.js: the test's stale file is not one Sync writes")
	}
}
