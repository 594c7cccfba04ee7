package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/tetratelabs/wazero"
)

// Load caps: what loading a guest may cost the host before it has run a single call. See
// Limits.ModuleBytes, ManifestBytes, Tools, Nesting, CompileTimeout and RATIONALE.md, "Why is
// loading bounded by size, nesting and time?".

// ErrLoadLimit is wrapped by load errors that a load cap caused.
var ErrLoadLimit = errors.New("load limit exceeded")

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
			sandbox.FormatBytes(uint64(len(wasm))), sandbox.FormatBytes(uint64(limits.ModuleBytes)))
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
// only what it needs to skip immediates; a module it cannot decode is left to wazero, which
// reports a precise error (depth 0 is returned).
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

// bodyNesting scans one function body; ok is false if it cannot be decoded.
func bodyNesting(r *wasmReader, limit int) (maxDepth int, ok bool) {
	groups := int(r.u32())
	for g := 0; g < groups && !r.err; g++ {
		r.u32()
		r.byte()
	}
	depth := 0
	for r.i < len(r.b) && !r.err {
		op := r.byte()
		switch {
		case op == 0x02 || op == 0x03 || op == 0x04: // block, loop, if
			r.blockType()
			depth++
			if depth > maxDepth {
				maxDepth = depth
				if maxDepth > limit {
					return maxDepth, true
				}
			}
		case op == 0x0B: // end
			depth--
		case op == 0x00 || op == 0x01 || op == 0x05 || op == 0x0F || op == 0x1A || op == 0x1B || op == 0xD1,
			op >= 0x45 && op <= 0xC4: // no immediates
		case op == 0x0C || op == 0x0D || op == 0x10 || op == 0x12 || op == 0xD2,
			op >= 0x20 && op <= 0x26, op == 0x3F || op == 0x40:
			r.u32()
		case op == 0x11 || op == 0x13: // call_indirect, return_call_indirect
			r.u32()
			r.u32()
		case op == 0x0E: // br_table
			n := int(r.u32())
			for k := 0; k <= n && !r.err; k++ {
				r.u32()
			}
		case op == 0x1C: // select t*
			n := int(r.u32())
			r.skip(n)
		case op >= 0x28 && op <= 0x3E: // loads and stores
			r.memarg()
		case op == 0x41 || op == 0x42: // i32.const, i64.const
			r.leb(10)
		case op == 0x43:
			r.skip(4)
		case op == 0x44:
			r.skip(8)
		case op == 0xD0: // ref.null
			r.byte()
		case op == 0xFC:
			switch sub := r.u32(); {
			case sub <= 7:
			case sub == 8 || sub == 12 || sub == 14: // memory.init, table.init, table.copy
				r.u32()
				r.u32()
			case sub == 10: // memory.copy
				r.byte()
				r.byte()
			case sub <= 17:
				r.u32()
			default:
				return 0, false
			}
		case op == 0xFD: // SIMD
			switch sub := r.u32(); {
			case sub <= 11 || sub == 92 || sub == 93:
				r.memarg()
			case sub == 12 || sub == 13:
				r.skip(16)
			case sub >= 21 && sub <= 34:
				r.byte()
			case sub >= 84 && sub <= 91:
				r.memarg()
				r.byte()
			}
		case op == 0xFE: // threads
			if r.u32() == 3 {
				r.byte()
			} else {
				r.memarg()
			}
		default:
			return 0, false
		}
	}
	return maxDepth, !r.err
}

// wasmReader decodes the few encodings maxNesting needs; err is sticky.
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

func (r *wasmReader) skip(n int) {
	if n < 0 || r.i+n > len(r.b) {
		r.err = true
		return
	}
	r.i += n
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

func (r *wasmReader) memarg() {
	if align := r.u32(); align&0x40 != 0 { // multi-memory: a memory index follows
		r.u32()
	}
	r.u32()
}

// blockType skips a block type: 0x40, a value type byte, or a type index (s33).
func (r *wasmReader) blockType() {
	if r.i >= len(r.b) {
		r.err = true
		return
	}
	if c := r.b[r.i]; c == 0x40 || c >= 0x6F && c <= 0x7F {
		r.i++
		return
	}
	r.leb(5)
}

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
			r.skip(int(k))
		}
	}
	return nil
}
