package main

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

// openPTY opens a pseudo-terminal pair: the controlling side and the terminal a process
// reads as stdin. It skips the test where there are no pseudo-terminals.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		testenv.Skip(t, "no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { pty.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		testenv.Skip(t, "unlocking the pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		testenv.Skip(t, "numbering the pseudo-terminal: %v", e)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		testenv.Skip(t, "opening the terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return pty, tty
}
