package extism

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/tetratelabs/wazero/api"

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
		fn   api.GoModuleFunc
	}{
		{"notify_logging_message", kind.MaxReportJSON + 1, hostNotifyLogging},
		{"notify_progress", kind.MaxReportJSON + 1, hostNotifyProgress},
		{"create_message", kind.MaxRequestBody + 1, hostCreateMessage},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &arena{limit: 64 << 20, memory: func() uint64 { return 0 }}
			var r recorder
			mod, inst := boundInstance(t, r.install(&Call{}), a)
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
				c.fn(context.Background(), mod, []uint64{off})
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
	var r recorder
	mod, inst := boundInstance(t, r.install(&Call{}), a)
	off, _ := inst.Kernel.New([]byte(`{"level":"info","data":"hi"}`))
	hostNotifyLogging(context.Background(), mod, []uint64{off})
	if len(r.logs) != 1 || r.logs[0] != abi.LevelInfo.String()+":hi" {
		t.Errorf("logs %v", r.logs)
	}
}

// fakeModule stands for a module instance the pool runs: a key for kind.Bind.
type fakeModule struct{ api.Module }

// boundInstance is a plugin instance with a Go kernel accounted in mem, running an entry
// with view c, whose Call is bound (kind.Bind) to the module it returns, as the pool binds
// it: host functions called with that module reach the instance.
func boundInstance(t *testing.T, c *Call, mem Accounter) (api.Module, *Instance) {
	s := &started{p: &Plugin{}}
	s.p.inst.Kernel.Mem = mem
	s.p.inst.call = c
	mod := &fakeModule{}
	kind.Bind(mod, &kind.Call{Started: s})
	t.Cleanup(func() { kind.Unbind(mod) })
	return mod, &s.p.inst
}
