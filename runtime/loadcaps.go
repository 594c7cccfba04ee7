package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/mcpwasm/mcpwasm/internal/size"
)

// Load caps: what loading a guest may cost the host before it has run a single call. See
// Limits.ModuleBytes, ManifestBytes, Tools, Nesting, CompileTimeout and RATIONALE.md, "Why is
// loading bounded by size, nesting and time?".

// checkModuleCaps refuses a module over the size cap, or one with a function whose blocks
// nest deeper than the nesting cap, before wazero parses it.
func checkModuleCaps(wasm []byte, limits Limits) error {
	if err := checkModuleSize(wasm, limits); err != nil {
		return err
	}
	if err := checkVectorCounts(wasm); err != nil {
		return err
	}
	if fn, depth := maxNesting(wasm, limits.Nesting); depth > limits.Nesting {
		return fmt.Errorf("%w: function %d nests blocks more than %d deep (compile time grows with the square of the depth)", ErrLoadLimit, fn, limits.Nesting)
	}
	return nil
}

// checkModuleSize refuses a module over the size cap.
func checkModuleSize(wasm []byte, limits Limits) error {
	if len(wasm) > limits.ModuleBytes {
		return fmt.Errorf("%w: module is %s, over the module size limit of %s", ErrLoadLimit,
			size.Format(uint64(len(wasm))), size.Format(uint64(limits.ModuleBytes)))
	}
	return nil
}

// checkManifestCaps refuses a manifest with more tools (or resources, templates, prompts)
// than the cap.
func checkManifestCaps(tools, resources, templates, prompts int, limits Limits) error {
	for _, c := range [...]struct {
		what string
		n    int
	}{{"tools", tools}, {"resources", resources}, {"resource templates", templates}, {"prompts", prompts}} {
		if c.n > limits.Tools {
			return fmt.Errorf("%w: manifest declares %d %s, over the limit of %d", ErrLoadLimit, c.n, c.what, limits.Tools)
		}
	}
	return nil
}

// compileModule compiles wasm, returning when ctx is done or the compile timeout passes even
// if wazero is still compiling: its compiler does not observe ctx. The abandoned compile
// finishes in the background and its result is closed; the nesting cap keeps that bounded.
func (h *Host) compileModule(ctx context.Context, wasm []byte, timeout time.Duration) (wazero.CompiledModule, error) {
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
		cm, err := h.rt.CompileModule(context.WithoutCancel(ctx), wasm)
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

// maxNesting returns the deepest block nesting of any function of wasm (and that function's
// index in the code section), scanning no further once a function exceeds limit. It decodes
// instructions as the rewrite does (decodeInstr); for a module it cannot decode it returns
// depth 0 and leaves the refusal to the rewrite, which fails on the same instruction.
func maxNesting(wasm []byte, limit int) (fn, depth int) {
	r := &wasmReader{b: wasm}
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return 0, 0
	}
	r.i = 8
	for r.i < len(r.b) {
		id := r.byte()
		size := int(r.u32())
		if r.err || size < 0 || r.i+size > len(r.b) {
			return 0, 0
		}
		if id != 10 { // code section
			r.i += size
			continue
		}
		end := r.i + size
		count := int(r.u32())
		for f := 0; f < count && !r.err; f++ {
			bodySize := int(r.u32())
			bodyEnd := r.i + bodySize
			if r.err || bodySize < 0 || bodyEnd > end {
				return 0, 0
			}
			d, ok := bodyNesting(&wasmReader{b: r.b[:bodyEnd], i: r.i}, limit)
			if !ok {
				return 0, 0
			}
			if d > depth {
				fn, depth = f, d
			}
			if depth > limit {
				return fn, depth
			}
			r.i = bodyEnd
		}
		return fn, depth
	}
	return fn, depth
}

// bodyNesting scans one function body with the rewrite's decoder (decodeInstr); ok is false
// if it cannot be decoded, and then the rewrite refuses the module too.
func bodyNesting(r *wasmReader, limit int) (maxDepth int, ok bool) {
	locals, err := readLocals(r.b[r.i:], nil) // as the rewrite reads them
	if err != nil {
		return 0, false
	}
	depth := 0
	var in instr
	for i := r.i + locals; i < len(r.b); {
		var err error
		if i, err = decodeInstr(r.b, i, &in); err != nil {
			return 0, false
		}
		switch in.op {
		case 0x02, 0x03, 0x04: // block, loop, if
			depth++
			if depth > maxDepth {
				maxDepth = depth
				if maxDepth > limit {
					return maxDepth, true
				}
			}
		case 0x0b: // end
			depth--
		}
	}
	return maxDepth, true
}

// wasmReader decodes the few encodings maxNesting and checkVectorCounts need; err is sticky.
type wasmReader struct {
	b   []byte
	i   int
	err bool
}

func (r *wasmReader) byte() byte {
	if r.i >= len(r.b) {
		r.err = true
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

// leb skips a LEB128 number of at most maxBytes bytes and returns its low 32 bits.
func (r *wasmReader) leb(maxBytes int) uint32 {
	var v uint32
	for k := 0; k < maxBytes; k++ {
		c := r.byte()
		if r.err {
			return 0
		}
		if k < 5 {
			v |= uint32(c&0x7F) << (7 * k)
		}
		if c&0x80 == 0 {
			return v
		}
	}
	r.err = true
	return 0
}

func (r *wasmReader) u32() uint32 { return r.leb(5) }

// checkVectorCounts refuses a module whose section declares more entries than its bytes can
// hold (every entry takes at least one byte), and likewise a function type's parameter and
// result counts, before wazero sees it: wazero sizes its slices from these counts, so a
// 22-byte module declaring 3 billion types made it allocate tens of GB and the host died of
// an out-of-memory fatal error (found by FuzzInstrumentCalls). Sections are those of the
// binary format (WebAssembly Core 2.0 §5.5) that start with a vector: type, import,
// function, table, memory, global, export, element, code, data, tag. Anything this walk
// cannot read is left to wazero's own (precise) error.
func checkVectorCounts(wasm []byte) error {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil
	}
	r := &wasmReader{b: wasm, i: 8}
	for r.i < len(r.b) {
		id := r.byte()
		size := int(r.u32())
		if r.err {
			return nil
		}
		if size < 0 || r.i+size > len(r.b) { // wazero reads the section's count before noticing
			return fmt.Errorf("%w: section %d of %d bytes overruns the module (%d bytes left)", errMalformed, id, size, len(r.b)-r.i)
		}
		end := r.i + size
		switch id {
		case 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13:
			sec := &wasmReader{b: r.b[:end], i: r.i}
			n := sec.u32()
			if !sec.err && uint64(n) > uint64(end-sec.i) {
				return fmt.Errorf("%w: section %d declares %d entries in %d bytes", errMalformed, id, n, end-sec.i)
			}
			if id == 1 && !sec.err {
				if err := checkFuncTypes(sec, n); err != nil {
					return err
				}
			}
		}
		r.i = end
	}
	return nil
}

// checkFuncTypes walks n function types (0x60 params results) and refuses a parameter or
// result count larger than the bytes left.
func checkFuncTypes(r *wasmReader, n uint32) error {
	for t := uint32(0); t < n && !r.err && r.i < len(r.b); t++ {
		if r.byte() != 0x60 {
			return nil // not a plain function type (e.g. GC rec types): wazero decides
		}
		for range 2 { // params, then results
			k := r.u32()
			if r.err {
				return nil
			}
			if uint64(k) > uint64(len(r.b)-r.i) {
				return fmt.Errorf("%w: type %d declares %d value types in %d bytes", errMalformed, t, k, len(r.b)-r.i)
			}
			for range k { // as the rewrite reads them: (ref null $t) takes two bytes or more
				next, _, _, err := readValType(r.b, r.i)
				if err != nil {
					return nil // wazero decides
				}
				r.i = next
			}
		}
	}
	return nil
}
