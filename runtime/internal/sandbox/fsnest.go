package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// checkFSNesting refuses a read-only fs grant whose host directory is, or lies inside, the
// host directory of a read-write grant of the same grant set: through the read-write mount
// the guest could write what the read-only one promises to protect. Directories are compared
// after resolving symlinks where they exist (lexically otherwise); bind mounts and hard links
// are not seen. A read-write grant inside a read-only one is fine: the read-only mount only
// shows what the guest may change anyway.
func checkFSNesting(grants []FSGrant) error {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if a, err := filepath.Abs(p); err == nil {
			p = a
		}
		return filepath.Clean(p)
	}
	for _, ro := range grants {
		if ro.RW {
			continue
		}
		roDir := real(ro.Host)
		for _, rw := range grants {
			if !rw.RW {
				continue
			}
			rwDir := real(rw.Host)
			if within(roDir, rwDir) {
				return fmt.Errorf("fs %q: read-only directory %s lies inside read-write grant %q (%s), through which the guest could write it", ro.Guest, roDir, rw.Guest, rwDir)
			}
		}
	}
	return nil
}

// within reports whether dir is base or below it (both clean and absolute).
func within(dir, base string) bool {
	return dir == base || base == "/" || strings.HasPrefix(dir, base+string(filepath.Separator))
}
