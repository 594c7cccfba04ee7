package extism

import (
	"errors"
	"strings"
	"testing"
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
