package loadcheck

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// The nesting cap sees a deep function even when bytes follow the last body of the code
// section (as the walk before the one wasm reader did), and a body it cannot size hides
// nothing either: depth 0 leaves the module to the rewrite and wazero, which refuse it.
func TestMaxNestingTrailingBytes(t *testing.T) {
	body := append([]byte{0}, bytes.Repeat([]byte{0x02, 0x40}, 50)...) // no locals, 50 blocks
	body = append(body, bytes.Repeat([]byte{0x0b}, 51)...)
	code := binary.AppendUvarint(nil, 1)
	code = binary.AppendUvarint(code, uint64(len(body)))
	code = append(code, body...)
	mod := func(code []byte) []byte {
		m := []byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00\x03\x02\x01\x00\x0a")
		m = binary.AppendUvarint(m, uint64(len(code)))
		return append(m, code...)
	}
	if fn, depth := MaxNesting(mod(code), 10); fn != 0 || depth != 11 {
		t.Errorf("maxNesting = %d, %d; want 0, 11 (stops past the limit)", fn, depth)
	}
	if fn, depth := MaxNesting(mod(code), 100); fn != 0 || depth != 50 {
		t.Errorf("maxNesting under the limit = %d, %d; want 0, 50", fn, depth)
	}
	if _, depth := MaxNesting(mod(append(code, 0xff, 0xff)), 100); depth != 50 {
		t.Errorf("with trailing bytes: depth %d, want 50", depth)
	}
	short := append([]byte(nil), code...)
	short[1] += 5 // the body's size (152: 0x98 0x01) past the section
	if _, depth := MaxNesting(mod(short), 10); depth != 0 {
		t.Errorf("a body overrunning its section: depth %d, want 0", depth)
	}
}

// The compile-memory estimate counts a module whose code section has bytes after its last
// body (as before the one wasm reader), and gives up on one whose body overruns it.
func TestCompileEstimateTrailingBytes(t *testing.T) {
	body := append([]byte{0}, bytes.Repeat([]byte{0x01}, 1000)...) // no locals, 1000 nops
	body = append(body, 0x0b)
	code := binary.AppendUvarint(nil, 1)
	code = binary.AppendUvarint(code, uint64(len(body)))
	code = append(code, body...)
	mod := func(code []byte) []byte {
		m := []byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00\x03\x02\x01\x00\x0a")
		m = binary.AppendUvarint(m, uint64(len(code)))
		return append(m, code...)
	}
	for name, b := range map[string][]byte{"plain": mod(code), "trailing bytes": mod(append(code, 0xff))} {
		c, ok := compileEstimate(b)
		if !ok || c.largest != len(body) || c.funcs != 1 {
			t.Errorf("%s: compileEstimate = %+v, %v; want the body of %d bytes", name, c, ok, len(body))
		}
	}
	short := append([]byte(nil), code...)
	short[1] += 5 // the body's size (1002: 0xea 0x07) past the section
	if c, ok := compileEstimate(mod(short)); ok {
		t.Errorf("a body overrunning its section: %+v, ok", c)
	}
}
