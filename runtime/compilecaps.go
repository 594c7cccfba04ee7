package runtime

import (
	"fmt"
	"strconv"
	"strings"
)

// Compile memory: wazero's optimizing compiler holds one function's intermediate form at a
// time (its size grows with the function's) and keeps every compiled function's machine code
// and metadata until the end, so a module's peak compile memory is about
//
//	compileBase + compilePerLargestByte·(largest function body) + compilePerCodeByte·(code
//	section) + compilePerFunction·(functions)
//
// The constants are the worst of the shapes measured (RATIONALE.md, "Why is compile memory
// estimated, and from these numbers?"); checkCompileMemory refuses a module whose estimate is
// over Limits.CompileMemory before wazero sees it.
const (
	compileBase           = 64 << 20 // the host and wazero before the module
	compilePerLargestByte = 1700     // a chain of i32.load: 1.6 KB per body byte
	compilePerCodeByte    = 40       // machine code and metadata kept: ~35 B per byte of loads
	compilePerFunction    = 512      // a million empty functions: ~400 MB
)

// compileEstimate returns the estimated peak compile memory of wasm, with the size and
// code-section index of its largest function body, its function count and code section size;
// ok is false if
// the code section cannot be read (wazero then reports the module's error).
func compileEstimate(wasm []byte) (est uint64, largest, largestFn, funcs, code int, ok bool) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return 0, 0, 0, 0, 0, false
	}
	for i := 8; i < len(wasm); {
		id := wasm[i]
		size, n, err := readU32(wasm[i+1:])
		if err != nil || uint64(i+1+n)+uint64(size) > uint64(len(wasm)) {
			return 0, 0, 0, 0, 0, false
		}
		body := wasm[i+1+n : i+1+n+int(size)]
		i += 1 + n + int(size)
		if id != sectionCode {
			continue
		}
		count, off, err := readU32(body)
		if err != nil || uint64(count) > uint64(len(body)) {
			return 0, 0, 0, 0, 0, false
		}
		for f := range int(count) {
			l, n, err := readU32(body[off:])
			if err != nil || uint64(off+n)+uint64(l) > uint64(len(body)) {
				return 0, 0, 0, 0, 0, false
			}
			if int(l) > largest {
				largest, largestFn = int(l), f
			}
			off += n + int(l)
		}
		code, funcs = len(body), int(count)
	}
	est = compileBase + compilePerLargestByte*uint64(largest) + compilePerCodeByte*uint64(code) + compilePerFunction*uint64(funcs)
	return est, largest, largestFn, funcs, code, true
}

// checkCompileMemory refuses a module whose estimated compile memory (above) is over
// limits.CompileMemory, naming what drives the estimate.
func checkCompileMemory(wasm []byte, limits Limits) error {
	est, largest, fn, funcs, code, ok := compileEstimate(wasm)
	if !ok || est <= limits.CompileMemory {
		return nil
	}
	return fmt.Errorf("%w: compiling would take an estimated %s (function %d is %s; %d functions, %s of code), over the compile memory limit of %s",
		ErrLoadLimit, approxBytes(est), fn, approxBytes(uint64(largest)), funcs, approxBytes(uint64(code)), approxBytes(limits.CompileMemory))
}

// approxBytes formats n in the largest binary unit it reaches, to one decimal: "1 GiB",
// "28.6 MiB", "12 bytes".
func approxBytes(n uint64) string {
	for _, u := range [...]struct {
		size uint64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			return strings.TrimSuffix(strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64), ".0") + " " + u.name
		}
	}
	return strconv.FormatUint(n, 10) + " bytes"
}
