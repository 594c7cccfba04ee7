package extism

import (
	"slices"
	"sync"

	"github.com/tetratelabs/wazero/api"

	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// The kernel module: a small wasm module instantiated once per plugin instance, before it,
// whose exports are what the plugin imports as extism:host/env (the host resolves the
// plugin's imports of that name to it, for that instance only). It owns the kernel memory
// (exported as KernelMemory) and implements the kernel functions a PDK calls once per 8
// bytes in wasm, so copying a 1 MiB input or output is a loop of wasm→wasm calls instead of
// 262 144 calls into Go: load_u8, load_u64, store_u8, store_u64, input_load_u8 and
// input_load_u64. Everything else it imports from the Go host module extism:host/env
// (HostModules) and re-exports: allocation and the block table stay in Go (Kernel), which
// reads and writes the module's memory directly and publishes, in three exported mutable
// globals, what the wasm functions check bounds against:
//
//   - KernelGlobalUsed: the bytes of the memory in use (Kernel.Len); a load or store at p
//     is inside when base <= p and p+size <= used, else it reads 0 or is ignored, as the
//     Go functions do;
//   - KernelGlobalInput, KernelGlobalInputLen: the input block and its length (0 after the
//     input block is freed).
//
// Go grows the memory (Kernel.Alloc); the module has no memory.grow, so a view of the memory
// Go holds stays valid until Go grows it.
const (
	KernelMemory         = "memory"
	KernelGlobalUsed     = "kernel_used"
	KernelGlobalInput    = "kernel_input"
	KernelGlobalInputLen = "kernel_input_length"
)

// Linked is the kind's Traits.Linked: every plugin instance gets its own kernel module
// (KernelWasm), which its extism:host/env imports resolve to.
func (Kind) Linked() []kind.Linked {
	return []kind.Linked{{Name: EnvModule, Wasm: KernelWasm()}}
}

// wasmKernelFuncs are the kernel functions the kernel module implements in wasm.
var wasmKernelFuncs = []string{"load_u8", "load_u64", "store_u8", "store_u64", "input_load_u8", "input_load_u64"}

// KernelWasm returns the kernel module's bytes (built once; the caller must not modify them).
func KernelWasm() []byte {
	kernelOnce.Do(func() { kernelBytes = buildKernel() })
	return kernelBytes
}

var (
	kernelOnce  sync.Once
	kernelBytes []byte
)

// Opcodes the kernel's code uses.
const (
	opIf        = 0x04
	opElse      = 0x05
	opEnd       = 0x0b
	opCall      = 0x10
	opLocalGet  = 0x20
	opGlobalGet = 0x23
	opI64Load   = 0x29
	opI32Load8U = 0x2d
	opI64Store  = 0x37
	opI32Store8 = 0x3a
	opI32Const  = 0x41
	opI64Const  = 0x42
	opI32Eqz    = 0x45
	opI64LtU    = 0x54
	opI64GtU    = 0x56
	opI64GeU    = 0x5a
	opI32Or     = 0x72
	opI64Add    = 0x7c
	opI64Sub    = 0x7d
	opI32Wrap   = 0xa7

	blockEmpty = 0x40
	blockI32   = 0x7f
	blockI64   = 0x7e
)

// Global indexes in the kernel module.
const (
	gUsed = iota
	gInput
	gInputLen
)

// kernelCode returns the body (without locals) of the wasm kernel function name; self maps
// the kernel's function names to their indexes (input_load_* call load_*).
func kernelCode(name string, self map[string]uint32) []byte {
	// outside1: base > p || p >= used (one byte at p is outside the used memory).
	outside1 := []byte{opLocalGet, 0, opI64Const, base, opI64LtU, opLocalGet, 0, opGlobalGet, gUsed, opI64GeU, opI32Or}
	// outside8: base > p || p > used || used-p < 8 (eight bytes at p are not all inside).
	outside8 := []byte{opLocalGet, 0, opI64Const, base, opI64LtU, opLocalGet, 0, opGlobalGet, gUsed, opI64GtU, opI32Or,
		opGlobalGet, gUsed, opLocalGet, 0, opI64Sub, opI64Const, 8, opI64LtU, opI32Or}
	addr := []byte{opLocalGet, 0, opI32Wrap}
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	call := func(f string) []byte { return wasm.AppendU32([]byte{opCall}, self[f]) }
	switch name {
	case "load_u8":
		return cat(outside1, []byte{opIf, blockI32, opI32Const, 0, opElse}, addr, []byte{opI32Load8U, 0, 0, opEnd})
	case "load_u64":
		return cat(outside8, []byte{opIf, blockI64, opI64Const, 0, opElse}, addr, []byte{opI64Load, 3, 0, opEnd})
	case "store_u8":
		return cat(outside1, []byte{opI32Eqz, opIf, blockEmpty}, addr, []byte{opLocalGet, 1, opI32Store8, 0, 0, opEnd})
	case "store_u64":
		return cat(outside8, []byte{opI32Eqz, opIf, blockEmpty}, addr, []byte{opLocalGet, 1, opI64Store, 3, 0, opEnd})
	case "input_load_u8":
		// i >= input_length reads 0, else load_u8(input + i).
		return cat([]byte{opLocalGet, 0, opGlobalGet, gInputLen, opI64GeU, opIf, blockI32, opI32Const, 0, opElse,
			opGlobalGet, gInput, opLocalGet, 0, opI64Add}, call("load_u8"), []byte{opEnd})
	case "input_load_u64":
		// i > input_length || input_length-i < 8 reads 0, else load_u64(input + i).
		return cat([]byte{opLocalGet, 0, opGlobalGet, gInputLen, opI64GtU,
			opGlobalGet, gInputLen, opLocalGet, 0, opI64Sub, opI64Const, 8, opI64LtU, opI32Or,
			opIf, blockI64, opI64Const, 0, opElse,
			opGlobalGet, gInput, opLocalGet, 0, opI64Add}, call("load_u64"), []byte{opEnd})
	}
	panic("extism: no wasm kernel function " + name)
}

// buildKernel encodes the kernel module: imports of every extism:host/env function it does
// not implement, its own memory and globals, and exports of all of them.
func buildKernel() []byte {
	var types [][]byte // encoded function types
	typeOf := func(params, results []api.ValueType) uint32 {
		t := []byte{0x60}
		t = wasm.AppendU32(t, uint32(len(params)))
		t = append(t, params...)
		t = wasm.AppendU32(t, uint32(len(results)))
		t = append(t, results...)
		if i := slices.IndexFunc(types, func(u []byte) bool { return slices.Equal(u, t) }); i >= 0 {
			return uint32(i)
		}
		types = append(types, t)
		return uint32(len(types) - 1)
	}
	var imported, local []HostFunc
	for _, f := range envFuncs {
		if slices.Contains(wasmKernelFuncs, f.Name) {
			local = append(local, f)
		} else {
			imported = append(imported, f)
		}
	}
	index := map[string]uint32{}
	var imports, funcs []byte
	imports = wasm.AppendU32(imports, uint32(len(imported)))
	for i, f := range imported {
		imports = wasm.AppendName(imports, EnvModule)
		imports = wasm.AppendName(imports, f.Name)
		imports = append(imports, 0x00) // func
		imports = wasm.AppendU32(imports, typeOf(f.Params, f.Results))
		index[f.Name] = uint32(i)
	}
	funcs = wasm.AppendU32(funcs, uint32(len(local)))
	for i, f := range local {
		funcs = wasm.AppendU32(funcs, typeOf(f.Params, f.Results))
		index[f.Name] = uint32(len(imported) + i)
	}
	code := wasm.AppendU32(nil, uint32(len(local)))
	for _, f := range local {
		body := append([]byte{0}, kernelCode(f.Name, index)...) // no locals
		body = append(body, opEnd)
		code = wasm.AppendU32(code, uint32(len(body)))
		code = append(code, body...)
	}
	memory := []byte{1, 0x00, 0} // one memory, min 0 pages, no maximum (Go grows it under the budget)
	var globals []byte
	globals = wasm.AppendU32(globals, 3)
	for range 3 {
		globals = append(globals, byte(api.ValueTypeI64), 1, opI64Const, 0, opEnd) // mut i64 = 0
	}
	var exports []byte
	exports = wasm.AppendU32(exports, uint32(len(envFuncs)+1+3))
	for _, f := range envFuncs {
		exports = wasm.AppendName(exports, f.Name)
		exports = append(exports, 0x00)
		exports = wasm.AppendU32(exports, index[f.Name])
	}
	exports = append(wasm.AppendName(exports, KernelMemory), 0x02, 0)
	for i, g := range []string{KernelGlobalUsed, KernelGlobalInput, KernelGlobalInputLen} {
		exports = append(wasm.AppendName(exports, g), 0x03, byte(i))
	}
	var typeSec []byte
	typeSec = wasm.AppendU32(typeSec, uint32(len(types)))
	for _, t := range types {
		typeSec = append(typeSec, t...)
	}
	out := []byte{0x00, 'a', 's', 'm', 1, 0, 0, 0}
	section := func(id byte, body []byte) {
		out = append(out, id)
		out = wasm.AppendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	section(1, typeSec)
	section(2, imports)
	section(3, funcs)
	section(5, memory)
	section(6, globals)
	section(7, exports)
	section(10, code)
	return out
}
