package sandbox

import (
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/policy"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// newRootFS returns a rootFS on a fresh directory box/data in a temp dir, and the temp dir,
// whose "outside" directory holds a file the guest must never reach.
func newRootFS(t *testing.T, rw bool) (*rootFS, string) {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "box", "data")
	for _, d := range []string{data, filepath.Join(dir, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "outside", "secret"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "f"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return &rootFS{root: root, rw: rw}, dir
}

// readable checks the grant still serves a normal read after whatever a test did.
func readable(t *testing.T, r *rootFS) {
	t.Helper()
	f, errno := r.OpenFile("f", experimentalsys.O_RDONLY, 0)
	if errno != 0 {
		t.Fatalf("open f: %v", errno)
	}
	defer f.Close()
	buf := make([]byte, 16)
	n, errno := f.Read(buf)
	if errno != 0 || string(buf[:n]) != "hello" {
		t.Fatalf("read f: %q, %v", buf[:n], errno)
	}
}

// Opening a FIFO (or anything but a regular file or directory) is refused at once instead of
// blocking the call forever (reproducer fs-fifo-hang).
func TestRootFSRefusesFIFO(t *testing.T) {
	r, dir := newRootFS(t, true)
	fifo := filepath.Join(dir, "box", "data", "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		testenv.Skip(t, "mkfifo: %v", err)
	}
	for _, flag := range []experimentalsys.Oflag{experimentalsys.O_RDONLY, experimentalsys.O_WRONLY, experimentalsys.O_RDWR} {
		done := make(chan experimentalsys.Errno, 1)
		go func() {
			f, errno := r.OpenFile("pipe", flag, 0)
			if f != nil {
				f.Close()
			}
			done <- errno
		}()
		select {
		case errno := <-done:
			if errno == 0 {
				t.Errorf("flag %v: opening a FIFO succeeded", flag)
			}
		case <-time.After(10 * time.Second): // a failure deadline, not a wait: the open must not block at all
			t.Fatalf("flag %v: opening a FIFO blocked", flag)
		}
	}
	readable(t, r)
}

func TestRootFSSymlinkEscapes(t *testing.T) {
	r, dir := newRootFS(t, true)
	data := filepath.Join(dir, "box", "data")
	must := func(errno experimentalsys.Errno, what string) {
		t.Helper()
		if errno != 0 {
			t.Fatalf("%s: %v", what, errno)
		}
	}
	denied := func(errno experimentalsys.Errno, what string) {
		t.Helper()
		if errno == 0 {
			t.Errorf("%s succeeded, want an errno", what)
		}
	}
	must(r.Mkdir("a", 0o755), "mkdir a")
	must(r.Mkdir("a/b", 0o755), "mkdir a/b")

	// Targets that climb or are absolute, wherever the link goes.
	denied(r.Symlink("/etc/passwd", "abs"), "symlink to an absolute path")
	denied(r.Symlink("../outside/secret", "up"), "symlink ../")
	denied(r.Symlink("../x", "a/b/l"), "symlink ../ from a subdirectory (lexically inside)")
	denied(r.Symlink("a/../../outside", "mid"), "symlink with .. in the middle")

	// A link created through another link: s -> . makes "a/s/x" land in "a".
	must(r.Symlink(".", "a/s"), "symlink a/s -> .")
	denied(r.Symlink("../../outside", "a/s/s/x"), "symlink through a link to .")
	must(r.Symlink("b", "a/s/tob"), "descending symlink through a link")

	// Links the operator left (or that existed before): renaming or hard-linking one whose
	// target climbs, to a shallower place, is refused; trailing slashes do not hide it.
	if err := os.Symlink("../../f", filepath.Join(data, "a", "b", "deep")); err != nil {
		t.Fatal(err)
	}
	denied(r.Rename("a/b/deep", "deep"), "rename a climbing link shallower")
	denied(r.Rename("a/b/deep/", "deep2"), "rename a climbing link with a trailing slash")
	denied(r.Link("a/b/deep", "deep3"), "hard-link a climbing link shallower")
	must(r.Rename("a/s/tob", "tob"), "rename a descending link")

	// A link to outside the grant is never followed, with or without a trailing slash.
	if err := os.Symlink(filepath.Join(dir, "outside"), filepath.Join(data, "out")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"out/", "out/secret", "out/./secret"} {
		if f, errno := r.OpenFile(p, experimentalsys.O_RDONLY, 0); errno == 0 {
			f.Close()
			t.Errorf("open %s through a link to outside succeeded", p)
		}
		if _, errno := r.Stat(p); errno == 0 {
			t.Errorf("stat %s through a link to outside succeeded", p)
		}
	}
	denied(r.Mkdir("out/x", 0o755), "mkdir through a link to outside")
	denied(r.Symlink("f", "out/x"), "symlink through a link to outside")
	denied(r.Rename("f", "out/f"), "rename into a link to outside")

	// Nothing under box/data resolves outside it.
	filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Type()&os.ModeSymlink == 0 || p == filepath.Join(data, "out") {
			return nil
		}
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			if rel, _ := filepath.Rel(data, real); !local(filepath.ToSlash(rel)) {
				t.Errorf("%s resolves to %s, outside the grant", p, real)
			}
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(dir, "outside", "f")); err == nil {
		t.Error("a file was moved outside the grant")
	}
	readable(t, r)
}

func local(p string) bool { return p != ".." && !(len(p) > 2 && p[:3] == "../") }

// A read-only grant refuses truncation by any route: O_TRUNC, or truncating a file opened
// for reading.
func TestRootFSReadOnlyTruncate(t *testing.T) {
	r, dir := newRootFS(t, false)
	if _, errno := r.OpenFile("f", experimentalsys.O_RDONLY|experimentalsys.O_TRUNC, 0); errno == 0 {
		t.Error("O_TRUNC through a read-only grant succeeded")
	}
	f, errno := r.OpenFile("f", experimentalsys.O_RDONLY, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	if errno := f.Truncate(0); errno == 0 {
		t.Error("truncating a file opened read-only succeeded")
	}
	f.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, "box", "data", "f")); string(b) != "hello" {
		t.Fatalf("file changed: %q", b)
	}
	readable(t, r)
}

// A read-only grant nested in a read-write one is refused at validation; one beside it
// cannot be reached from the read-write grant.
func TestFSGrantNesting(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"rw/ro", "side/rw", "side/ro"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	nested := policy.Grants{FS: []policy.FS{
		{Guest: "/w", Host: filepath.Join(dir, "rw"), RW: true},
		{Guest: "/r", Host: filepath.Join(dir, "rw", "ro")},
	}}
	if err := nested.Validate(); err == nil {
		t.Error("a read-only grant inside a read-write one was accepted")
	}
	same := policy.Grants{FS: []policy.FS{
		{Guest: "/w", Host: filepath.Join(dir, "rw"), RW: true},
		{Guest: "/r", Host: filepath.Join(dir, "rw")},
	}}
	if err := same.Validate(); err == nil {
		t.Error("a read-only grant of the read-write directory was accepted")
	}
	beside := policy.Grants{FS: []policy.FS{
		{Guest: "/w", Host: filepath.Join(dir, "side", "rw"), RW: true},
		{Guest: "/r", Host: filepath.Join(dir, "side", "ro")},
	}}
	if err := beside.Validate(); err != nil {
		t.Fatalf("grants side by side: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "side", "ro", "f"), []byte("ro"), 0o644)
	root, err := os.OpenRoot(filepath.Join(dir, "side", "rw"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	r := &rootFS{root: root, rw: true}
	if f, errno := r.OpenFile("../ro/f", experimentalsys.O_RDWR|experimentalsys.O_TRUNC, 0); errno == 0 {
		f.Close()
		t.Error("opened the read-only neighbour through the read-write grant")
	}
	if errno := r.Symlink("../ro/f", "l"); errno == 0 {
		t.Error("linked to the read-only neighbour")
	}
	if errno := r.Link("../ro/f", "l"); errno == 0 {
		t.Error("hard-linked the read-only neighbour")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "side", "ro", "f")); string(b) != "ro" {
		t.Fatalf("read-only neighbour changed: %q", b)
	}
}
