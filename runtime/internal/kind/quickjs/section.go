package quickjs

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrNoScript: the module has no custom section SectionName.
var ErrNoScript = errors.New("no " + SectionName + " custom section")

// BytecodeSectionName is the custom section holding the same script compiled to QuickJS
// bytecode by the pinned engine (build.mjs writes it); Start loads it instead of parsing.
const BytecodeSectionName = "mcpwasm.jsbc"

// Code is a guest's script: its source and, if the build compiled it, its bytecode.
type Code struct {
	Source, Bytecode []byte
}

// Script returns the guest's code from module's custom sections SectionName (required) and
// BytecodeSectionName (optional); the last of each if there are several. It walks the section
// headers only; a malformed header is an error naming its offset.
func Script(module []byte) (Code, error) {
	var code Code
	if len(module) < 8 || !bytes.Equal(module[:4], []byte("\x00asm")) {
		return code, errors.New("not a wasm module")
	}
	found := false
	for i := 8; i < len(module); {
		id := module[i]
		size, n := uleb(module[i+1:])
		if n == 0 || uint64(len(module)-i-1-n) < size {
			return code, fmt.Errorf("malformed section header at offset %d", i)
		}
		body := module[i+1+n : i+1+n+int(size)]
		i += 1 + n + int(size)
		if id != 0 {
			continue
		}
		nl, m := uleb(body)
		if m == 0 || uint64(len(body)-m) < nl {
			return code, fmt.Errorf("malformed custom section name at offset %d", i)
		}
		switch string(body[m : m+int(nl)]) {
		case SectionName:
			code.Source, found = body[m+int(nl):], true
		case BytecodeSectionName:
			code.Bytecode = body[m+int(nl):]
		}
	}
	if !found {
		return Code{}, ErrNoScript
	}
	return code, nil
}

// uleb decodes an unsigned LEB128 of at most 5 bytes (n == 0: malformed).
func uleb(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 5; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// WithScript returns engine with script appended as the custom section SectionName: the
// layout abi/js/build.mjs writes (id 0, size, name length, name, payload).
func WithScript(engine, script []byte) []byte {
	name := []byte(SectionName)
	body := append(appendULEB(nil, uint64(len(name))), name...)
	body = append(body, script...)
	out := append(append([]byte(nil), engine...), 0)
	out = appendULEB(out, uint64(len(body)))
	return append(out, body...)
}

func appendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			c |= 0x80
		}
		b = append(b, c)
		if v == 0 {
			return b
		}
	}
}
