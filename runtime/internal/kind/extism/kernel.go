package extism

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero/api"
)

// Kernel is the memory an Extism plugin's kernel functions (module extism:host/env) manage:
// one per instance. Allocation and the block table are Go; the memory is a Go slice or, once
// linked, the memory of the instance's kernel module (KernelWasm: 1.4 KB of wasm, mostly
// import and export names, where the reference host links its 3.4 KB kernel), whose wasm
// functions serve the loads and stores. Offsets are handles into it (i64; 0 means none), never
// pointers into the plugin's linear memory. The semantics follow the Extism kernel built with its default "bounds-checking"
// feature (extism/extism kernel/src/lib.rs):
//
//   - alloc(0) and a failed allocation return 0; freed blocks of a large enough size are reused;
//   - length of 0, of a freed block or of an offset that is not a block's start is 0;
//     length_unsafe answers the same (ours can afford the check);
//   - load_u8/load_u64 outside the memory read 0, store_u8/store_u64 outside it are ignored;
//   - input_load_u8/u64 past the input read 0; freeing the input block makes its length 0;
//   - output_set with a range outside the memory is ignored, error_set(0) clears the error.
//
// The memory is bounded: its bytes are accounted with Mem, and an allocation Mem refuses
// fails (0); the kernel remembers it so the call's error can name the limit. Reset (before
// each call, as the reference host does) drops every block and gives the bytes back. Vars
// live beside it (Vars), bounded apart. A Kernel is used by one call at a time (the pool
// serialises an instance's calls).
//
// A linked Kernel (Link) keeps its bytes in the memory of the plugin instance's kernel module
// (KernelWasm), whose wasm functions serve the loads and stores; it then accounts the
// memory's pages, which a Reset keeps for the next call (a wasm memory does not shrink),
// instead of the bytes in use.
type Kernel struct {
	mem    []byte   // [0, len) is the used memory; offsets below base are never handed out
	lin    *linked  // the kernel module's memory and globals, nil for a Go kernel
	blocks []*block // in offset order
	byOff  map[uint64]*block

	// Mem accounts the memory's bytes against the guest's memory limit, with its linear
	// memory (the seam's kind.Arena); nil means no bound.
	Mem Accounter
	// Failed is the size of the last allocation Mem refused, 0 if none since Reset.
	Failed uint64

	input, inputLen uint64 // the input block and its length
	output, outLen  uint64 // set by output_set
	err             uint64 // set by error_set
}

// block is one allocation: [off, off+size) of the memory, used bytes of it in use.
type block struct {
	off, size, used uint64
	free            bool
}

// base is the first offset handed out: 0 stays "none", and 8 keeps u64 stores aligned.
const base = 8

// releaseAbove is the capacity above which Reset returns the memory to the Go heap instead of
// keeping it for the next call.
const releaseAbove = 8 << 20

// Reset drops every block, the input, output and error, as the reference host does before
// each call. Vars are kept.
func (k *Kernel) Reset() {
	if k.lin == nil {
		if k.Mem != nil {
			k.Mem.Shrink(uint64(len(k.mem)))
		}
		if cap(k.mem) > releaseAbove {
			k.mem = nil
		}
	}
	k.mem = k.mem[:0]
	k.blocks = k.blocks[:0]
	clear(k.byOff)
	k.Failed = 0
	k.input, k.inputLen, k.output, k.outLen, k.err = 0, 0, 0, 0, 0
	k.publish()
}

// linked is the kernel module of a linked Kernel: its memory and the globals its wasm
// functions check bounds against (KernelWasm).
type linked struct {
	mem                   api.Memory
	used, input, inputLen api.MutableGlobal
	accounted             uint64 // bytes of mem accounted with Kernel.Mem
}

// Link makes mod, an instance of KernelWasm that the plugin's extism:host/env imports
// resolve to, hold the kernel's memory. It is called once, before the first Reset; a nil
// mod leaves the kernel in Go (a plugin linked to the Go host module directly).
func (k *Kernel) Link(mod api.Module) error {
	if mod == nil {
		return nil
	}
	l := &linked{mem: mod.ExportedMemory(KernelMemory)}
	var ok [3]bool
	l.used, ok[0] = mod.ExportedGlobal(KernelGlobalUsed).(api.MutableGlobal)
	l.input, ok[1] = mod.ExportedGlobal(KernelGlobalInput).(api.MutableGlobal)
	l.inputLen, ok[2] = mod.ExportedGlobal(KernelGlobalInputLen).(api.MutableGlobal)
	if l.mem == nil || ok != [3]bool{true, true, true} {
		return errors.New("extism: the kernel module lacks its memory or globals")
	}
	if l.mem.Size() != 0 {
		if k.Mem != nil {
			if err := k.Mem.Grow(uint64(l.mem.Size())); err != nil {
				return err
			}
		}
		l.accounted = uint64(l.mem.Size())
	}
	k.lin, k.mem = l, nil
	k.Reset()
	return nil
}

// Linked reports whether the kernel's memory is a kernel module's (Link).
func (k *Kernel) Linked() bool { return k.lin != nil }

// publish writes what the wasm kernel functions check against into the kernel module's
// globals.
func (k *Kernel) publish() {
	if l := k.lin; l != nil {
		l.used.Set(uint64(len(k.mem)))
		l.input.Set(k.input)
		l.inputLen.Set(k.inputLen)
	}
}

// grow makes the memory hold end bytes (end > len), accounting what it adds with Mem; the
// new bytes up to clearTo are zero (a linked memory's bytes past len may be left from an
// earlier call; those from clearTo to end are the caller's to overwrite). It reports false, changing nothing, when the budget or the memory
// refuses.
func (k *Kernel) grow(end, clearTo uint64) bool {
	old := uint64(len(k.mem))
	if l := k.lin; l != nil {
		if size := uint64(l.mem.Size()); end > size {
			const page = 65536
			pages := (end - size + page - 1) / page
			if pages > 1<<16 || (k.Mem != nil && k.Mem.Grow(pages*page) != nil) {
				return false
			}
			if _, ok := l.mem.Grow(uint32(pages)); !ok {
				if k.Mem != nil {
					k.Mem.Shrink(pages * page)
				}
				return false
			}
			l.accounted += pages * page
		}
		buf, _ := l.mem.Read(0, l.mem.Size())
		k.mem = buf[:end]
		clear(k.mem[old:clearTo])
		l.used.Set(end)
		return true
	}
	if k.Mem != nil && k.Mem.Grow(end-old) != nil {
		return false
	}
	if uint64(cap(k.mem)) >= end {
		k.mem = k.mem[:end]
		clear(k.mem[old:])
	} else {
		k.mem = append(k.mem, make([]byte, int(end-old))...)
	}
	return true
}

// Len is how many bytes the memory holds now (its high-water mark since Reset).
func (k *Kernel) Len() uint64 { return uint64(len(k.mem)) }

// Alloc allocates n bytes and returns the block's offset, or 0 if n is 0 or the budget does
// not allow it. The block reads zero unless it is a freed block reused.
func (k *Kernel) Alloc(n uint64) uint64 { return k.alloc(n, true) }

// alloc is Alloc; zero false leaves fresh bytes as they were (New overwrites them).
func (k *Kernel) alloc(n uint64, zero bool) uint64 {
	if n == 0 {
		return 0
	}
	for _, b := range k.blocks {
		if b.free && b.size >= n {
			b.free, b.used = false, n
			return b.off
		}
	}
	off := max(uint64(len(k.mem)), base)
	off = (off + 7) &^ 7
	end := off + n
	clearTo := end
	if !zero {
		clearTo = off // the alignment gap before the block is cleared all the same
	}
	if end < off || end > maxKernelBytes || !k.grow(end, clearTo) {
		k.Failed = n
		return 0
	}
	b := &block{off: off, size: n, used: n}
	k.blocks = append(k.blocks, b)
	if k.byOff == nil {
		k.byOff = map[uint64]*block{}
	}
	k.byOff[off] = b
	return off
}

// maxKernelBytes caps the kernel memory whatever the budget says: offsets stay far from
// overflow and a slice this size is always addressable.
const maxKernelBytes = 1 << 40

// active returns the block starting at off that is in use, or nil.
func (k *Kernel) active(off uint64) *block {
	if b := k.byOff[off]; b != nil && !b.free {
		return b
	}
	return nil
}

// Free releases the block at off; unknown offsets and 0 are ignored.
func (k *Kernel) Free(off uint64) {
	b := k.active(off)
	if b == nil {
		return
	}
	b.free = true
	if off == k.input {
		k.inputLen = 0
		k.publish()
	}
}

// Length is the number of bytes in use at the block starting at off, 0 if it is no block.
func (k *Kernel) Length(off uint64) uint64 {
	if b := k.active(off); b != nil {
		return b.used
	}
	return 0
}

// Bytes returns the block at off (its used bytes, aliasing the memory), or false.
func (k *Kernel) Bytes(off uint64) ([]byte, bool) {
	b := k.active(off)
	if b == nil {
		return nil, false
	}
	return k.mem[b.off : b.off+b.used], true
}

// New allocates a block holding data and returns its offset; 0 for empty data. ok is false
// when the budget refuses it.
func (k *Kernel) New(data []byte) (off uint64, ok bool) {
	if len(data) == 0 {
		return 0, true
	}
	off = k.alloc(uint64(len(data)), false)
	if off == 0 {
		return 0, false
	}
	copy(k.mem[off:], data)
	return off, true
}

func (k *Kernel) inBounds(p, n uint64) bool {
	return p >= base && p+n >= p && p+n <= uint64(len(k.mem))
}

// LoadU8 reads the byte at p, 0 outside the memory.
func (k *Kernel) LoadU8(p uint64) uint8 {
	if !k.inBounds(p, 1) {
		return 0
	}
	return k.mem[p]
}

// LoadU64 reads the little-endian u64 at p, 0 if any of its bytes is outside the memory.
func (k *Kernel) LoadU64(p uint64) uint64 {
	if !k.inBounds(p, 8) {
		return 0
	}
	return binary.LittleEndian.Uint64(k.mem[p:])
}

// StoreU8 writes the byte at p; outside the memory it is ignored.
func (k *Kernel) StoreU8(p uint64, v uint8) {
	if k.inBounds(p, 1) {
		k.mem[p] = v
	}
}

// StoreU64 writes v little-endian at p; if any byte is outside the memory it is ignored.
func (k *Kernel) StoreU64(p, v uint64) {
	if k.inBounds(p, 8) {
		binary.LittleEndian.PutUint64(k.mem[p:], v)
	}
}

// SetInput copies data into a new block and makes it the input. It fails when the budget
// does not allow the copy.
func (k *Kernel) SetInput(data []byte) error {
	off, ok := k.New(data)
	if !ok {
		return fmt.Errorf("%w: the input of %d bytes does not fit in the plugin's kernel memory", ErrMemoryLimit, len(data))
	}
	k.input, k.inputLen = off, uint64(len(data))
	k.publish()
	return nil
}

// InputOffset is the input block's offset (0 for an empty input).
func (k *Kernel) InputOffset() uint64 { return k.input }

// InputLength is the input's length in bytes.
func (k *Kernel) InputLength() uint64 { return k.inputLen }

// InputLoadU8 reads the input byte at i, 0 past the input.
func (k *Kernel) InputLoadU8(i uint64) uint8 {
	if i >= k.inputLen {
		return 0
	}
	return k.LoadU8(k.input + i)
}

// InputLoadU64 reads the little-endian u64 at input byte i, 0 if it ends past the input.
func (k *Kernel) InputLoadU64(i uint64) uint64 {
	if i+8 < i || i+8 > k.inputLen {
		return 0
	}
	return k.LoadU64(k.input + i)
}

// SetOutput records [p, p+n) as the output; a range outside the memory is ignored.
func (k *Kernel) SetOutput(p, n uint64) {
	if n > 0 && !k.inBounds(p, n) {
		return
	}
	k.output, k.outLen = p, n
}

// Output returns a copy of the output range, nil if none was set.
func (k *Kernel) Output() []byte {
	if k.outLen == 0 || !k.inBounds(k.output, k.outLen) {
		return nil
	}
	return append([]byte(nil), k.mem[k.output:k.output+k.outLen]...)
}

// OutputOffset and OutputLength are what output_set recorded.
func (k *Kernel) OutputOffset() uint64 { return k.output }

// OutputLength is the output's length in bytes.
func (k *Kernel) OutputLength() uint64 { return k.outLen }

// SetError records the error block at off; 0 clears it; an offset outside the memory is
// ignored.
func (k *Kernel) SetError(off uint64) {
	if off != 0 && !k.inBounds(off, 1) {
		return
	}
	k.err = off
}

// ErrorOffset is what error_set recorded (0: none).
func (k *Kernel) ErrorOffset() uint64 { return k.err }

// Error returns the error message the plugin set, and whether it set one. A message at an
// offset that is no block reads as a note saying so.
func (k *Kernel) Error() (string, bool) {
	if k.err == 0 {
		return "", false
	}
	if b, ok := k.Bytes(k.err); ok {
		return string(b), true
	}
	return fmt.Sprintf("(the plugin set an error at kernel offset %d, which is not an allocated block)", k.err), true
}

// Accounter accounts host-side bytes against a guest's memory limit (kind.Arena has this
// shape): Grow fails, counting nothing, when n more bytes would pass the limit.
type Accounter interface {
	Grow(n uint64) error
	Shrink(n uint64)
}

// Vars is a plugin instance's variables (var_get, var_set): kept across calls of the
// instance, dropped with it, bounded by Max bytes counted as the reference host counts them
// (key and value lengths plus a fixed overhead per entry).
type Vars struct {
	m    map[string][]byte
	size int
	// Max is the bound in bytes; 0 disables vars (var_set fails, as the reference host's
	// max_var_bytes 0).
	Max int
	// Mem, if set, also accounts the vars' bytes against the guest's memory limit.
	Mem Accounter
}

// varOverhead is what one entry costs beyond its key and value (the reference host adds
// the size of a String and a Vec<u8>: 24 bytes each on a 64-bit host).
const varOverhead = 48

// DefaultMaxVarBytes is the reference host's default bound on a plugin's vars (1 MiB).
const DefaultMaxVarBytes = 1 << 20

// Get returns the value of key, or false.
func (v *Vars) Get(key string) ([]byte, bool) {
	b, ok := v.m[key]
	return b, ok
}

// Set stores value under key (a copy); a nil value deletes the key. It fails, leaving the
// vars unchanged, when the store would exceed Max.
func (v *Vars) Set(key string, value []byte) error {
	old, had := v.m[key]
	if value == nil {
		if had {
			delete(v.m, key)
			v.size -= len(key) + len(old) + varOverhead
			if v.Mem != nil {
				v.Mem.Shrink(uint64(len(key) + len(old) + varOverhead))
			}
		}
		return nil
	}
	if v.Max == 0 {
		return fmt.Errorf("vars are disabled for this plugin")
	}
	size := v.size + len(key) + len(value) + varOverhead
	if had {
		size -= len(key) + len(old) + varOverhead
	}
	if size > v.Max {
		return fmt.Errorf("%w: variable store is full (%d bytes is over the %d-byte bound)", ErrMemoryLimit, size, v.Max)
	}
	if v.Mem != nil {
		if size > v.size {
			if err := v.Mem.Grow(uint64(size - v.size)); err != nil {
				return err
			}
		} else {
			v.Mem.Shrink(uint64(v.size - size))
		}
	}
	if v.m == nil {
		v.m = map[string][]byte{}
	}
	v.m[key] = append([]byte(nil), value...)
	v.size = size
	return nil
}

// Size is the vars' size as counted against Max.
func (v *Vars) Size() int { return v.size }
