package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/memory"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// link instantiates the modules the guest's kind links to each instance (kind.Traits.Linked), with
// the caller's ctx: their memory is not the guest's linear memory, and the kind accounts it.
func (inst *instance) link(ctx context.Context) error {
	links, err := inst.g.host.linksOf(ctx, inst.g.kind)
	if err != nil || len(links) == 0 {
		return err
	}
	inst.linked = make(map[string]api.Module, len(links))
	for _, l := range links {
		mod, err := inst.g.host.rt.InstantiateModule(ctx, l.cm, linkedConfig)
		if err != nil {
			inst.unlink(ctx)
			return fmt.Errorf("instantiating the %s module %s: %w", inst.g.kind.Name(), l.name, err)
		}
		inst.linked[l.name] = mod
	}
	return nil
}

// linkedConfig instantiates a linked module: anonymous, no start functions, and a random
// source it cannot read (a linked module imports no WASI), so wazero does not seed a
// math/rand source (5 KB) for each instance.
var linkedConfig = wazero.NewModuleConfig().WithName("").WithStartFunctions().WithRandSource(strings.NewReader(""))

// unlink closes the instance's linked modules.
func (inst *instance) unlink(ctx context.Context) {
	for name, mod := range inst.linked {
		_ = mod.Close(ctx)
		delete(inst.linked, name)
	}
}

// Linked implements kind.Instance.
func (inst *instance) Linked(name string) api.Module { return inst.linked[name] }

// Func implements kind.Instance.
func (inst *instance) Func(name string) api.Function {
	if fn, ok := inst.fns[name]; ok {
		return fn
	}
	fn := inst.mod.ExportedFunction(name)
	inst.fns[name] = fn
	if fn != nil {
		if s := memory.NativeStack(fn); s != nil {
			inst.stacks = append(inst.stacks, s)
		}
	}
	return fn
}

// Invoke implements kind.Instance: the pool armed the call's deadline (acquire).
func (inst *instance) Invoke(ctx context.Context, fn api.Function, stack []uint64) error {
	if fn == nil {
		return fmt.Errorf("%w: call of a function the module does not export", ErrABI)
	}
	err := fn.CallWithStack(ctx, stack)
	if err != nil || inst.intr.Interrupted() != 0 {
		return inst.classify(ctx, err, inst.call.Limits.Timeout)
	}
	return nil
}

// Interrupted implements kind.Instance.
func (inst *instance) Interrupted() bool { return inst.intr.Interrupted() != 0 }

// Ending implements kind.Instance.
func (inst *instance) Ending() error {
	switch inst.intr.EndingReason() {
	case 0:
		return nil
	case sys.ExitCodeDeadlineExceeded:
		return ErrTimeLimit
	case sys.ExitCodeContextCanceled:
		return ErrCancelled
	case exitCodeStopped:
		return ErrStopped
	}
	return ErrClosed
}

// Custom implements kind.Instance: the script sections the guest kept when its module was
// compiled (kinds.go); other custom sections are not kept.
func (inst *instance) Custom(name string) []byte { return inst.g.customs[name] }

// Environ implements kind.Instance.
func (inst *instance) Environ() []string { return inst.env }

// Random implements kind.Instance.
func (inst *instance) Random() bool { return inst.random }

// Memory implements kind.Instance.
func (inst *instance) Memory() api.Memory { return inst.mem }

// Module implements kind.Instance.
func (inst *instance) Module() *kind.Module { return moduleOf(inst.g.compiled, inst.g.customs) }

// Region implements kind.Instance.
func (inst *instance) Region(ptr, n uint32) ([]byte, error) {
	b, ok := inst.mem.Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("%w: guest returned region %#x+%d outside linear memory (%d bytes)", ErrABI, ptr, n, inst.mem.Size())
	}
	return b, nil
}
