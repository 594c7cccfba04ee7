//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// setProcessGroup runs the child in its own process group and kills the whole group on
// timeout, so grandchildren cannot outlive the call.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
