//go:build unix

package upstream

import (
	"os/exec"
	"syscall"
)

var (
	sigterm = syscall.SIGTERM
	sigkill = syscall.SIGKILL
)

// setProcessGroup puts the server in its own process group, so shutdown reaches what it
// spawned too (npx, shells).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		return cmd.Process.Signal(sig)
	}
	return nil
}
