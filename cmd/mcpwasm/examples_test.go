package main

import (
	"context"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testContext is cancelled shortly before the test binary's -timeout would kill it, so a
// hung child is reported by the test (with its output) instead of by the timeout panic.
// Waits in these tests are bounded by it and by nothing shorter.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-testDeadlineMargin(d)))
		t.Cleanup(cancel)
	}
	return ctx
}

// needTool skips the test when an outside program is missing, or fails it under CI.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		testenv.Skip(t, "%s not installed: %v", name, err)
	}
}

// TestExamplesRun runs examples/run.sh exactly as the README says and checks each step's
// answer. It builds the granted guests and compiles them, so it is skipped with -short.
func TestExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and compiles four Go guests")
	}
	needTool(t, "bash")
	if _, err := os.Stat("/usr/bin/git"); err != nil {
		needTool(t, "/usr/bin/git")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		testenv.Skip(t, "not a git checkout: %v", err)
	}
	head, err := exec.Command("git", "-C", root, "log", "-1", "--format=%h %s").Output()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(testContext(t), "bash", "examples/run.sh")
	cmd.Dir = root
	cmd.Env = cacheEnv(t) // the compilation cache the other tests filled
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("examples/run.sh: %v\nstdout:\n%s\nstderr:\n%s", err, out, &stderr)
	}
	for _, want := range []string{
		"$ mcpwasm tools -- mcpwasm serve --config examples/grants/mcpwasm.json\n",
		"docs__calc(expression) — Calculator", "shout_echo(text) — Shout echo", "git_log(max_count?, ref?) — Git log",
		"grep(pattern, max_matches?, path?) — Search files", "read(path, max_bytes?) — Read file",
		"$ mcpwasm call read '{\"path\":\"/data/hello.txt\"}' -- mcpwasm serve --config examples/grants/mcpwasm.json\nHello from the demo data directory.\n",
		`"file":"/data/notes/wasm.md","line":3`,
		"$ mcpwasm call --env GIT_DIR --env GIT_WORK_TREE git_log '{\"max_count\":3}' -- mcpwasm serve --config examples/grants/mcpwasm.json\n" + string(head),
		"HELLO THROUGH THE UPSTREAM\n",
		"{\"value\":42}\n",
		"read /etc/passwd: outside /data, the only directory this guest can see\n",
		"exit code 4\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("examples/run.sh output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", out, &stderr)
	}
}
