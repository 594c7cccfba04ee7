//go:build linux

package runtime

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// memImage is a snapshot's linear memory in a sealed memfd, mapped copy-on-write
// (MAP_PRIVATE) under the memory of every instance restored from the snapshot: a page the
// instance never wrote reads the image and costs no memory of its own, and a reset drops the
// pages it wrote (madvise MADV_DONTNEED) so the mapping reads the image again. The file is
// closed when the image is unreachable: instances keep their snapshot, and so it, while their
// mappings live (the kernel keeps the file alive for a mapping anyway).
type memImage struct {
	fd   int
	size int // bytes, whole wasm pages
}

// newMemImage puts mem in a memfd sealed against every change: the mappings are private, so
// no instance can write the image, and the seals make sure nothing else does either.
func newMemImage(mem []byte) (*memImage, error) {
	fd, err := unix.MemfdCreate("mcpwasm-snapshot", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	fail := func(op string, err error) (*memImage, error) {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("snapshot image: %s: %w", op, err)
	}
	if err := unix.Ftruncate(fd, int64(len(mem))); err != nil {
		return fail("ftruncate", err)
	}
	for off := 0; off < len(mem); {
		n, err := unix.Pwrite(fd, mem[off:], int64(off))
		if err != nil {
			return fail("pwrite", err)
		}
		off += n
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS,
		unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE|unix.F_SEAL_SEAL); err != nil {
		return fail("seal", err)
	}
	img := &memImage{fd: fd, size: len(mem)}
	runtime.AddCleanup(img, func(fd int) { _ = unix.Close(fd) }, fd)
	return img, nil
}

// mapMemory reserves reserve bytes of address space (no memory is committed: MAP_NORESERVE)
// and maps the image copy-on-write over its start. The rest reads zeros, as grown wasm pages
// must.
func (img *memImage) mapMemory(reserve int) ([]byte, error) {
	if reserve < img.size {
		return nil, fmt.Errorf("snapshot image of %d bytes over a memory of at most %d", img.size, reserve)
	}
	region, err := unix.MmapPtr(-1, 0, nil, uintptr(reserve), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("mmap: %w", err)
	}
	if img.size > 0 {
		if _, err := unix.MmapPtr(img.fd, 0, region, uintptr(img.size), unix.PROT_READ|unix.PROT_WRITE,
			unix.MAP_PRIVATE|unix.MAP_FIXED); err != nil {
			_ = unix.MunmapPtr(region, uintptr(reserve))
			return nil, fmt.Errorf("mmap of the snapshot image: %w", err)
		}
	}
	runtime.KeepAlive(img) // the fd stays open until the mapping is made
	return unsafe.Slice((*byte)(region), reserve), nil
}

// unmapMemory releases what mapMemory returned.
func unmapMemory(region []byte) {
	_ = unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(region)), uintptr(cap(region)))
}

// dropPages makes b, part of a mapping mapMemory returned, read the image again: the pages
// written since are dropped. Its cost is the pages written, not len(b).
func dropPages(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return unix.Madvise(b, unix.MADV_DONTNEED)
}
