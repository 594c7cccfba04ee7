package wasm

import (
	"encoding/binary"
	"errors"
)

// The binary format's integer and name encodings (WebAssembly Core 2.0 §5.2): every reader
// of the host reads them through these, so no two disagree on where a number ends.

// U32 decodes an unsigned LEB128 of at most 5 bytes (the u32 encoding) at the start of b and
// returns it and its length in bytes. A value over 2^32-1, a sixth byte or the end of b is an
// error.
func U32(b []byte) (uint32, int, error) {
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

// LEB skips a LEB128 (signed or unsigned) of at most max bytes at the start of b and returns
// its low 64 bits and its length. It checks only the length: the immediates of i32.const
// (max 5) and i64.const (max 10) and the limits of a memory are read this way, as wazero
// reads them.
func LEB(b []byte, max int) (uint64, int, error) {
	var v uint64
	for i := 0; i < max; i++ {
		if i >= len(b) {
			return 0, 0, errors.New("truncated LEB128")
		}
		if i < 10 {
			v |= uint64(b[i]&0x7f) << (7 * i)
		}
		if b[i]&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errors.New("LEB128 too long")
}

// S33 decodes a signed LEB128 of at most 5 bytes whose value fits 33 bits (a block type: a
// type index, or a negative one-byte type code).
func S33(b []byte) (int64, int, error) {
	var v int64
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			return 0, 0, errors.New("truncated LEB128")
		}
		v |= int64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if shift := 7 * (i + 1); b[i]&0x40 != 0 {
				v |= -1 << shift // sign-extend
			}
			if v < -(1<<32) || v >= 1<<32 {
				return 0, 0, errors.New("LEB128 overflows s33")
			}
			return v, i + 1, nil
		}
	}
	return 0, 0, errors.New("LEB128 longer than 5 bytes")
}

// Name decodes a name (a u32 length, then that many bytes) at the start of b and returns it
// and its encoded length. It does not check UTF-8 (wazero does; see Custom).
func Name(b []byte) (string, int, error) {
	l, n, err := U32(b)
	if err != nil || uint64(n)+uint64(l) > uint64(len(b)) {
		return "", 0, ErrMalformed
	}
	return string(b[n : n+int(l)]), n + int(l), nil
}

// AppendU32 appends v as an unsigned LEB128 of the fewest bytes.
func AppendU32(b []byte, v uint32) []byte { return binary.AppendUvarint(b, uint64(v)) }

// AppendS32 appends v as a signed LEB128 (the encoding of i32.const).
func AppendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// AppendName appends s as a name: its length, then its bytes.
func AppendName(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
