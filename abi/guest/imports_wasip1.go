//go:build wasip1

package guest

import (
	"unsafe"

	"github.com/mcpwasm/mcpwasm/abi"
)

//go:wasmimport mcpwasm_v1 log
func importLog(level int32, ptr unsafe.Pointer, n uint32) int32

//go:wasmimport mcpwasm_v1 progress
func importProgress(progress, total float64, ptr unsafe.Pointer, n uint32) int32

//go:wasmimport mcpwasm_v1 cancelled
func importCancelled() int32

//go:wasmimport mcpwasm_v1 request
func importRequest(kindPtr unsafe.Pointer, kindLen uint32, reqPtr unsafe.Pointer, reqLen uint32) uint64

//go:wasmimport mcpwasm_v1 response
func importResponse(ptr unsafe.Pointer, n uint32) int32

func hostLog(level abi.Level, msg string) {
	importLog(int32(level), unsafe.Pointer(unsafe.StringData(msg)), uint32(len(msg)))
}

func hostProgress(progress, total float64, msg string) {
	importProgress(progress, total, unsafe.Pointer(unsafe.StringData(msg)), uint32(len(msg)))
}

func hostCancelled() bool { return importCancelled() == 1 }

func request(kind string, req []byte) (abi.Status, []byte) {
	r := importRequest(unsafe.Pointer(unsafe.StringData(kind)), uint32(len(kind)),
		unsafe.Pointer(unsafe.SliceData(req)), uint32(len(req)))
	st, n := abi.Unpack(r)
	buf := make([]byte, n)
	if n > 0 {
		if got := importResponse(unsafe.Pointer(unsafe.SliceData(buf)), n); got < 0 {
			return abi.Status(-got), nil
		}
	}
	return abi.Status(st), buf
}

// inBuf is the input region handed to the host by mcpwasm_alloc; it stays reachable (and Go's
// collector does not move objects) until the next alloc replaces it (ABI.md §2.1).
var inBuf []byte

// outBuf keeps the last returned region alive until the next export is entered (ABI.md §3).
var outBuf []byte

//go:wasmexport mcpwasm_abi_version
func exportABIVersion() int32 { return abi.Version }

//go:wasmexport mcpwasm_alloc
func exportAlloc(size int32) uint32 {
	if size < 0 {
		return 0 // over 2 GiB: cannot be satisfied (ABI.md §2.1)
	}
	if size == 0 {
		size = 1
	}
	inBuf = make([]byte, size)
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(inBuf))))
}

//go:wasmexport mcpwasm_describe
func exportDescribe() uint64 {
	outBuf = describe()
	return packOut()
}

//go:wasmexport mcpwasm_call
func exportCall(namePtr, nameLen, argsPtr, argsLen uint32) uint64 {
	// Offsets into inBuf rather than raw pointers: the host wrote into the region we gave it.
	base := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(inBuf))))
	name := inBuf[namePtr-base : namePtr-base+nameLen]
	args := inBuf[argsPtr-base : argsPtr-base+argsLen : argsPtr-base+argsLen]
	outBuf = call(name, args) // resBuf, reused: the previous result is no longer needed
	return packOut()
}

//go:wasmexport mcpwasm_read
func exportRead(uriPtr, uriLen uint32) uint64 {
	base := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(inBuf))))
	uri := inBuf[uriPtr-base : uriPtr-base+uriLen]
	outBuf = nil
	outBuf = read(string(uri))
	return packOut()
}

//go:wasmexport mcpwasm_prompt
func exportPrompt(namePtr, nameLen, argsPtr, argsLen uint32) uint64 {
	base := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(inBuf))))
	name := inBuf[namePtr-base : namePtr-base+nameLen]
	args := inBuf[argsPtr-base : argsPtr-base+argsLen]
	outBuf = nil
	outBuf = prompt(string(name), args)
	return packOut()
}

//go:wasmexport mcpwasm_complete
func exportComplete(reqPtr, reqLen uint32) uint64 {
	base := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(inBuf))))
	req := inBuf[reqPtr-base : reqPtr-base+reqLen]
	outBuf = nil
	outBuf = complete(req)
	return packOut()
}

func packOut() uint64 {
	return abi.Pack(uint32(uintptr(unsafe.Pointer(unsafe.SliceData(outBuf)))), uint32(len(outBuf)))
}
