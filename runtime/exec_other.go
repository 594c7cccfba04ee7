//go:build !unix

package runtime

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}
