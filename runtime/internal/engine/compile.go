package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/runtime/internal/loadcheck"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// The load caps live in internal/loadcheck, which parses a module once for all of them.
// checkModuleSize, checkModuleCaps and checkCompileMemory are its checks on bytes, for
// wasiserver.go (a whole server is parsed by its own load).

func checkModuleSize(b []byte, limits Limits) error { return loadcheck.Size(b, limits) }

func checkModuleCaps(b []byte, limits Limits) error { return loadcheck.Caps(b, limits) }

func checkCompileMemory(b []byte, limits Limits) error { return loadcheck.CompileMemory(b, limits) }

// parse parses a guest's module once for every check of its load (loadcheck.Module); the
// test hook onParse sees each module it parses.
func (h *Host) parse(b []byte) *loadcheck.Module {
	if h.onParse != nil {
		h.onParse(b)
	}
	return loadcheck.Parse(b)
}

// compileModule compiles wasm, returning when ctx is done or the compile timeout passes even
// if wazero is still compiling: its compiler does not observe ctx. The abandoned compile
// finishes in the background and its result is closed; the nesting cap keeps that bounded.
func (h *Host) compileModule(ctx context.Context, wasm []byte, timeout time.Duration) (wazero.CompiledModule, error) {
	return h.compileOn(ctx, h.rt, wasm, timeout)
}

// compileOn is compileModule on runtime rt (the guests' or the whole servers', wasiserver.go),
// which shares the Host's compilation cache.
func (h *Host) compileOn(ctx context.Context, rt wazero.Runtime, wasm []byte, timeout time.Duration) (wazero.CompiledModule, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compiling: %w", err)
	}
	done := make(chan compileResult, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- compileResult{err: fmt.Errorf("panic while compiling: %v", p)}
			}
		}()
		// Compiled code read back from the disk cache must be ours (cacheauth): check it
		// just before wazero looks, and record what this compile added.
		if err := discardTampered(h.auth, h.logger); err != nil {
			done <- compileResult{err: fmt.Errorf("compilation cache: %w", err)}
			return
		}
		cm, err := rt.CompileModule(context.WithoutCancel(ctx), wasm)
		if err == nil && h.auth != nil {
			if serr := h.auth.SignCompiled(); serr != nil {
				h.logger.Warn("compilation cache: recording compiled code", "err", serr)
			}
		}
		done <- compileResult{cm, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.cm, r.err
	case <-timer.C:
		go discardCompile(done)
		return nil, fmt.Errorf("%w: compiling took longer than %v", ErrLoadLimit, timeout)
	case <-ctx.Done():
		go discardCompile(done)
		return nil, fmt.Errorf("compiling: %w", ctx.Err())
	}
}

type compileResult struct {
	cm  wazero.CompiledModule
	err error
}

// discardCompile waits for an abandoned compile and closes what it produced.
func discardCompile(done <-chan compileResult) {
	if r := <-done; r.cm != nil {
		_ = r.cm.Close(context.Background())
	}
}

// compile checks the parsed module's estimated compile memory (loadcheck.CompileMemory),
// bounds its tables (loadcheck.Tables) and instruments it so every function entry observes
// the time limit, then compiles it. A module our parser finds malformed is compiled as given
// so the error is wazero's precise one; a reference to an undefined index or an unknown
// instruction is refused with the rewrite's own error, which names the function and the index.
//
// sum is the SHA-256 of p's bytes. With a disk cache, the rewrite of a module that passed
// every check and compiled is kept under sum and limits (rewritecache.go); cached is that
// rewrite read back (nil if none), which is compiled as it is: the checks it records passed
// for these bytes and limits, and the structural caps (p.Caps) with them.
func (h *Host) compile(ctx context.Context, p *loadcheck.Module, sum [32]byte, cached []byte, limits Limits) (wazero.CompiledModule, error) {
	timeout := limits.CompileTimeout
	if cached != nil {
		cm, err := h.compileModule(ctx, cached, timeout)
		if err != nil {
			return nil, fmt.Errorf("compiling: %w", err)
		}
		return cm, nil
	}
	if err := p.CompileMemory(limits); err != nil {
		return nil, err
	}
	var inst []byte
	tables, ierr := p.Tables(limits)
	if errors.Is(ierr, ErrLoadLimit) || errors.Is(ierr, ErrABI) {
		return nil, ierr
	}
	if ierr == nil {
		if h.onRewrite != nil {
			h.onRewrite(p.Bytes)
		}
		inst, ierr = instrument.Module(p.M, tables) // the tables bounded in the same rewrite
		if errors.Is(ierr, wasm.ErrUndefinedIndex) || errors.Is(ierr, wasm.ErrUnknownInstr) {
			return nil, fmt.Errorf("compiling: %w", ierr)
		}
	}
	if ierr == nil { // the checks added at loops weigh: 3 bytes of loop are ~20 compiled
		if err := checkCompileMemory(inst, limits); err != nil { // the module the host wrote
			return nil, err
		}
	}
	if ierr != nil {
		cm, err := h.compileModule(ctx, p.Bytes, timeout)
		if err != nil {
			return nil, fmt.Errorf("compiling: %w", err)
		}
		_ = cm.Close(ctx)
		return nil, fmt.Errorf("compiling: %w", ierr)
	}
	cm, err := h.compileModule(ctx, inst, timeout)
	if err != nil {
		return nil, fmt.Errorf("compiling: %w", err)
	}
	h.keepRewritten(sum, limits, inst)
	return cm, nil
}
