//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// setProcessGroup runs the child in its own process group (and, where the platform allows,
// its own PID namespace: see isolate) and kills the whole group on timeout or cancellation.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	isolate(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killGroup kills what is left of the child's process group once the call is over, whatever
// way it ended: a background grandchild of a program that exited normally dies with the call
// too. The group outlives its leader while members remain, so its id cannot be reused before.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
