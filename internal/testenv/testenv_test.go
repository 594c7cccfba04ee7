package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Under CI an environment skip fails the test; elsewhere it skips. Each case runs in a child
// test process, so the outcome is the child's exit and output.
func TestSkip(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") != "" {
		Skip(t, "no %s here", "frobnicator")
		return
	}
	for _, c := range []struct {
		ci       string
		wantFail bool
		wantOut  string
	}{
		{"", false, "--- SKIP: TestSkip"},
		{"true", true, "CI is set, so this environment skip fails: no frobnicator here"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSkip$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", "CI="+c.ci)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != c.wantFail || !strings.Contains(string(out), c.wantOut) {
			t.Errorf("CI=%q: failed %v, want %v; output:\n%s", c.ci, failed, c.wantFail, out)
		}
	}
}
