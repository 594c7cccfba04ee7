package cacheauth

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fingerprint names the state of a file the kernel keeps and its owner cannot set: device,
// inode, size and the inode change time (ctime: every write, truncate, chmod, utimes or
// rename into place moves it to the current clock, and no system call sets it back). A
// compiled-code file whose fingerprint equals the one recorded with its MAC has not changed
// since it was hashed, so VerifyCompiled need not read it again.
func fingerprint(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d %d %d %d.%09d", st.Dev, st.Ino, st.Size, st.Ctim.Sec, st.Ctim.Nsec)
}
