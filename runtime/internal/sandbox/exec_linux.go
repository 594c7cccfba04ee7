package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
)

// noPIDNamespace is set once starting a program in a new PID namespace has failed (user
// namespaces disabled for unprivileged users, a seccomp filter, …); exec then relies on the
// process group alone.
var noPIDNamespace atomic.Bool

// isolate puts the child into a new PID namespace, as its init: when it exits or is killed,
// the kernel kills every process left in the namespace — also those that left the process
// group with setsid, which a group kill cannot reach. Unprivileged, that needs a user
// namespace too; it maps only the caller's own uid and gid, so the program runs as the same
// user (other owners show as the overflow id). See RATIONALE.md, "Why does exec start
// programs in a PID namespace?".
func isolate(a *syscall.SysProcAttr) {
	if noPIDNamespace.Load() {
		return
	}
	a.Cloneflags = syscall.CLONE_NEWPID
	if uid := os.Geteuid(); uid != 0 {
		gid := os.Getegid()
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
}

// isolated reports whether cmd was set up to start in a new PID namespace.
func isolated(cmd *exec.Cmd) bool {
	return cmd.SysProcAttr != nil && cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWPID != 0
}

// isolationFailed reports whether err, from starting an isolated program, means new
// namespaces cannot be created here, and if so records it.
func isolationFailed(err error) bool {
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) ||
		errors.Is(err, syscall.EUSERS) || errors.Is(err, syscall.EACCES) {
		noPIDNamespace.Store(true)
		return true
	}
	return false
}
