package mcpserver_test

import (
	"bytes"
	"strings"
)

// manifestGuest is a complete guest whose manifest is man: every tool answers "ok", every
// resource reads as "x", every prompt renders one message. It is built here, not with
// wat2wasm, so a test can hand the host any manifest text.
func manifestGuest(man string) []byte {
	return manifestGuestResult(man, `{"content":[{"type":"text","text":"ok"}]}`)
}

// manifestGuestResult is manifestGuest whose every tool returns res (under 512 bytes) as its
// CallToolResult.
func manifestGuestResult(man, res string) []byte {
	if len(res) >= 512 {
		panic("manifestGuestResult: result of 512 bytes or more")
	}
	uleb := func(n uint64) []byte {
		var out []byte
		for {
			b := byte(n & 0x7f)
			if n >>= 7; n != 0 {
				out = append(out, b|0x80)
				continue
			}
			return append(out, b)
		}
	}
	sleb := func(n int64) []byte {
		var out []byte
		for {
			b := byte(n & 0x7f)
			n >>= 7
			if (n == 0 && b&0x40 == 0) || (n == -1 && b&0x40 != 0) {
				return append(out, b)
			}
			out = append(out, b|0x80)
		}
	}
	vec := func(items ...[]byte) []byte { return append(uleb(uint64(len(items))), bytes.Join(items, nil)...) }
	name := func(s string) []byte { return append(uleb(uint64(len(s))), s...) }
	const i32, i64 = 0x7f, 0x7e
	functype := func(params int, result byte) []byte {
		return append(append([]byte{0x60}, vec(bytes.Split(bytes.Repeat([]byte{i32}, params), nil)...)...), vec([]byte{result})...)
	}
	// types: 0 ()→i32, 1 (i32)→i32, 2 ()→i64, 3 (i32 i32 i32 i32)→i64, 4 (i32 i32)→i64
	types := vec(functype(0, i32), functype(1, i32), functype(0, i64), functype(4, i64), functype(2, i64))
	funcs := vec(uleb(0), uleb(1), uleb(2), uleb(3), uleb(4), uleb(3))
	pages := uint64(2 + (len(man)+65535)/65536)
	mem := vec(append(append([]byte{1}, uleb(pages)...), uleb(65536)...))
	exp := func(n string, kind byte, idx uint64) []byte { return append(append(name(n), kind), uleb(idx)...) }
	exps := vec(exp("memory", 2, 0), exp("mcpwasm_abi_version", 0, 0), exp("mcpwasm_alloc", 0, 1),
		exp("mcpwasm_describe", 0, 2), exp("mcpwasm_call", 0, 3), exp("mcpwasm_read", 0, 4), exp("mcpwasm_prompt", 0, 5))
	const read = `{"contents":[{"uri":"x:x","text":"x"}]}`
	const prompt = `{"messages":[{"role":"user","content":{"type":"text","text":"x"}}]}`
	packed := func(off, n int) []byte { return append([]byte{0x42}, sleb(int64(off)<<32|int64(n))...) }
	body := func(code []byte) []byte {
		b := append(append([]byte{0}, code...), 0x0b)
		return append(uleb(uint64(len(b))), b...)
	}
	codes := vec(body(append([]byte{0x41}, sleb(1)...)), body(append([]byte{0x41}, sleb(4096)...)),
		body(packed(65536, len(man))), body(packed(512, len(res))), body(packed(1024, len(read))), body(packed(2048, len(prompt))))
	seg := func(off int64, s string) []byte {
		return append(append(append([]byte{0, 0x41}, sleb(off)...), 0x0b), append(uleb(uint64(len(s))), s...)...)
	}
	data := vec(seg(512, res), seg(1024, read), seg(2048, prompt), seg(65536, man))
	out := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range []struct {
		id   byte
		body []byte
	}{{1, types}, {3, funcs}, {5, mem}, {7, exps}, {10, codes}, {11, data}} {
		out = append(append(out, s.id), append(uleb(uint64(len(s.body))), s.body...)...)
	}
	return out
}

// deepSchema is an object schema nesting levels objects deep through "properties" (its JSON
// nests 2×levels+1 deep).
func deepSchema(levels int) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"object"}` + strings.Repeat(`}}`, levels)
}
