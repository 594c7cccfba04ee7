package engine

import (
	"context"
	"errors"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// start runs what wazero's WithStartFunctions(abi.ExportInitialize) would, plus a start
// section instrument.Calls turned into the instrument.ExportStart export, but armed: ctx's deadline or
// cancellation during them stops them. As in wazero, exiting with code 0 ends initialization
// successfully.
func (inst *instance) start(ctx context.Context, mod api.Module) error {
	d, _ := ctx.Deadline()
	deadline := inst.g.host.watch.Reading(d)
	for _, name := range [...]string{instrument.ExportStart, abi.ExportInitialize} {
		fn := mod.ExportedFunction(name)
		if fn == nil {
			continue
		}
		inst.intr.Arm(ctx, deadline, 0)
		_, err := fn.Call(ctx)
		if inst.intr.Disarm() != 0 {
			return errInterrupted // classify reports why
		}
		var exit *sys.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var errInterrupted = errors.New("interrupted")
