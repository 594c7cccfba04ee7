//go:build linux

package manifests

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
)

// FileIdentity names the file at path as it is now: its absolute path, device, inode, size,
// and modification and change times in nanoseconds. Writing the file changes the change time
// (which, unlike the modification time, cannot be set back), so equal identities mean the
// same bytes unless the file system lies; the background compile checks the bytes anyway.
func FileIdentity(path string, fi fs.FileInfo) (string, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return "", false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	ctime := st.Ctim
	return fmt.Sprintf("%s\x00%d:%d:%d:%d:%d.%d", abs, uint64(st.Dev), uint64(st.Ino), fi.Size(), fi.ModTime().UnixNano(), int64(ctime.Sec), int64(ctime.Nsec)), true
}
