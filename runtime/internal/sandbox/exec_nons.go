//go:build unix && !linux

package sandbox

import (
	"errors"
	"syscall"
)

func isolate(*syscall.SysProcAttr) {}

// ExecIsolation reports why exec cannot start programs in a new PID namespace: they are
// Linux-only (see exec_linux.go).
func ExecIsolation() error { return errNoPIDNamespaces }

var errNoPIDNamespaces = errors.New("PID namespaces are Linux-only")
