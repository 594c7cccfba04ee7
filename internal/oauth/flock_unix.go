//go:build unix

package oauth

import (
	"os"
	"syscall"
)

// lockExclusive blocks until f holds an exclusive advisory lock (released on close).
func lockExclusive(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
