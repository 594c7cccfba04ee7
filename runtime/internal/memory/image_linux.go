//go:build linux

package memory

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Image is a snapshot's linear memory in a sealed memfd, mapped copy-on-write
// (MAP_PRIVATE) under the memory of every instance restored from the snapshot: a page the
// instance never wrote reads the image and costs no memory of its own, and a reset drops the
// pages it wrote (madvise MADV_DONTNEED) so the mapping reads the image again. The file is
// closed and view unmapped when the image is unreachable: instances keep their snapshot, and
// so it, while their mappings live (the kernel keeps the file alive for a mapping anyway).
type Image struct {
	fd   int
	size int // bytes, whole wasm pages
	// View is the file mapped shared and read-only: the snapshot's memory for whatever reads
	// it (snapshot.memory), backed by the file's own pages, so the snapshot needs no copy on
	// the Go heap. Writing to it faults.
	View []byte
}

// NewImage puts mem in a memfd sealed against every change: the mappings are private, so
// no instance can write the image, and the seals make sure nothing else does either.
func NewImage(mem []byte) (*Image, error) {
	fd, err := unix.MemfdCreate("mcpwasm-snapshot", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	fail := func(op string, err error) (*Image, error) {
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
	img := &Image{fd: fd, size: len(mem)}
	if len(mem) > 0 {
		view, err := unix.Mmap(fd, 0, len(mem), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return fail("mmap", err)
		}
		img.View = view
	}
	runtime.AddCleanup(img, func(r imageResources) {
		if r.view != nil {
			_ = unix.MunmapPtr(r.view, uintptr(r.size))
		}
		_ = unix.Close(r.fd)
	}, imageResources{fd, unsafe.Pointer(unsafe.SliceData(img.View)), len(img.View)})
	return img, nil
}

// imageResources is what the cleanup of an unreachable Image releases.
type imageResources struct {
	fd   int
	view unsafe.Pointer // nil: none
	size int
}

// mapMemory reserves reserve bytes of address space (no memory is committed: MAP_NORESERVE)
// and maps the image copy-on-write over its start. The rest reads zeros, as grown wasm pages
// must.
func (img *Image) mapMemory(reserve int) ([]byte, error) {
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

// DropPages makes b, part of a mapping mapMemory returned, read the image again: the pages
// written since are dropped. Its cost is the pages written, not len(b).
func DropPages(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return unix.Madvise(b, unix.MADV_DONTNEED)
}

// pagemap is /proc/self/pagemap, opened once: per page of the process's address space, 8
// bytes of flags (Documentation/admin-guide/mm/pagemap.rst). An unprivileged process reads
// the flags (its frame numbers read as 0).
var pagemap struct {
	once sync.Once
	f    *os.File // nil: unreadable (no /proc, a sandbox that refuses it)
}

const (
	pmPresent = 1 << 63
	pmSwapped = 1 << 62
	pmFile    = 1 << 61 // a file page (here: the image's) or shared anonymous
)

var osPage = os.Getpagesize()

// ResetMapped makes buf, the start of a mapping mapMemory returned with the image of snap
// (len(buf) == len(snap)), read snap again. The pages the instance wrote since it was
// mapped are private copies, which pagemap tells from the image's pages: while they are few
// (a quarter of buf at most), snap is copied back into them, and they stay mapped, so the
// next call that writes them again takes no page fault; else, or without pagemap, they are
// dropped (DropPages: dropped is true) and the next writes fault them back in. scratch is
// the caller's buffer for the flags, kept between resets.
func ResetMapped(buf, snap []byte, scratch *[]byte) (dropped bool, err error) {
	n := len(buf) / osPage
	if n == 0 || len(buf)%osPage != 0 || len(snap) != len(buf) {
		return true, DropPages(buf)
	}
	pagemap.once.Do(func() { pagemap.f, _ = os.Open("/proc/self/pagemap") })
	if pagemap.f == nil {
		return true, DropPages(buf)
	}
	if cap(*scratch) < n*8 {
		*scratch = make([]byte, n*8)
	}
	pm := (*scratch)[:n*8]
	off := int64(uintptr(unsafe.Pointer(unsafe.SliceData(buf))) / uintptr(osPage) * 8)
	if _, err := pagemap.f.ReadAt(pm, off); err != nil {
		return true, DropPages(buf)
	}
	written := 0
	for i := range n {
		if privatePage(binary.LittleEndian.Uint64(pm[i*8:])) {
			written++
		}
	}
	if written > n/4 {
		return true, DropPages(buf)
	}
	for i := range n {
		if privatePage(binary.LittleEndian.Uint64(pm[i*8:])) {
			copy(buf[i*osPage:(i+1)*osPage], snap[i*osPage:])
		}
	}
	return false, nil
}

// privatePage reports whether a page of a private file mapping, by its pagemap entry, is the
// instance's own copy (written since it was mapped: present and not the file's, or swapped
// out, which only such a copy can be).
func privatePage(e uint64) bool {
	return e&pmSwapped != 0 || e&(pmPresent|pmFile) == pmPresent
}
