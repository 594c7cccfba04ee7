package runtime

import (
	"fmt"
	"strconv"
	"strings"
)

// Compile memory: wazero's optimizing compiler holds one function's intermediate form at a
// time (its size grows with the function's) and keeps every compiled function's machine code
// and metadata until the end, and decoding the module costs a few hundred bytes for every
// entry of its sections (a type, an import, a function, a global, an export, an element), so
// a module's peak compile memory is about
//
//	compileBase + compilePerLargestByte·(largest function body)
//	            + compilePerCodeByte·(code section) + compilePerEntry·(entries)
//
// The constants are the worst of the shapes measured (RATIONALE.md, "Why is compile memory
// estimated, and from these numbers?"); checkCompileMemory refuses a module whose estimate is
// over Limits.CompileMemory before wazero sees it.
const (
	compileBase           = 64 << 20 // the host and wazero before the module
	compilePerLargestByte = 1700     // a chain of i32.load: 1.6 KB per body byte
	compilePerCodeByte    = 40       // machine code and metadata kept: ~35 B per byte of loads
	compilePerEntry       = 512      // 4M types: ~440 B each; a million empty functions: ~400 B each
)

// moduleCost is what compileEstimate reads from a module.
type moduleCost struct {
	largest, largestFn int // the largest function body's size and code-section index
	funcs, code        int // functions defined, code section bytes
	entries            uint64
}

func (c moduleCost) estimate() uint64 {
	return compileBase + compilePerLargestByte*uint64(c.largest) + compilePerCodeByte*uint64(c.code) + compilePerEntry*c.entries
}

// compileEstimate reads the cost of wasm; ok is false if a section cannot be read (wazero then
// reports the module's error).
func compileEstimate(wasm []byte) (c moduleCost, ok bool) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return c, false
	}
	for i := 8; i < len(wasm); {
		id := wasm[i]
		size, n, err := readU32(wasm[i+1:])
		if err != nil || uint64(i+1+n)+uint64(size) > uint64(len(wasm)) {
			return c, false
		}
		body := wasm[i+1+n : i+1+n+int(size)]
		i += 1 + n + int(size)
		switch id {
		case 1, 2, 3, 4, 5, 6, 7, 11, 13: // vectors of entries
			count, _, err := readU32(body)
			if err != nil {
				return c, false
			}
			c.entries += uint64(count)
		case 9: // element segments: their elements
			items, err := elementItems(body)
			if err != nil {
				items = uint64(len(body)) // every element takes a byte at least
			}
			c.entries += items
		case sectionCode:
			count, off, err := readU32(body)
			if err != nil || uint64(count) > uint64(len(body)) {
				return c, false
			}
			for f := range int(count) {
				l, n, err := readU32(body[off:])
				if err != nil || uint64(off+n)+uint64(l) > uint64(len(body)) {
					return c, false
				}
				if int(l) > c.largest {
					c.largest, c.largestFn = int(l), f
				}
				off += n + int(l)
			}
			c.code, c.funcs = len(body), int(count)
		}
	}
	return c, true
}

// checkCompileMemory refuses a module whose estimated compile memory (above) is over
// limits.CompileMemory, naming what drives the estimate.
func checkCompileMemory(wasm []byte, limits Limits) error {
	c, ok := compileEstimate(wasm)
	if est := c.estimate(); !ok || est <= limits.CompileMemory {
		return nil
	}
	return fmt.Errorf("%w: compiling would take an estimated %s (function %d is %s; %d functions, %s of code; %d entries: types, imports, functions, globals, exports, elements…), over the compile memory limit of %s",
		ErrLoadLimit, approxBytes(c.estimate()), c.largestFn, approxBytes(uint64(c.largest)), c.funcs, approxBytes(uint64(c.code)), c.entries, approxBytes(limits.CompileMemory))
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
