package cacheauth

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A signed compiled-code file is read in full once, when it is signed: later verifications
// compare its fingerprint (device, inode, size, change time) and do not hash it again. A
// rewrite that keeps the size and restores the modification time still changes the inode
// change time, so it is hashed and discarded. A record written before fingerprints (the MAC
// alone) is hashed once and rewritten with one.
func TestVerifyCompiledReadsOnlyChangedFiles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fingerprint is read on Linux only; elsewhere every file is hashed") // testenv is not imported by this leaf
	}
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join("wazero-test", "0123abcd")
	path := filepath.Join(d.Path(), rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("compiled code"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.SignCompiled(); err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(filepath.Join(d.Path(), MACDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(rec)), "\n"); len(lines) != 2 || len(lines[0]) != 64 || lines[1] == "" {
		t.Fatalf("MAC record = %q; want the hex MAC and a fingerprint", rec)
	}
	d.hashed = 0
	for range 3 {
		if gone, err := d.VerifyCompiled(); err != nil || len(gone) != 0 {
			t.Fatalf("VerifyCompiled = %v, %v; want nothing discarded", gone, err)
		}
	}
	if d.hashed != 0 {
		t.Errorf("an unchanged file was hashed %d times; want 0", d.hashed)
	}

	// A record in the format before fingerprints: hashed once, kept, rewritten.
	macOnly := strings.SplitN(string(rec), "\n", 2)[0] + "\n"
	if err := os.WriteFile(filepath.Join(d.Path(), MACDir, rel), []byte(macOnly), 0o600); err != nil {
		t.Fatal(err)
	}
	if gone, err := d.VerifyCompiled(); err != nil || len(gone) != 0 {
		t.Fatalf("old record: VerifyCompiled = %v, %v; want nothing discarded", gone, err)
	}
	if gone, err := d.VerifyCompiled(); err != nil || len(gone) != 0 || d.hashed != 1 {
		t.Fatalf("after the rewrite: VerifyCompiled = %v, %v, hashed %d; want nothing discarded, 1 hash", gone, err, d.hashed)
	}

	// Same size, modification time put back: the change time still moves.
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("tampered code"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Time{}, fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	gone, err := d.VerifyCompiled()
	if err != nil || len(gone) != 1 || gone[0] != rel {
		t.Fatalf("tampered: VerifyCompiled = %v, %v; want %s discarded", gone, err, rel)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("tampered file still there: %v", err)
	}
}
