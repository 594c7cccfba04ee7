package sandbox

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// pidNamespaces reports whether programs start in a new PID namespace here: nil if they do,
// else why not (user namespaces disabled for unprivileged users, a seccomp filter, …), in
// which case exec relies on the process group alone. It is decided once, by probeIsolation,
// never from a granted program's own failure to start: a guest that can write over its
// program (an fs grant) could otherwise make it fail on purpose and turn isolation off.
// A variable so tests can stand in for a host without namespaces.
var pidNamespaces = sync.OnceValue(probeIsolation)

// probeIsolation starts a child exactly as isolate sets one up, but in a directory that
// cannot be entered: the clone, the namespaces and the id maps are all made, and the child
// fails at chdir, just before exec, so no program runs. ENOTDIR (or ENOENT, without /proc)
// is that expected failure; anything else is the namespaces' own.
func probeIsolation() error {
	a := &syscall.SysProcAttr{Setpgid: true}
	namespace(a)
	null, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("PID namespace probe: %w", err)
	}
	defer null.Close()
	fd := null.Fd()
	_, err = syscall.ForkExec("/proc/self/exe", []string{"mcpwasm-namespace-probe"}, &syscall.ProcAttr{
		Dir: "/proc/self/exe/probe", Env: []string{}, Files: []uintptr{fd, fd, fd}, Sys: a})
	switch {
	case err == nil: // cannot happen: the directory is a file's child
		return nil
	case errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENOENT):
		return nil
	}
	return fmt.Errorf("starting a program in a new PID namespace: %w", err)
}

// ExecIsolation reports whether exec starts programs in a new PID namespace on this host: nil
// if so, else why not (then a granted program's setsid descendants can outlive its call).
func ExecIsolation() error { return pidNamespaces() }

// isolate puts the child into a new PID namespace, as its init: when it exits or is killed,
// the kernel kills every process left in the namespace — also those that left the process
// group with setsid, which a group kill cannot reach. Unprivileged, that needs a user
// namespace too; it maps only the caller's own uid and gid, so the program runs as the same
// user (other owners show as the overflow id). See RATIONALE.md, "Why does exec start
// programs in a PID namespace?".
func isolate(a *syscall.SysProcAttr) {
	if pidNamespaces() == nil {
		namespace(a)
	}
}

func namespace(a *syscall.SysProcAttr) {
	a.Cloneflags = syscall.CLONE_NEWPID
	if uid := os.Geteuid(); uid != 0 {
		gid := os.Getegid()
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
}
