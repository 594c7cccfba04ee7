package extism

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
)

// A host-call argument over its cap ends the call before any of it is read — the seam's cap
// (kind.CheckArg), not a copy of it here: a notify_logging_message of MaxReportJSON+1 bytes
// is refused naming the cap and nothing reaches the log; one within the cap is delivered.
func TestOversizedArgRefusedBeforeCopy(t *testing.T) {
	for _, c := range []struct {
		name string
		size int
		fn   func(context.Context, []uint64)
	}{
		{"notify_logging_message", kind.MaxReportJSON + 1, func(ctx context.Context, s []uint64) { hostNotifyLogging(ctx, nil, s) }},
		{"notify_progress", kind.MaxReportJSON + 1, func(ctx context.Context, s []uint64) { hostNotifyProgress(ctx, nil, s) }},
		{"create_message", kind.MaxRequestBody + 1, func(ctx context.Context, s []uint64) { hostCreateMessage(ctx, nil, s) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &arena{limit: 64 << 20, memory: func() uint64 { return 0 }}
			inst := &Instance{Kernel: Kernel{Mem: a}}
			var r recorder
			inst.call = r.install(&Call{})
			off, ok := inst.Kernel.New(bytes.Repeat([]byte{'x'}, c.size))
			if !ok {
				t.Fatal("kernel block")
			}
			var aborted *kind.Aborted
			func() {
				defer func() {
					if p := recover(); p != nil {
						aborted, _ = p.(*kind.Aborted)
					}
				}()
				c.fn(withInstance(context.Background(), inst), []uint64{off})
			}()
			if aborted == nil || !errors.Is(aborted.Err, kind.ErrArgTooLarge) {
				t.Fatalf("aborted with %v; want the cap", aborted)
			}
			if len(r.logs)+len(r.progress) != 0 {
				t.Errorf("delivered %v %v", r.logs, r.progress)
			}
		})
	}
	// Within the cap: delivered.
	a := &arena{limit: 1 << 20, memory: func() uint64 { return 0 }}
	inst := &Instance{Kernel: Kernel{Mem: a}}
	var r recorder
	inst.call = r.install(&Call{})
	off, _ := inst.Kernel.New([]byte(`{"level":"info","data":"hi"}`))
	hostNotifyLogging(withInstance(context.Background(), inst), nil, []uint64{off})
	if len(r.logs) != 1 || r.logs[0] != abi.LevelInfo.String()+":hi" {
		t.Errorf("logs %v", r.logs)
	}
}
