package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"
)

// rootFS is a WASI file system confined to one host directory by *os.Root: every path is
// resolved by the kernel relative to an open directory, and ".." or a symlink that would
// leave it fails. wazero's own directory mount resolves paths as strings and is not a
// sandbox against symlinks; see RATIONALE.md, "Why build fs grants on os.Root?".
//
// A read-only rootFS answers every mutation with EROFS.
type rootFS struct {
	experimentalsys.UnimplementedFS
	root *os.Root
	rw   bool
}

var _ experimentalsys.FS = (*rootFS)(nil)

func (r *rootFS) String() string { return r.root.Name() }

const writeFlags = experimentalsys.O_RDWR | experimentalsys.O_WRONLY | experimentalsys.O_APPEND |
	experimentalsys.O_CREAT | experimentalsys.O_TRUNC | experimentalsys.O_EXCL

func (r *rootFS) OpenFile(path string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	if flag&writeFlags != 0 && !r.rw {
		return nil, experimentalsys.EROFS
	}
	if flag&experimentalsys.O_NOFOLLOW != 0 {
		if fi, err := r.root.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, experimentalsys.ELOOP
		}
	}
	osFlag := 0
	switch {
	case flag&experimentalsys.O_RDWR != 0:
		osFlag = os.O_RDWR
	case flag&experimentalsys.O_WRONLY != 0:
		osFlag = os.O_WRONLY
	}
	for _, m := range [...]struct {
		sys experimentalsys.Oflag
		os  int
	}{
		{experimentalsys.O_APPEND, os.O_APPEND}, {experimentalsys.O_CREAT, os.O_CREATE},
		{experimentalsys.O_EXCL, os.O_EXCL}, {experimentalsys.O_TRUNC, os.O_TRUNC},
		{experimentalsys.O_SYNC, os.O_SYNC},
	} {
		if flag&m.sys != 0 {
			osFlag |= m.os
		}
	}
	f, err := openChecked(r.root, path, osFlag, perm)
	if err != nil {
		return nil, errnoOf(err)
	}
	if flag&experimentalsys.O_DIRECTORY != 0 {
		if fi, err := f.Stat(); err != nil || !fi.IsDir() {
			f.Close()
			return nil, experimentalsys.ENOTDIR
		}
	}
	// wazero's fs.File adapter supplies Read/Pread/Seek/Readdir/Write/Pwrite/Stat over the
	// *os.File; reopening a directory to rewind it goes back through the root.
	return (&sysfs.AdaptFS{FS: &rootOpener{root: r.root, first: f}}).OpenFile(path, flag&^writeFlags, perm)
}

// rootOpener hands out an already opened file once, then opens read-only through the root.
type rootOpener struct {
	root  *os.Root
	first *os.File
}

func (o *rootOpener) Open(name string) (fs.File, error) {
	if f := o.first; f != nil {
		o.first = nil
		return f, nil
	}
	return openChecked(o.root, name, os.O_RDONLY, 0)
}

// openChecked opens name in root without blocking and refuses anything but a regular file or
// a directory. Opening a FIFO blocks until a writer appears, and reading one (or a socket or
// a character device) blocks with no end the call could impose; a guest must never reach a
// blocking host operation that outlives its call (RATIONALE.md, "Why are FIFOs and devices
// refused in fs grants?"). O_NONBLOCK makes the open itself return at once; the file type is
// then checked on the open descriptor, so swapping the path between a check and the open
// gains nothing.
func openChecked(root *os.Root, name string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := root.OpenFile(name, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if m := fi.Mode(); !m.IsRegular() && !m.IsDir() {
		f.Close()
		return nil, errSpecial
	}
	return f, nil
}

func (r *rootFS) Lstat(path string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.root.Lstat(path)
	if err != nil {
		return sys.Stat_t{}, errnoOf(err)
	}
	return sys.NewStat_t(fi), 0
}

func (r *rootFS) Stat(path string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.root.Stat(path)
	if err != nil {
		return sys.Stat_t{}, errnoOf(err)
	}
	return sys.NewStat_t(fi), 0
}

func (r *rootFS) Readlink(path string) (string, experimentalsys.Errno) {
	s, err := r.root.Readlink(path)
	return s, errnoOf(err)
}

func (r *rootFS) Mkdir(path string, perm fs.FileMode) experimentalsys.Errno {
	return r.mutate(func() error { return r.root.Mkdir(path, perm) })
}

func (r *rootFS) Chmod(path string, perm fs.FileMode) experimentalsys.Errno {
	return r.mutate(func() error { return r.root.Chmod(path, perm) })
}

// Rename and Link refuse to move or copy a symlink whose target climbs (see Symlink): at a
// shallower place its ".." would point outside the grant.
func (r *rootFS) Rename(from, to string) experimentalsys.Errno {
	return r.mutate(func() error {
		if err := r.checkLinkSource(from); err != nil {
			return err
		}
		return r.root.Rename(from, to)
	})
}

func (r *rootFS) Rmdir(path string) experimentalsys.Errno {
	return r.mutate(func() error {
		if fi, err := r.root.Lstat(path); err == nil && !fi.IsDir() {
			return errNotDir
		}
		return r.root.Remove(path)
	})
}

func (r *rootFS) Unlink(path string) experimentalsys.Errno {
	return r.mutate(func() error {
		if fi, err := r.root.Lstat(path); err == nil && fi.IsDir() {
			return errIsDir
		}
		return r.root.Remove(path)
	})
}

func (r *rootFS) Link(oldPath, newPath string) experimentalsys.Errno {
	return r.mutate(func() error {
		if err := r.checkLinkSource(oldPath); err != nil {
			return err
		}
		return r.root.Link(oldPath, newPath)
	})
}

// checkLinkSource refuses to rename or hard-link p if it is a symlink whose target climbs.
// A trailing slash is dropped first: "l/" would otherwise resolve through the link and hide it.
func (r *rootFS) checkLinkSource(p string) error {
	p = strings.TrimRight(p, "/")
	if p == "" {
		return nil
	}
	fi, err := r.root.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil // the operation reports its own error, or moves no link
	}
	target, err := r.root.Readlink(p)
	if err != nil {
		return err
	}
	if !descending(target) {
		return errEscape
	}
	return nil
}

// Symlink creates a link only if its target descends: relative, and without a ".."
// component. Such a target points inside the link's own directory wherever the link is put,
// so no rename, hard link, or link created through another link ("s -> .") can make it point
// outside the grant. A lexical check of "..", relative to where the link is created, is not
// enough: each of those routes changes the directory the target is read from (RATIONALE.md,
// "Why may a guest's symlink not contain ".."?"). The root would refuse to follow an escaping
// link anyway, but such a link left in a host directory is a trap for every other program.
func (r *rootFS) Symlink(oldPath, linkName string) experimentalsys.Errno {
	if !descending(oldPath) {
		return r.mutate(func() error { return errEscape })
	}
	return r.mutate(func() error { return r.root.Symlink(oldPath, linkName) })
}

// descending reports whether a symlink target is relative and has no ".." component.
func descending(target string) bool {
	if target == "" || path.IsAbs(target) {
		return false
	}
	for _, c := range strings.Split(target, "/") {
		if c == ".." {
			return false
		}
	}
	return true
}

func (r *rootFS) Utimens(path string, atim, mtim int64) experimentalsys.Errno {
	return r.mutate(func() error {
		fi, err := r.root.Stat(path)
		if err != nil {
			return err
		}
		st := sys.NewStat_t(fi)
		a, m := time.Unix(0, st.Atim), time.Unix(0, st.Mtim)
		if atim != experimentalsys.UTIME_OMIT {
			a = time.Unix(0, atim)
		}
		if mtim != experimentalsys.UTIME_OMIT {
			m = time.Unix(0, mtim)
		}
		return r.root.Chtimes(path, a, m)
	})
}

func (r *rootFS) mutate(f func() error) experimentalsys.Errno {
	if !r.rw {
		return experimentalsys.EROFS
	}
	return errnoOf(f())
}

var (
	errNotDir  = errors.New("not a directory")
	errIsDir   = errors.New("is a directory")
	errEscape  = errors.New("symlink target leaves the granted directory")
	errSpecial = errors.New("not a regular file or directory")
)

func errnoOf(err error) experimentalsys.Errno {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errNotDir):
		return experimentalsys.ENOTDIR
	case errors.Is(err, errIsDir):
		return experimentalsys.EISDIR
	case errors.Is(err, errEscape):
		return experimentalsys.EPERM
	case errors.Is(err, errSpecial):
		return experimentalsys.EACCES
	}
	var sysErr syscall.Errno
	if !errors.As(err, &sysErr) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrExist) {
		// os.Root reports a path leaving the root ("path escapes from parent") without an
		// errno; to the guest it is a permission error.
		return experimentalsys.EPERM
	}
	return experimentalsys.UnwrapOSError(err)
}
