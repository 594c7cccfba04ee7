package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileKeepsModeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := WriteFile(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file mode %v, want 0600", fi.Mode().Perm())
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "two" || fi.Mode().Perm() != 0o640 {
		t.Fatalf("got %q mode %v, want \"two\" mode 0640 (kept)", b, fi.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("directory holds %d entries, want only the file", len(ents))
	}
}

func TestAbortRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(dir, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	f.Abort()
	f.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("abort left %d entries", len(ents))
	}
}

// CommitNew creates the file once: a second CommitNew of other content fails with
// fs.ErrExist and leaves the first content; neither leaves a temporary file behind.
func TestCommitNewDoesNotReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "key")
	for i, content := range []string{"first", "second"} {
		f, err := Create(dir, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(content))
		err = f.CommitNew(p)
		if i == 0 && err != nil {
			t.Fatalf("first CommitNew: %v", err)
		}
		if i == 1 && !errors.Is(err, fs.ErrExist) {
			t.Fatalf("second CommitNew = %v, want fs.ErrExist", err)
		}
		f.Abort() // a no-op after CommitNew
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "first" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("got %q mode %v, want \"first\" mode 0600", b, fi.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("directory holds %d entries, want only the file", len(ents))
	}
}
