package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

// The retry limits of .ci/conformance-replicas.sh (.ci/lib.sh, retry_*): a retried
// scenario is listed in the summary; the same one retried in two consecutive suite runs, or
// more than one retried, fails the script.
func TestCIRetryPolicy(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		testenv.Skip(t, "no bash")
	}
	lib, err := filepath.Abs("../../.ci/lib.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		runs  [][]string // per suite run, the scenarios that passed only when retried
		fail  bool
		lines []string
	}{
		{"none", [][]string{{}, {}, {}, {}}, false,
			[]string{"retried: 0 scenario run(s) failed and passed only when run again alone: none"}},
		{"one", [][]string{{}, {"sse-retry"}, {}, {}}, false,
			[]string{"retried: 1 scenario run(s) failed and passed only when run again alone: run2/sse-retry"}},
		{"one, in runs apart", [][]string{{"sse-retry"}, {}, {"sse-retry"}, {}}, false,
			[]string{"retried: 2 scenario run(s) failed and passed only when run again alone: run1/sse-retry run3/sse-retry"}},
		{"one, in consecutive runs", [][]string{{}, {"sse-retry"}, {"sse-retry"}, {}}, true,
			[]string{"retried: 2 scenario run(s) failed and passed only when run again alone: run2/sse-retry run3/sse-retry",
				"retried: FAILED: needed a retry in two consecutive suite runs: sse-retry"}},
		{"two", [][]string{{"ping"}, {}, {}, {"tools-call"}}, true,
			[]string{"retried: 2 scenario run(s) failed and passed only when run again alone: run1/ping run4/tools-call",
				"retried: FAILED: 2 scenarios needed a retry (at most one may): "}},
		{"two in one run", [][]string{{"ping", "tools-call"}}, true,
			[]string{"retried: FAILED: 2 scenarios needed a retry (at most one may): "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := "set -euo pipefail\n. " + lib + "\nretry_init\n"
			for i, run := range c.runs {
				script += "retry_run\n"
				for _, name := range run {
					script += "retry_note " + name + " run" + string(rune('1'+i)) + "\n"
				}
			}
			script += "retry_verdict\n"
			out, err := exec.Command(bash, "-c", script).CombinedOutput()
			if failed := err != nil; failed != c.fail {
				t.Errorf("failed %v (%v), want %v; output:\n%s", failed, err, c.fail, out)
			}
			for _, l := range c.lines {
				if !strings.Contains(string(out), l) {
					t.Errorf("output lacks %q:\n%s", l, out)
				}
			}
		})
	}
}
