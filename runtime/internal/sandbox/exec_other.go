//go:build !unix

package sandbox

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}
