package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind/quickjs"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// JavaScript whole servers: a quickjs-wasi engine whose script carries its own MCP SDK
// (build.mjs --server marks it, quickjs.ServerSectionName) is a whole-server guest like a
// WASI command (wasiserver.go): the same Server, one process per client session, the same
// pipes and errors, served through package upstream. Only what runs on the instance's
// goroutine differs: instead of _start, the engine's _initialize and then quickjs.Serve, the
// pump that feeds the script its stdin and fires its timers (RATIONALE.md, "Whole MCP servers").

// kindJSServer is the kind name of a JavaScript whole server (inspect, logs).
const kindJSServer = "javascript-server"

// isJSServer reports whether wasm is a JavaScript whole server: it has the section
// quickjs.ServerSectionName and a script.
func isJSServer(wasm []byte) bool {
	if !quickjs.IsServer(wasm) {
		return false
	}
	_, err := quickjs.Script(wasm)
	return err == nil
}

// instantiateJSEnv instantiates the quickjs-wasi engine's host module ("env") in the
// whole-server runtime rt: its functions find the running process by its context
// (quickjs.WithCall), as Serve installs it.
func instantiateJSEnv(ctx context.Context, rt wazero.Runtime) error {
	b := rt.NewHostModuleBuilder(quickjs.HostModuleName)
	for _, f := range quickjs.HostFuncs(nil) {
		b.NewFunctionBuilder().WithGoModuleFunction(f.Fn, f.Params, f.Results).Export(f.Name)
	}
	if _, err := b.Instantiate(ctx); err != nil {
		return fmt.Errorf("instantiating the JavaScript engine's imports: %w", err)
	}
	return nil
}

// jsEngine is one instance of the engine as quickjs.Engine: a whole server's instance has no
// pool, so Invoke calls the function under ctx (the runtime closes the module when the
// process's context ends: the kill switch and Stop).
// It resolves each export once (wazero builds a call engine on every lookup); the process's
// goroutine is its only user.
type jsEngine struct {
	mod   api.Module
	funcs map[string]api.Function
}

func (e *jsEngine) Func(name string) api.Function {
	fn, ok := e.funcs[name]
	if !ok {
		fn = e.mod.ExportedFunction(name)
		e.funcs[name] = fn
	}
	return fn
}
func (e *jsEngine) Memory() api.Memory { return e.mod.Memory() }
func (e *jsEngine) Invoke(ctx context.Context, fn api.Function, stack []uint64) error {
	return fn.CallWithStack(ctx, stack)
}

// runJS runs one JavaScript whole-server process on the calling goroutine until it ends:
// the engine instantiated with cfg (clock, random, env as for a WASI command) and its
// _initialize run, then quickjs.Serve with the guest's grants (fetch over the net grant
// through the sandbox, process.env from the env grant, process.argv from args, crypto from
// the random grant), each turn bounded by the guest's time limit and the engine's heap by its
// memory limit. What the script writes to process.stdout goes to stdout; its console and
// process.stderr to the guest's log (stderr). Its end is an error as _start's would be: a
// *sys.ExitError for an exit, ErrMemoryLimit for the memory limit.
func (s *Server) runJS(ctx context.Context, rt wazero.Runtime, cfg wazero.ModuleConfig, stdin io.Reader, stdout io.Writer, stderr *stderrLog) error {
	mod, err := rt.InstantiateModule(ctx, s.compiled, cfg.WithStartFunctions("_initialize"))
	if err != nil {
		return err
	}
	defer mod.Close(context.Background())
	var werr error
	c := &quickjs.Call{
		Sandbox: s.sandbox, Env: s.profile.Environ(), Args: s.args,
		Clock: s.profile.Clock(), Random: s.profile.Random(),
		Log: func(level, msg string) {
			for _, l := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
				_, _ = stderr.Write([]byte(level + ": " + l + "\n"))
			}
		},
		Stdout: func(b []byte) {
			if werr == nil {
				_, werr = stdout.Write(b)
			}
		},
	}
	t0 := time.Now()
	err = quickjs.Serve(ctx, &jsEngine{mod: mod, funcs: map[string]api.Function{}}, s.js, c, quickjs.ServeConfig{
		Stdin: stdin, Since: func() time.Duration { return time.Since(t0) },
		TurnLimit: s.limits.Timeout, MemoryLimit: s.limits.MemoryBytes,
	})
	var exit *quickjs.ExitError
	switch {
	case errors.As(err, &exit):
		return sys.NewExitError(uint32(exit.Code))
	case errors.Is(err, quickjs.ErrMemory):
		return fmt.Errorf("%w: the script's heap would exceed %s; the instance ended", ErrMemoryLimit, size.Format(s.limits.MemoryBytes))
	case errors.Is(err, quickjs.ErrTurn):
		return fmt.Errorf("%w: %w", ErrTimeLimit, err)
	}
	return err
}
