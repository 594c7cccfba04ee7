//go:build !unix

package upstream

import (
	"os"
	"os/exec"
)

var (
	sigterm os.Signal = os.Kill // no SIGTERM: terminate is kill
	sigkill os.Signal = os.Kill
)

func setProcessGroup(cmd *exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, sig os.Signal) error { return cmd.Process.Signal(sig) }
