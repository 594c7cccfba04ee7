//go:build unix

package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cache directory others can write is refused, naming it and the fix; so is one under a
// directory others can write (the sibling: the parent can rename the cache away), and one
// owned by another user.
func TestCacheDirRefusedWhenOthersCanWrite(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	_, err := NewHost(context.Background(), &Options{CacheDir: open})
	want := "cache directory " + open + " is writable by group or others (mode 0777): anyone who can write it controls the code mcpwasm runs; run chmod 700 " + open
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("NewHost = %v, want an error containing %q", err, want)
	}

	parent := filepath.Join(base, "shared")
	os.Mkdir(parent, 0o700)
	os.Chmod(parent, 0o775)
	inner := filepath.Join(parent, "cache")
	_, err = NewHost(context.Background(), &Options{CacheDir: inner})
	want = "the directory above it, " + parent + ", is writable by group or others (mode 0775)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("NewHost under a group-writable parent = %v, want %q", err, want)
	}

	if os.Getuid() == 0 {
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o700)
		if err := os.Chown(other, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		_, err = NewHost(context.Background(), &Options{CacheDir: other})
		if err == nil || !strings.Contains(err.Error(), "is owned by uid 4242, not by the current user") {
			t.Fatalf("NewHost with another user's dir = %v", err)
		}
	}
}
