package extism

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

func TestKernel(t *testing.T) {
	a := &arena{limit: 64, memory: func() uint64 { return 0 }}
	k := Kernel{Mem: a}
	a0 := k.Alloc(10)
	if a0 != base || k.Length(a0) != 10 || k.Length(a0+1) != 0 || k.Length(0) != 0 || k.Alloc(0) != 0 {
		t.Fatalf("alloc 10 = %d, length %d", a0, k.Length(a0))
	}
	b := k.Alloc(3) // aligned to 8 after a's 10 bytes
	if b != 24 {
		t.Errorf("second block at %d, want 24", b)
	}
	k.StoreU64(b, 0xffff) // ends past the memory (27): ignored
	if k.LoadU64(b) != 0 || k.LoadU8(b) != 0 {
		t.Errorf("a u64 store past the memory was not ignored")
	}
	k.StoreU8(b+2, 9)
	if k.LoadU8(b+2) != 9 || k.LoadU8(b+3) != 0 || k.LoadU8(0) != 0 {
		t.Errorf("u8 load/store")
	}
	if c := k.Alloc(40); c != 0 || k.Failed != 40 {
		t.Errorf("an allocation past the budget = %d (failed %d), want 0 (40)", c, k.Failed)
	}
	k.Free(a0)
	if c := k.Alloc(40); c != 0 {
		t.Errorf("a freed block too small was reused: %d", c)
	}
	if c := k.Alloc(8); c != a0 || k.Length(c) != 8 {
		t.Errorf("a freed block large enough: got %d, want %d", c, a0)
	}
	if err := k.SetInput(make([]byte, 100)); !errors.Is(err, ErrMemoryLimit) {
		t.Errorf("an input over the budget: %v", err)
	}
	k.SetOutput(b, 100) // outside: ignored
	if k.OutputLength() != 0 {
		t.Errorf("an output range outside the memory was recorded")
	}
	k.SetOutput(b, 3)
	if out := k.Output(); string(out) != "\x00\x00\x09" {
		t.Errorf("output %q", out)
	}
	k.SetError(1 << 30) // outside: ignored
	if _, set := k.Error(); set {
		t.Errorf("an error outside the memory was recorded")
	}
	k.SetError(a0 + 1)
	if msg, _ := k.Error(); !strings.Contains(msg, "which is not an allocated block") {
		t.Errorf("error at a non-block: %q", msg)
	}
	k.Reset()
	if k.Len() != 0 || k.Length(a0) != 0 || k.Failed != 0 || k.ErrorOffset() != 0 || a.used != 0 {
		t.Errorf("Reset left state (arena %d bytes)", a.used)
	}
	a.limit = 16 << 20
	k.Alloc(releaseAbove + 1)
	k.Reset()
	if cap(k.mem) != 0 {
		t.Errorf("Reset kept %d bytes of capacity", cap(k.mem))
	}
	if k.Alloc(4) != base || k.LoadU64(base) != 0 {
		t.Errorf("memory after Reset is not fresh")
	}
}

func TestKernelInput(t *testing.T) {
	var k Kernel
	if err := k.SetInput([]byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	if k.InputLength() != 10 || k.InputLoadU8(9) != '9' || k.InputLoadU8(10) != 0 || k.InputLoadU64(2) != 0x3938373635343332 || k.InputLoadU64(3) != 0 {
		t.Errorf("input loads")
	}
	k.Free(k.InputOffset())
	if k.InputLength() != 0 {
		t.Errorf("freeing the input block left its length %d", k.InputLength())
	}
}

func TestVars(t *testing.T) {
	v := Vars{Max: 90}
	if err := v.Set("k", []byte("0123456789")); err != nil || v.Size() != 1+10+varOverhead {
		t.Fatalf("set: %v, size %d", err, v.Size())
	}
	if err := v.Set("k", []byte("01234567890123456789012345678901234567890123456789")); !errors.Is(err, ErrMemoryLimit) {
		t.Errorf("a replacement over the bound: %v", err)
	}
	if got, _ := v.Get("k"); string(got) != "0123456789" {
		t.Errorf("a refused set changed the value to %q", got)
	}
	if err := v.Set("k", nil); err != nil || v.Size() != 0 {
		t.Errorf("delete: %v, size %d", err, v.Size())
	}
	if err := (&Vars{}).Set("k", []byte("v")); err == nil || err.Error() != "vars are disabled for this plugin" {
		t.Errorf("Max 0: %v", err)
	}
}

// Vars count against the memory limit with the kernel memory.
func TestVarsAccounted(t *testing.T) {
	a := &arena{limit: 100, memory: func() uint64 { return 0 }}
	v := Vars{Max: DefaultMaxVarBytes, Mem: a}
	if err := v.Set("k", []byte("v")); err != nil || a.used != 1+1+varOverhead {
		t.Fatalf("set: %v, accounted %d", err, a.used)
	}
	if err := v.Set("k2", make([]byte, 60)); !errors.Is(err, ErrMemoryLimit) || a.used != 50 {
		t.Errorf("over the memory limit: %v, accounted %d", err, a.used)
	}
	if err := v.Set("k", nil); err != nil || a.used != 0 {
		t.Errorf("delete: %v, accounted %d", err, a.used)
	}
}

// FuzzKernel drives the kernel with a sequence of allocations, frees, stores and resets:
// live blocks never overlap (each keeps the bytes written to it), lengths are what was
// asked, and the accounted bytes never pass the limit.
func FuzzKernel(f *testing.F) {
	f.Add([]byte{0, 10, 0, 20, 1, 0, 0, 5, 2, 3})
	f.Add([]byte{0, 255, 0, 255, 0, 255, 3, 0, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		a := &arena{limit: 4096, memory: func() uint64 { return 0 }}
		k := Kernel{Mem: a}
		type live struct {
			off, n uint64
			fill   byte
		}
		var blocks []live
		check := func() {
			for _, b := range blocks {
				if k.Length(b.off) != b.n {
					t.Fatalf("length(%d) = %d, want %d", b.off, k.Length(b.off), b.n)
				}
				got, _ := k.Bytes(b.off)
				for _, c := range got {
					if c != b.fill {
						t.Fatalf("block %d lost its bytes: %v", b.off, got)
					}
				}
			}
			if a.used > a.limit || a.used != k.Len() {
				t.Fatalf("accounted %d, memory %d, limit %d", a.used, k.Len(), a.limit)
			}
		}
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%4, uint64(ops[i+1])
			switch op {
			case 0:
				n := arg * 7
				off := k.Alloc(n)
				if off == 0 {
					continue
				}
				fill := byte(len(blocks) + 1)
				for j := uint64(0); j < n; j++ {
					k.StoreU8(off+j, fill)
				}
				blocks = append(blocks, live{off, n, fill})
			case 1:
				if len(blocks) > 0 {
					j := int(arg) % len(blocks)
					k.Free(blocks[j].off)
					blocks = append(blocks[:j], blocks[j+1:]...)
				}
			case 2:
				k.StoreU64(arg*13, 0) // anywhere, in or out of blocks in use: only unowned bytes may change
				k.LoadU64(arg * 13)
				blocks = blocks[:0] // a store may have hit a block: stop checking contents
			case 3:
				k.Reset()
				blocks = blocks[:0]
			}
			check()
		}
	})
}

// FuzzKernelWasm drives a Go kernel and a linked one (KernelWasm, its loads and stores
// called as the plugin calls them: the module's exports) with the same operations: every
// load, input load and length answers the same, at addresses in, around and far outside the
// memory, through allocations, frees, stores, inputs and resets.
func FuzzKernelWasm(f *testing.F) {
	f.Add([]byte{0, 10, 2, 0, 3, 1, 4, 7, 5, 9, 2, 200, 3, 250, 6, 3, 7, 2, 1, 0, 8, 0, 4, 1})
	f.Add([]byte{6, 40, 7, 0, 7, 39, 7, 33, 7, 32, 1, 0, 7, 0, 8, 0, 0, 255, 4, 255, 5, 254})
	f.Add([]byte{0, 1, 0, 1, 0, 1, 2, 9, 3, 16, 4, 15, 5, 23, 8, 0, 0, 3, 4, 8})
	// Stores 7 and 8 bytes before the end, 8 and 9 after 0, and loads there.
	f.Add([]byte{0, 40, 2, 28, 2, 32, 2, 33, 2, 37, 3, 0, 3, 4, 4, 28, 4, 32, 8, 0, 0, 8, 2, 28, 5, 28})
	// An 8-byte input with a block after it holding bytes: input loads past the input read 0.
	f.Add([]byte{6, 8, 0, 8, 2, 32, 7, 12, 1, 0, 7, 12})
	// Bytes stored, a reset, then an input after a 3-byte block: the gap before it reads 0.
	f.Add([]byte{0, 40, 2, 37, 8, 0, 0, 3, 6, 5})
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	f.Cleanup(func() { rt.Close(ctx) })
	if err := Instantiate(ctx, rt); err != nil {
		f.Fatal(err)
	}
	cm, err := rt.CompileModule(ctx, KernelWasm())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		mod, err := rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			t.Fatal(err)
		}
		defer mod.Close(ctx)
		var g, w Kernel
		if err := w.Link(mod); err != nil {
			t.Fatal(err)
		}
		call := func(name string, args ...uint64) uint64 {
			res, err := mod.ExportedFunction(name).Call(ctx, args...)
			if err != nil {
				t.Fatalf("%s%v: %v", name, args, err)
			}
			if len(res) == 0 {
				return 0
			}
			return res[0]
		}
		// addr picks an address from arg: around the memory's end, around 0, or far out.
		addr := func(arg byte) uint64 {
			n := g.Len()
			switch arg % 4 {
			case 0:
				return n - uint64(arg/4%16)
			case 1:
				return uint64(arg / 4)
			case 2:
				return n + uint64(arg/4%8)
			}
			return ^uint64(0) - uint64(arg/4%16)
		}
		var blocks []uint64
		for i := 0; i+1 < len(ops); i += 2 {
			arg := ops[i+1]
			switch ops[i] % 9 {
			case 0:
				a, b := g.Alloc(uint64(arg)), w.Alloc(uint64(arg))
				if a != b {
					t.Fatalf("alloc(%d) = %d (go), %d (wasm)", arg, a, b)
				}
				blocks = append(blocks, a)
			case 1:
				if len(blocks) > 0 {
					off := blocks[int(arg)%len(blocks)]
					g.Free(off)
					w.Free(off)
				}
			case 2:
				p := addr(arg)
				v := uint64(arg|0x80) * 0x0101010101010101
				g.StoreU64(p, v)
				call("store_u64", p, v)
			case 3:
				p := addr(arg)
				g.StoreU8(p, arg^0x5a)
				call("store_u8", p, uint64(arg^0x5a))
			case 4:
				p := addr(arg)
				if a, b := g.LoadU64(p), call("load_u64", p); a != b {
					t.Fatalf("load_u64(%d) = %#x (go), %#x (wasm); memory %d bytes", p, a, b, g.Len())
				}
			case 5:
				p := addr(arg)
				if a, b := uint64(g.LoadU8(p)), uint64(uint32(call("load_u8", p))); a != b { // an i32 result's upper bits are undefined
					t.Fatalf("load_u8(%d) = %#x (go), %#x (wasm); memory %d bytes", p, a, b, g.Len())
				}
			case 6:
				in := make([]byte, arg)
				for j := range in {
					in[j] = byte(j*7 + 1)
				}
				if err := g.SetInput(in); err != nil {
					t.Fatal(err)
				}
				if err := w.SetInput(in); err != nil {
					t.Fatal(err)
				}
			case 7:
				j := uint64(arg) - 4 + uint64(arg%2)<<60 // near the input's end, or far past it
				if a, b := g.InputLoadU64(j), call("input_load_u64", j); a != b {
					t.Fatalf("input_load_u64(%d) = %#x (go), %#x (wasm)", j, a, b)
				}
				if a, b := uint64(g.InputLoadU8(j)), uint64(uint32(call("input_load_u8", j))); a != b {
					t.Fatalf("input_load_u8(%d) = %#x (go), %#x (wasm)", j, a, b)
				}
			case 8:
				g.Reset()
				w.Reset()
				blocks = blocks[:0]
			}
			// Every load at the edges: 0..16, the memory's last 16 bytes and 8 past them, the top.
			n := g.Len()
			for _, p := range []uint64{0, 1, 7, 8, 9, 15, 16, n - 16, n - 9, n - 8, n - 7, n - 1, n, n + 1, n + 7, ^uint64(0), ^uint64(0) - 7, ^uint64(0) - 8} {
				if a, b := g.LoadU64(p), call("load_u64", p); a != b {
					t.Fatalf("after op %d: load_u64(%d) = %#x (go), %#x (wasm); memory %d bytes", i/2, p, a, b, n)
				}
				if a, b := uint64(g.LoadU8(p)), uint64(uint32(call("load_u8", p))); a != b {
					t.Fatalf("after op %d: load_u8(%d) = %#x (go), %#x (wasm); memory %d bytes", i/2, p, a, b, n)
				}
			}
			in := g.InputLength()
			for _, j := range []uint64{0, 1, in - 9, in - 8, in - 7, in - 1, in, in + 1, ^uint64(0) - 7} {
				if a, b := g.InputLoadU64(j), call("input_load_u64", j); a != b {
					t.Fatalf("after op %d: input_load_u64(%d) = %#x (go), %#x (wasm); input %d bytes", i/2, j, a, b, in)
				}
				if a, b := uint64(g.InputLoadU8(j)), uint64(uint32(call("input_load_u8", j))); a != b {
					t.Fatalf("after op %d: input_load_u8(%d) = %#x (go), %#x (wasm); input %d bytes", i/2, j, a, b, in)
				}
			}
			if g.Len() != w.Len() || !bytes.Equal(g.mem, w.mem) || g.InputLength() != w.InputLength() {
				t.Fatalf("after op %d: go memory %d bytes, wasm %d (equal %v), input %d, %d",
					i/2, g.Len(), w.Len(), bytes.Equal(g.mem, w.mem), g.InputLength(), w.InputLength())
			}
		}
	})
}
