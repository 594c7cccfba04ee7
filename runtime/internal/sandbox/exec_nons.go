//go:build unix && !linux

package sandbox

import (
	"os/exec"
	"syscall"
)

func isolate(*syscall.SysProcAttr) {}

func isolated(*exec.Cmd) bool { return false }

func isolationFailed(error) bool { return false }
