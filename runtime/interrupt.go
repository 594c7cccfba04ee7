package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Why rewrite modules at all: wazero's WithCloseOnContextDone checks for a cancelled or
// timed-out context only at loop headers. A guest with no loops but a deep call tree (a
// 2^30-call recursion) would run to completion however long that takes. instrumentCalls
// gives every function body a loop header of its own — an empty `loop end` as its first
// instruction — so the check also runs at every function entry. See RATIONALE.md, "Why
// rewrite function bodies?".

// entryLoop is `loop (blocktype empty) end`: it does nothing but carry the check.
var entryLoop = []byte{0x03, 0x40, 0x0b}

const (
	sectionCustom = 0
	sectionCode   = 10
)

var errMalformed = errors.New("malformed module")

// instrumentCalls returns a copy of the binary module wasm whose every function body starts
// with entryLoop. Custom sections named .debug_* are dropped, since their code offsets would
// no longer match. Only the section framing and the local declarations are parsed.
func instrumentCalls(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, fmt.Errorf("%w: no wasm header", errMalformed)
	}
	out := make([]byte, 0, len(wasm)+len(wasm)/64+64)
	out = append(out, wasm[:8]...)
	r := wasm[8:]
	for len(r) > 0 {
		id := r[0]
		size, n, err := readU32(r[1:])
		if err != nil {
			return nil, fmt.Errorf("%w: section %d size: %v", errMalformed, id, err)
		}
		start := 1 + n
		if uint64(start)+uint64(size) > uint64(len(r)) {
			return nil, fmt.Errorf("%w: section %d overruns the module", errMalformed, id)
		}
		body := r[start : start+int(size)]
		r = r[start+int(size):]
		switch id {
		case sectionCustom:
			if name, _, err := readName(body); err == nil && strings.HasPrefix(name, ".debug_") {
				continue
			}
		case sectionCode:
			nb, err := instrumentCode(body)
			if err != nil {
				return nil, err
			}
			body = nb
		}
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	return out, nil
}

func instrumentCode(sec []byte) ([]byte, error) {
	count, n, err := readU32(sec)
	if err != nil {
		return nil, fmt.Errorf("%w: code section count: %v", errMalformed, err)
	}
	out := make([]byte, 0, len(sec)+int(count)*(len(entryLoop)+1))
	out = binary.AppendUvarint(out, uint64(count))
	r := sec[n:]
	for i := range count {
		size, n, err := readU32(r)
		if err != nil || uint64(n)+uint64(size) > uint64(len(r)) {
			return nil, fmt.Errorf("%w: function body %d: bad size", errMalformed, i)
		}
		body := r[n : n+int(size)]
		r = r[n+int(size):]
		localsEnd, err := skipLocals(body)
		if err != nil {
			return nil, fmt.Errorf("%w: function body %d: %v", errMalformed, i, err)
		}
		out = binary.AppendUvarint(out, uint64(len(body)+len(entryLoop)))
		out = append(out, body[:localsEnd]...)
		out = append(out, entryLoop...)
		out = append(out, body[localsEnd:]...)
	}
	if len(r) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes in code section", errMalformed, len(r))
	}
	return out, nil
}

// skipLocals returns the offset just past a function body's local declarations:
// vec(n:u32 type:valtype). Every value type of the features wazero enables is one byte.
func skipLocals(body []byte) (int, error) {
	groups, off, err := readU32(body)
	if err != nil {
		return 0, err
	}
	for range groups {
		_, n, err := readU32(body[off:])
		if err != nil {
			return 0, err
		}
		off += n + 1
		if off > len(body) {
			return 0, errors.New("locals overrun the body")
		}
	}
	return off, nil
}

func readName(b []byte) (string, int, error) {
	l, n, err := readU32(b)
	if err != nil || uint64(n)+uint64(l) > uint64(len(b)) {
		return "", 0, errMalformed
	}
	return string(b[n : n+int(l)]), n + int(l), nil
}

// readU32 decodes an unsigned LEB128 of at most 5 bytes (the wasm u32 encoding).
func readU32(b []byte) (uint32, int, error) {
	var v uint64
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			return 0, 0, errors.New("truncated LEB128")
		}
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if v > 1<<32-1 {
				return 0, 0, errors.New("LEB128 overflows u32")
			}
			return uint32(v), i + 1, nil
		}
	}
	return 0, 0, errors.New("LEB128 longer than 5 bytes")
}
