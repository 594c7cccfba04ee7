package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/mcpwasm/mcpwasm/runtime/internal/loadcheck"
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
