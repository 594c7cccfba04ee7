//go:build unix

package cacheauth

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CheckDir refuses a cache directory others could write, as ssh refuses such a ~/.ssh: dir
// must be owned by the current user (or root) and not writable by group or others. Every
// directory above it, up to /, must be owned by the current user or root (another user could
// rename the cache away and put theirs in its place), and one of the user's own must not be
// writable by group or others unless it has the sticky bit. A root-owned directory above it
// is the system's (/tmp, /var/cache, a container volume): others writing it could only
// swap in a directory they own, which the owner check of dir refuses.
func CheckDir(dir string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("cache directory %s: %w", dir, err)
	}
	uid := uint32(os.Getuid())
	fi, err := os.Stat(real)
	if err != nil {
		return fmt.Errorf("cache directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("cache directory %s is not a directory", dir)
	}
	if owner := ownerOf(fi); owner != uid && owner != 0 {
		return fmt.Errorf("cache directory %s is owned by uid %d, not by the current user (uid %d): use a directory of your own (--cache-dir)", dir, owner, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("cache directory %s is writable by group or others (mode %04o): anyone who can write it controls the code mcpwasm runs; run chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		pi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("cache directory %s: %w", dir, err)
		}
		owner := ownerOf(pi)
		if owner != uid && owner != 0 {
			return fmt.Errorf("cache directory %s: the directory above it, %s, is owned by uid %d, not by the current user (uid %d) or root: use another --cache-dir", dir, p, owner, uid)
		}
		sticky := pi.Mode()&fs.ModeSticky != 0
		if owner == uid && pi.Mode().Perm()&0o022 != 0 && !sticky {
			return fmt.Errorf("cache directory %s: the directory above it, %s, is writable by group or others (mode %04o): run chmod go-w %s or use another --cache-dir", dir, p, pi.Mode().Perm(), p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func ownerOf(fi fs.FileInfo) uint32 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Uid
	}
	return 0
}

// checkKeyFile refuses a key file that is not a regular file of the current user's, or that
// others may read.
func checkKeyFile(path string, fi fs.FileInfo) error {
	uid := uint32(os.Getuid())
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("cache key %s is not a regular file", path)
	case ownerOf(fi) != uid:
		return fmt.Errorf("cache key %s is owned by uid %d, not by the current user (uid %d)", path, ownerOf(fi), uid)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("cache key %s is readable or writable by others (mode %04o): run chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	return nil
}
