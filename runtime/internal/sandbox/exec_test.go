//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// forker is a granted program that leaves a process behind, like a tool that spawns a
// daemon: "bg" starts sleep in the background and exits 0; "setsid" starts it in a new
// session and then runs into the exec timeout.
const forker = `#!/bin/sh
case "$1" in
  bg)     /bin/sleep "$2" </dev/null >/dev/null 2>&1 & echo started ;;
  setsid) setsid /bin/sleep "$2" </dev/null >/dev/null 2>&1 & /bin/sleep 100 ;;
esac
`

// alive lists the processes whose command line contains token, skipping zombies.
func alive(token string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmd, err := os.ReadFile(p + "/cmdline")
		if err != nil || !strings.Contains(string(cmd), token) {
			continue
		}
		if stat, err := os.ReadFile(p + "/stat"); err == nil {
			if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// No process started by an exec request survives it: not a background grandchild of a
// program that exited normally, not one that left the process group with setsid when the
// time cap killed its parent (reproducer exec-grandchild).
func TestExecLeavesNothingBehind(t *testing.T) {
	if _, err := os.Stat("/bin/sleep"); err != nil {
		testenv.Skip(t, "no /bin/sleep")
	}
	prog := filepath.Join(t.TempDir(), "forker")
	if err := os.WriteFile(prog, []byte(forker), 0o755); err != nil {
		t.Fatal(err)
	}
	grants := policy.Grants{Exec: []policy.Exec{{Name: "forker", Path: prog, Timeout: 500 * time.Millisecond}}}
	tool, err := NewTool("ex", "t", grants, false, abi.Requests{Exec: []string{prog}}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		mode string
		want abi.Status
	}{{"bg", abi.StatusOK}, {"setsid", abi.StatusTimeout}} {
		t.Run(c.mode, func(t *testing.T) {
			token := fmt.Sprintf("3%d1.%d", i, os.Getpid()) // a sleep duration no other process uses
			st, body := tool.Request(context.Background(), abi.KindExec, []byte(fmt.Sprintf(`{"program":"forker","args":[%q,%q]}`, c.mode, token)))
			if st != c.want {
				t.Fatalf("status %v, want %v: %s", st, c.want, body)
			}
			// SIGKILL was sent before Request returned; wait for the kernel to deliver it.
			deadline := time.Now().Add(10 * time.Second)
			for left := alive(token); len(left) > 0; left = alive(token) {
				if time.Now().After(deadline) {
					for _, p := range left {
						var pid int
						fmt.Sscanf(filepath.Base(p), "%d", &pid)
						if proc, err := os.FindProcess(pid); err == nil {
							proc.Kill()
						}
					}
					t.Fatalf("left running after the request: %v (namespaces: %v)", left, pidNamespaces())
				}
				time.Sleep(10 * time.Millisecond) // polling the process table: there is no event to wait on
			}
		})
	}
	// A normal request still works afterwards.
	if st, body := tool.Request(context.Background(), abi.KindExec, []byte(`{"program":"forker","args":["none","1"]}`)); st != abi.StatusOK {
		t.Fatalf("plain request: %v %s", st, body)
	}
}

// Without a PID namespace (user namespaces disabled), the process-group kill still reaps a
// background grandchild of a program that exited normally; only setsid escapes it.
func TestExecGroupKillWithoutNamespace(t *testing.T) {
	if _, err := os.Stat("/bin/sleep"); err != nil {
		testenv.Skip(t, "no /bin/sleep")
	}
	old := pidNamespaces
	pidNamespaces = func() error { return errors.New("test: no namespaces") }
	t.Cleanup(func() { pidNamespaces = old })
	prog := filepath.Join(t.TempDir(), "forker")
	if err := os.WriteFile(prog, []byte(forker), 0o755); err != nil {
		t.Fatal(err)
	}
	grants := policy.Grants{Exec: []policy.Exec{{Name: "forker", Path: prog, Timeout: 5 * time.Second}}}
	tool, err := NewTool("ex", "t", grants, false, abi.Requests{Exec: []string{prog}}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	token := fmt.Sprintf("351.%d", os.Getpid())
	if st, body := tool.Request(context.Background(), abi.KindExec, []byte(fmt.Sprintf(`{"program":"forker","args":["bg",%q]}`, token))); st != abi.StatusOK {
		t.Fatalf("status %v: %s", st, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(alive(token)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("background grandchild survived the group kill: %v", alive(token))
		}
		time.Sleep(10 * time.Millisecond) // polling the process table: there is no event to wait on
	}
}

// pidOf runs the program granted as name (a script printing $$) and returns what it printed:
// "1" when it started as init of a new PID namespace.
func pidOf(t *testing.T, tool *Tool, name string) string {
	t.Helper()
	st, body := tool.Request(context.Background(), abi.KindExec, []byte(fmt.Sprintf(`{"program":%q}`, name)))
	if st != abi.StatusOK {
		t.Fatalf("exec %s: %v %s", name, st, body)
	}
	var resp abi.ExecResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(resp.Stdout)
}

// Whether programs start in a PID namespace is probed once, with a child of its own: a
// granted program that fails to start — made non-executable by a guest with an fs grant
// over it, or whose interpreter was — is that program's failure, answered as such, and
// leaves isolation on for every other program.
func TestExecStartFailureKeepsIsolation(t *testing.T) {
	if err := pidNamespaces(); err != nil {
		testenv.Skip(t, "no PID namespaces here: %v", err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	pid := write("pid", "#!/bin/sh\necho $$\n")
	victim := write("victim", "#!/bin/sh\necho ran\n")
	interp := write("interp", "#!/bin/sh\nexec /bin/sh \"$@\"\n")
	script := write("script", "#!"+interp+"\necho ran\n")
	grants := policy.Grants{Exec: []policy.Exec{{Name: "pid", Path: pid}, {Name: "victim", Path: victim}, {Name: "script", Path: script}}}
	tool, err := NewTool("ex", "t", grants, false, abi.Requests{Exec: []string{pid, victim, script}}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pidOf(t, tool, "pid"); got != "1" {
		t.Fatalf("before: the program's pid is %s, want 1 (init of its own namespace)", got)
	}
	for _, c := range []struct{ name, chmod string }{{"victim", victim}, {"script", interp}} {
		if err := os.Chmod(c.chmod, 0o644); err != nil { // what a guest with a rw fs grant can do
			t.Fatal(err)
		}
		st, body := tool.Request(context.Background(), abi.KindExec, []byte(fmt.Sprintf(`{"program":%q}`, c.name)))
		if want := fmt.Sprintf(`exec: %s: fork/exec %s: permission denied`, c.name, map[string]string{"victim": victim, "script": script}[c.name]); st != abi.StatusFailed || !strings.Contains(string(body), want) {
			t.Errorf("%s after chmod: %v %s, want failed with %q", c.name, st, body, want)
		}
		if got := pidOf(t, tool, "pid"); got != "1" {
			t.Fatalf("after %s failed to start: the program's pid is %s, want 1 (isolation still on)", c.name, got)
		}
	}
}
