package quickjs

import (
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
)

// A host-call argument over its cap is refused before the bridge copies it out of the
// engine — the seam's cap (kind.CheckArg), where it copied up to 16 MiB first: a 1 MiB
// console.log is dropped with a warning naming the cap; a small one is delivered.
func TestOversizedArgRefusedBeforeCopy(t *testing.T) {
	var logs []string
	call := &Call{Log: func(level, msg string) { logs = append(logs, level+": "+msg) }}
	start(t, `console.log("x".repeat(1 << 20)); console.log("small");`, call, 64<<20)
	if len(logs) != 2 || !strings.HasPrefix(logs[0], "warning: log dropped: log payload of ") ||
		!strings.HasSuffix(logs[0], " bytes is over the cap of 385 KiB") || logs[1] != "info: small" {
		t.Fatalf("logs %.200q", logs)
	}
	if kind.MaxReportJSON != 385<<10 {
		t.Fatalf("MaxReportJSON %d", kind.MaxReportJSON)
	}
}
