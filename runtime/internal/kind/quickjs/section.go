package quickjs

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrNoScript: the module has no custom section SectionName.
var ErrNoScript = errors.New("no " + SectionName + " custom section")

// Script returns the body of module's custom section SectionName (the guest's script): the
// last one if there are several. It walks the section headers only; a malformed header is an
// error naming its offset.
func Script(module []byte) ([]byte, error) {
	if len(module) < 8 || !bytes.Equal(module[:4], []byte("\x00asm")) {
		return nil, errors.New("not a wasm module")
	}
	var script []byte
	found := false
	for i := 8; i < len(module); {
		id := module[i]
		size, n := uleb(module[i+1:])
		if n == 0 || uint64(len(module)-i-1-n) < size {
			return nil, fmt.Errorf("malformed section header at offset %d", i)
		}
		body := module[i+1+n : i+1+n+int(size)]
		i += 1 + n + int(size)
		if id != 0 {
			continue
		}
		nl, m := uleb(body)
		if m == 0 || uint64(len(body)-m) < nl {
			return nil, fmt.Errorf("malformed custom section name at offset %d", i)
		}
		if string(body[m:m+int(nl)]) == SectionName {
			script, found = body[m+int(nl):], true
		}
	}
	if !found {
		return nil, ErrNoScript
	}
	return script, nil
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
