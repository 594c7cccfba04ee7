// Package testenv is what tests share about the machine they run on.
package testenv

import (
	"os"
	"testing"
)

// Skip skips t for a reason of the environment: a tool not installed, a kernel feature
// missing, a privilege held. Under CI (the environment variable CI set, as .ci/run sets it)
// the environment is the project's to provide, and a skip there would report a check that
// never ran as passed: Skip fails t instead, with the same reason. Skips by choice (-short)
// are not the environment's and call t.Skip directly.
func Skip(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set, so this environment skip fails: "+format, args...)
	}
	t.Skipf(format, args...)
}
