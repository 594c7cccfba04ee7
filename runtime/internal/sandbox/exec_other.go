//go:build !unix

package sandbox

import (
	"errors"
	"os/exec"
)

func setProcessGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// ExecIsolation reports why exec cannot start programs in a new PID namespace: they are
// Linux-only (see exec_linux.go).
func ExecIsolation() error { return errNoPIDNamespaces }

var errNoPIDNamespaces = errors.New("PID namespaces are Linux-only")
