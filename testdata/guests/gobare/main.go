// Command gobare is the physical floor for Go guests: a bare //go:wasmexport pointer+length
// echo with no ABI around it. Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -o gobare.wasm ./bench/testdata/gobare
package main

import "unsafe"

var in, out []byte

// alloc returns an n-byte input region (kept alive in in) and sizes the output buffer.
//
//go:wasmexport alloc
func alloc(n uint32) uint32 {
	in, out = make([]byte, n), make([]byte, n)
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(in))))
}

// echo copies n bytes of the input region at p to the output buffer: (out << 32) | n.
//
//go:wasmexport echo
func echo(p, n uint32) uint64 {
	base := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(in))))
	copy(out, in[p-base:p-base+n])
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(out))))<<32 | uint64(n)
}

func main() {}
