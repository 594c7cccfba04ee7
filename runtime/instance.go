package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// must never call it.
type instance struct {
	g   *Guest
	mod api.Module
	mem api.Memory
	fns [7]api.Function // in exportOrder; the optional ones may be nil
	// stacks[i] is where fns[i] keeps its native call stack (stackmem.go); nil if unknown.
	stacks [7]*[]byte
	stack  []uint64 // reused for CallWithStack; 4 params is the widest export

	inPtr, inCap uint32 // the input region the guest gave us (ABI.md §2.1)
	memory       *limitedMemory

	tool    string     // the tool running now, for host-function logs
	prompt  bool       // a prompt is running now (mcpwasm_prompt)
	pending []byte     // response of the last request import (ABI.md §6.1)
	budget  callBudget // log and progress reports of the running call (hostcaps.go)

	stdout, stderr sandbox.OutputBuffer

	served  bool // a call ran in it: with IsolationSession, session says whose
	session any  // the session of its calls (WithSession)

	intr interrupter // ends a running call from outside (epoch.go)
}

var exportOrder = [...]string{abi.ExportABIVersion, abi.ExportDescribe, abi.ExportAlloc, abi.ExportCall, abi.ExportRead, abi.ExportPrompt, abi.ExportComplete}

// Indexes into instance.fns of the exports that take input.
const (
	fnCall     = 3
	fnRead     = 4
	fnPrompt   = 5
	fnComplete = 6
)

func (inst *instance) fn(name string) api.Function {
	for i, n := range exportOrder {
		if n == name {
			return inst.fns[i]
		}
	}
	panic("runtime: unknown export " + name)
}

func (p *pool) instantiate(ctx context.Context) (inst *instance, err error) {
	g := p.g
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic while instantiating: %v", p)
		}
	}()
	inst = &instance{g: g, stack: make([]uint64, 4)}
	inst.stdout.Limit, inst.stderr.Limit = stdioCaptureBytes, stdioCaptureBytes
	ctx = experimental.WithMemoryAllocator(ctx, newMemoryAllocator(p.profile.MemoryBytes(), func(m *limitedMemory) { inst.memory = m }))
	cfg := p.config.WithStdout(&inst.stdout).WithStderr(&inst.stderr)
	if p.profile.Clock() {
		cfg = cfg.WithNanosleep(inst.intr.sleep) // poll_oneoff's waits end with the call (sleep.go)
	}
	mod, err := g.host.rt.InstantiateModule(ctx, g.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiating: %w", inst.classify(ctx, err, g.limits.Timeout))
	}
	inst.intr.init(mod, g.host.watch)
	if err := inst.start(ctx, mod); err != nil {
		_ = mod.Close(ctx)
		err = inst.classify(ctx, err, g.limits.Timeout)
		if why := startOutput(&inst.stderr); why != "" {
			// A Go guest that panics in init (no generated schemas, a bad tool definition)
			// traps with "unreachable": what it printed is the only useful part.
			return nil, fmt.Errorf("instantiating: %w; the guest wrote: %s", err, why)
		}
		return nil, fmt.Errorf("instantiating: %w", err)
	}
	inst.mod, inst.mem = mod, mod.Memory()
	for i, name := range exportOrder {
		if inst.fns[i] = mod.ExportedFunction(name); inst.fns[i] != nil {
			inst.stacks[i] = nativeStack(inst.fns[i])
		}
	}
	g.host.instances.Store(mod, inst)
	return inst, nil
}

func (inst *instance) close(ctx context.Context) {
	if inst.mod == nil {
		return
	}
	inst.g.host.instances.Delete(inst.mod)
	_ = inst.mod.Close(ctx)
}

// call runs one tool call. On error the instance must be discarded.
func (inst *instance) call(ctx context.Context, toolName string, args []byte, limits Limits) ([]byte, error) {
	return inst.invoke(ctx, fnCall, toolName, args, limits)
}

// invoke writes name and args into the input region and calls export fn with them (ABI.md
// §2.2, §2.4); fnRead takes only the name. It returns a copy of the result region.
func (inst *instance) invoke(ctx context.Context, fn int, toolName string, args []byte, limits Limits) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil { // a bug in wazero or in our host code: lose the instance, not the server
			out, err = nil, fmt.Errorf("%w: panic during %s: %v", ErrTrap, exportOrder[fn], p)
		}
	}()
	if inst.fns[fn] == nil {
		return nil, fmt.Errorf("%w: module does not export %s", ErrABI, exportOrder[fn])
	}
	need := uint64(len(toolName)) + uint64(len(args))
	if need > 1<<31 {
		return nil, fmt.Errorf("%w: input of %d bytes is too large", ErrABI, need)
	}
	if uint32(need) > inst.inCap {
		inst.stack[0] = need
		if err := inst.fns[2].CallWithStack(ctx, inst.stack[:1]); err != nil {
			return nil, fmt.Errorf("%s: %w", abi.ExportAlloc, inst.classify(ctx, err, limits.Timeout))
		}
		ptr := uint32(inst.stack[0])
		if ptr == 0 || uint64(ptr)+need > uint64(inst.mem.Size()) {
			return nil, fmt.Errorf("%w: %s(%d) returned %#x, not a region in linear memory", ErrABI, abi.ExportAlloc, need, ptr)
		}
		inst.inPtr, inst.inCap = ptr, uint32(need)
	}
	buf, ok := inst.mem.Read(inst.inPtr, uint32(need))
	if !ok {
		return nil, fmt.Errorf("%w: input region %#x+%d left linear memory", ErrABI, inst.inPtr, need)
	}
	n := copy(buf, toolName)
	copy(buf[n:], args)

	inst.pending = nil
	if fn == fnCall {
		inst.tool = toolName // only tool calls may use capabilities…
	}
	inst.prompt = fn == fnPrompt // …and prompts the client request kinds (sandbox.PromptGrants)
	if inst.memory != nil {
		inst.memory.hit = false
	}
	s := inst.stack[:4]
	s[0], s[1], s[2], s[3] = uint64(inst.inPtr), uint64(len(toolName)), uint64(inst.inPtr)+uint64(len(toolName)), uint64(len(args))
	if fn == fnRead || fn == fnComplete {
		s = s[:2]
	}
	err = inst.fns[fn].CallWithStack(ctx, s)
	inst.tool, inst.prompt, inst.pending = "", false, nil
	if err != nil || inst.intr.interrupted() != 0 {
		return nil, inst.classify(ctx, err, limits.Timeout)
	}
	res, err := inst.region(s[0], uint32(limits.OutputBytes))
	if err != nil {
		return nil, err
	}
	return bytes.Clone(res), nil
}

// region resolves a packed (ptr, len) result into a view of linear memory.
func (inst *instance) region(packed uint64, maxLen uint32) ([]byte, error) {
	ptr, n := abi.Unpack(packed)
	if n > maxLen {
		return nil, fmt.Errorf("%w: result of %s is over %s", ErrOutputLimit, size.Format(uint64(n)), size.Format(uint64(maxLen)))
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: guest returned an empty region", ErrABI)
	}
	b, ok := inst.mem.Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("%w: guest returned region %#x+%d outside linear memory (%d bytes)", ErrABI, ptr, n, inst.mem.Size())
	}
	return b, nil
}

// classify turns a wazero call error into one of the package's sentinel errors.
// timeout is the limit in force, for the message.
func (inst *instance) classify(ctx context.Context, err error, timeout time.Duration) error {
	if code := inst.intr.interrupted(); code != 0 {
		err = sys.NewExitError(code) // err may be nil: interrupted as the guest returned
	}
	if errors.Is(err, peer.ErrInputRequired) { // hostRequest stopped the guest
		return peer.ErrInputRequired
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		switch exit.ExitCode() {
		case sys.ExitCodeDeadlineExceeded:
			return fmt.Errorf("%w (%v)", ErrTimeLimit, timeout)
		case sys.ExitCodeContextCanceled:
			return fmt.Errorf("%w: %w", ErrCancelled, context.Canceled)
		case exitCodeClosed:
			if inst.g.host.shuttingDown.Load() {
				return ErrShuttingDown
			}
			return ErrClosed
		case exitCodeStopped:
			return ErrStopped
		}
		return fmt.Errorf("%w: guest exited with code %d", ErrTrap, exit.ExitCode())
	}
	msg := firstLine(err.Error())
	if inst.memory != nil && inst.memory.hit {
		return fmt.Errorf("%w (%s): %s", ErrMemoryLimit, size.Format(inst.memory.limit), msg)
	}
	return fmt.Errorf("%w: %s", ErrTrap, msg)
}

// startOutput picks what a guest that failed to start wrote to stderr: the line of a Go
// panic ("panic: …") if there is one, else the first non-empty line; at most 512 bytes, or ""
// if it wrote nothing.
func startOutput(stderr *sandbox.OutputBuffer) string {
	var first string
	for line := range strings.Lines(stderr.String()) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "panic: ") {
			first = line
			break
		}
		if first == "" {
			first = line
		}
	}
	if len(first) > 512 {
		first = first[:512] + "…"
	}
	return first
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}
