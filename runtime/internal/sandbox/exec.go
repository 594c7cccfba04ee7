package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// execProgram is an exec grant resolved at load: the real file behind Path, and its identity,
// so a symlink swapped or a binary replaced after load is refused rather than run.
type execProgram struct {
	grant policy.Exec
	real  string
	info  os.FileInfo
	env   []string
}

func resolveExec(e policy.Exec) (*execProgram, error) {
	real, err := filepath.EvalSymlinks(e.Path)
	if err != nil {
		return nil, fmt.Errorf("exec %q: %w", e.Path, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("exec %q: %w", e.Path, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return nil, fmt.Errorf("exec %q: %s is not an executable file", e.Path, real)
	}
	if e.Dir != "" {
		if st, err := os.Stat(e.Dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("exec %q: dir %q is not a directory", e.Path, e.Dir)
		}
	}
	if e.Timeout == 0 {
		e.Timeout = 10 * time.Second
	}
	if e.OutputBytes == 0 {
		e.OutputBytes = 1 << 20
	}
	return &execProgram{grant: e, real: real, info: fi, env: resolveEnv(e.Env)}, nil
}

// resolveEnv turns env grants into NAME=value pairs: "NAME" takes the host's value (and is
// left out if unset), "NAME=value" is literal.
func resolveEnv(grants []string) []string {
	out := make([]string, 0, len(grants))
	for _, g := range grants {
		if strings.Contains(g, "=") {
			out = append(out, g)
		} else if v, ok := os.LookupEnv(g); ok {
			out = append(out, g+"="+v)
		}
	}
	return out
}

// execRequest serves abi.KindExec: the program runs directly (no shell, no PATH lookup) with
// the grant's arguments, then the guest's; only granted variables in its environment; in the
// grant's directory; with time and output caps.
func (c *Tool) execRequest(ctx context.Context, body []byte) (abi.Status, []byte) {
	var req abi.ExecRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return abi.StatusInvalid, ErrorBody("exec: request is not valid JSON: " + err.Error())
	}
	p, err := c.findProgram(req.Program)
	if err != nil {
		return statusOf(err)
	}
	for _, a := range append(req.Args, req.Program) {
		if strings.ContainsRune(a, 0) {
			return abi.StatusInvalid, ErrorBody(fmt.Sprintf("exec: argument %q contains a NUL byte", clip(a)))
		}
	}
	if !p.grant.Options {
		for _, a := range req.Args {
			if strings.HasPrefix(a, "-") {
				return statusOf(deny("exec: argument %q starts with \"-\"; grant %q allows only positional arguments", clip(a), p.grant.ID()))
			}
		}
	}
	if fi, err := os.Stat(p.real); err != nil || !os.SameFile(fi, p.info) {
		return statusOf(deny("exec: %s changed since it was granted; reload the guest", p.grant.Path))
	}
	ctx, cancel := context.WithTimeout(ctx, p.grant.Timeout)
	defer cancel()
	stdout := &OutputBuffer{Limit: p.grant.OutputBytes}
	stderr := &OutputBuffer{Limit: p.grant.OutputBytes}
	cmd := p.command(ctx, req, stdout, stderr)
	err = cmd.Start() // a failure is the program's: whether namespaces work was probed (isolate)
	if err == nil {
		err = cmd.Wait()
	}
	killGroup(cmd) // on every exit path: nothing the program started outlives the call
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return abi.StatusTimeout, ErrorBody(fmt.Sprintf("exec: %s ran past %v and was killed", p.grant.ID(), p.grant.Timeout))
	case ctx.Err() != nil:
		return abi.StatusCancelled, ErrorBody("exec: cancelled")
	case err != nil && !errors.As(err, &exit):
		return abi.StatusFailed, ErrorBody(fmt.Sprintf("exec: %s: %v", p.grant.ID(), err))
	}
	out, err := json.Marshal(abi.ExecResponse{
		ExitCode:  cmd.ProcessState.ExitCode(),
		Stdout:    stdout.String(),
		Stderr:    stderr.String(),
		Truncated: stdout.Truncated || stderr.Truncated,
	})
	if err != nil {
		return abi.StatusFailed, ErrorBody("exec: encoding response: " + err.Error())
	}
	return abi.StatusOK, out
}

// command builds the process for one exec request: the granted file with the grant's
// arguments then the guest's, only granted variables, in the grant's directory, in its own
// process group, killed with the context.
func (p *execProgram) command(ctx context.Context, req abi.ExecRequest, stdout, stderr *OutputBuffer) *exec.Cmd {
	cmd := exec.CommandContext(ctx, p.real, append(append([]string(nil), p.grant.Args...), req.Args...)...)
	cmd.Args[0] = p.grant.Path
	cmd.Env = p.env
	if cmd.Env == nil {
		cmd.Env = []string{} // an empty, not inherited, environment
	}
	cmd.Dir = p.grant.Dir
	if cmd.Dir == "" {
		cmd.Dir = os.TempDir()
	}
	cmd.Stdin = strings.NewReader(req.Stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	return cmd
}

// findProgram looks a program up by grant name, else by path when exactly one grant has it.
func (c *Tool) findProgram(name string) (*execProgram, error) {
	var found *execProgram
	for _, p := range c.exec {
		if p.grant.Name == name {
			return p, nil
		}
		if p.grant.Path == name {
			if found != nil {
				return nil, deny("exec: %q is granted more than once; name the grant", clip(name))
			}
			found = p
		}
	}
	if found != nil {
		return found, nil
	}
	for _, e := range c.granted.Exec {
		if e.ID() == name || e.Path == name {
			return nil, deny("exec: program %q is granted but not requested by guest %q (its manifest must list %s)", name, c.guest, e.Path)
		}
	}
	return nil, deny("exec: program %q is not granted to %s", clip(name), c.subject())
}
