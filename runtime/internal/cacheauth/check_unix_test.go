//go:build unix

package cacheauth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeyFileMustBePrivate(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, KeyName)
	if fi, _ := os.Stat(key); fi.Mode().Perm() != 0o600 {
		t.Fatalf("key mode %v, want 0600", fi.Mode().Perm())
	}
	os.Chmod(key, 0o644)
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), "is readable or writable by others (mode 0644): run chmod 600 "+key) {
		t.Fatalf("Open with a 0644 key = %v", err)
	}
}
