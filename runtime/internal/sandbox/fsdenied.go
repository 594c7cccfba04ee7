package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/policy"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"
)

// DeniedFS is an fs directory a tool's guest requested that is not granted: instances mount
// an empty directory there that refuses everything with EACCES, so the guest reads
// "open /notes/a.txt: permission denied" rather than WASI's "Bad file number" (no preopen
// matched), and a tool error naming a path below it gets Msg (see NoteDenied).
type DeniedFS struct {
	Path string // the guest path, clean and absolute
	Msg  string // `fs: /notes is not granted to guest "notes"`
}

// DeniedFS lists the tool's requested fs directories that are not granted, except those
// that overlap a granted mount (a path inside one, or one containing it: the granted mount
// decides there).
func (c *Tool) DeniedFS() []DeniedFS {
	var out []DeniedFS
	for _, r := range c.requested.FS {
		p := path.Clean("/" + r.Path)
		if slices.ContainsFunc(c.effective.FS, func(f policy.FS) bool {
			g := path.Clean("/" + f.Guest)
			return within(p, g) || within(g, p)
		}) || slices.ContainsFunc(out, func(d DeniedFS) bool { return d.Path == p }) {
			continue
		}
		out = append(out, DeniedFS{Path: p, Msg: fmt.Sprintf("fs: %s is not granted to %s", p, c.subject())})
	}
	return out
}

// deniedFS is the mount at a DeniedFS path: an empty directory where every operation below
// it fails with EACCES.
type deniedFS struct {
	experimentalsys.UnimplementedFS
	path string
}

var _ experimentalsys.FS = deniedFS{}

func (d deniedFS) String() string { return "denied:" + d.path }

// emptyDir is what the mount's root is: wazero opens it when the instance starts, and a
// guest may list it (nothing).
var emptyDir = &sysfs.AdaptFS{FS: emptyFS{}}

// emptyFS is a file system of one empty directory.
type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return emptyRoot{}, nil
}

// emptyRoot is emptyFS's directory, and its own fs.FileInfo.
type emptyRoot struct{}

func (emptyRoot) Stat() (fs.FileInfo, error) { return emptyRoot{}, nil }
func (emptyRoot) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: fs.ErrInvalid}
}
func (emptyRoot) Close() error { return nil }
func (emptyRoot) ReadDir(n int) ([]fs.DirEntry, error) {
	if n > 0 {
		return nil, io.EOF // fs.ReadDirFile: no entries left
	}
	return nil, nil
}
func (emptyRoot) Name() string       { return "." }
func (emptyRoot) Size() int64        { return 0 }
func (emptyRoot) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (emptyRoot) ModTime() time.Time { return time.Time{} }
func (emptyRoot) IsDir() bool        { return true }
func (emptyRoot) Sys() any           { return nil }

func (deniedFS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	if p == "." || p == "" {
		if flag&writeFlags != 0 {
			return nil, experimentalsys.EACCES
		}
		return emptyDir.OpenFile(".", flag, perm)
	}
	return nil, experimentalsys.EACCES
}
func (deniedFS) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	if p == "." || p == "" {
		return emptyDir.Lstat(".")
	}
	return sys.Stat_t{}, experimentalsys.EACCES
}
func (deniedFS) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	if p == "." || p == "" {
		return emptyDir.Stat(".")
	}
	return sys.Stat_t{}, experimentalsys.EACCES
}
func (deniedFS) Readlink(string) (string, experimentalsys.Errno) { return "", experimentalsys.EACCES }
func (deniedFS) Mkdir(string, fs.FileMode) experimentalsys.Errno { return experimentalsys.EACCES }
func (deniedFS) Chmod(string, fs.FileMode) experimentalsys.Errno { return experimentalsys.EACCES }
func (deniedFS) Rename(string, string) experimentalsys.Errno     { return experimentalsys.EACCES }
func (deniedFS) Rmdir(string) experimentalsys.Errno              { return experimentalsys.EACCES }
func (deniedFS) Unlink(string) experimentalsys.Errno             { return experimentalsys.EACCES }
func (deniedFS) Link(string, string) experimentalsys.Errno       { return experimentalsys.EACCES }
func (deniedFS) Symlink(string, string) experimentalsys.Errno    { return experimentalsys.EACCES }
func (deniedFS) Utimens(string, int64, int64) experimentalsys.Errno {
	return experimentalsys.EACCES
}
