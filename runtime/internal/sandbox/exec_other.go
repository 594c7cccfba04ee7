//go:build !unix

package sandbox

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func isolated(cmd *exec.Cmd) bool { return false }

func isolationFailed(error) bool { return false }
