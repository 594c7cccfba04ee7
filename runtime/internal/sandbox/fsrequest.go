package sandbox

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// MaxFSRead caps the file a KindFS read returns, in bytes (TOO_LARGE above it): the cap of a
// request body (ABI.md §6.6), so what a guest reads it can write back.
const MaxFSRead = 16 << 20

// fsRequest serves a KindFS request (ABI.md §6.9): one file operation under the tool's
// effective fs grants, through the same rootFS a WASI mount is (fs.go), so a path resolves,
// a symlink is followed, a FIFO or device is refused and a read-only mount refuses a
// mutation exactly as for a Go guest's WASI calls. Errors read as Node's
// ("ENOENT: no such file or directory, open '/data/x'"); a refusal names the grant.
func (c *Tool) fsRequest(_ context.Context, body []byte) (abi.Status, []byte) {
	var req FSOpRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return abi.StatusInvalid, ErrorBody("fs: malformed request: " + clip(err.Error()))
	}
	syscall, ok := fsSyscalls[req.Op]
	if !ok {
		return abi.StatusInvalid, ErrorBody(fmt.Sprintf("fs: unknown operation %q (want read, write, append, readdir, stat or mkdir)", clip(req.Op)))
	}
	if !path.IsAbs(req.Path) {
		return abi.StatusInvalid, ErrorBody(fmt.Sprintf("fs: path %q is not absolute", clip(req.Path)))
	}
	p := path.Clean(req.Path)
	mount, rel, ok := c.fsMount(p)
	if !ok {
		msg := fmt.Sprintf("fs: %s is not granted to %s", p, c.subject())
		for _, d := range c.DeniedFS() {
			if within(p, d.Path) {
				msg = d.Msg
			}
		}
		for _, f := range c.granted.FS {
			if g := path.Clean("/" + f.Guest); within(p, g) {
				msg = fmt.Sprintf("fs: %s is granted but not requested by guest %q; its manifest must list it", g, c.guest)
			}
		}
		return abi.StatusDenied, ErrorBody(fmt.Sprintf("EACCES: permission denied, %s '%s' (%s)", syscall, clip(p), msg))
	}
	root, err := os.OpenRoot(mount.Host)
	if err != nil {
		return abi.StatusFailed, ErrorBody(fmt.Sprintf("fs %s: the granted directory cannot be opened: %v", mount.Guest, err))
	}
	defer root.Close()
	r := &rootFS{root: root, rw: mount.RW}
	var resp FSOpResponse
	var errno experimentalsys.Errno
	switch req.Op {
	case FSOpRead:
		var tooLarge bool
		if errno, tooLarge = fsRead(r, rel, &resp); tooLarge {
			return abi.StatusTooLarge, ErrorBody(fmt.Sprintf("EFBIG: file too large, read '%s' (a read returns at most %s)", clip(p), size.Format(MaxFSRead)))
		}
	case FSOpWrite, FSOpAppend:
		data := []byte(req.Data)
		if req.DataBase64 != "" {
			if data, err = base64.StdEncoding.DecodeString(req.DataBase64); err != nil {
				return abi.StatusInvalid, ErrorBody("fs: data_base64 is not base64: " + clip(err.Error()))
			}
		}
		errno = fsWrite(r, rel, data, req.Op == FSOpAppend)
	case FSOpReadDir:
		errno = fsReadDir(r, rel, &resp)
	case FSOpStat:
		var st fs.FileMode
		stat, e := r.Stat(rel)
		if errno = e; e == 0 {
			st = stat.Mode
			resp.Stat = &FileStat{Type: fsType(st), Size: stat.Size, Mode: uint32(st.Perm()), MtimeMS: float64(stat.Mtim) / 1e6}
		}
	case FSOpMkdir:
		errno = fsMkdir(r, rel, req.Recursive, mount.Guest, &resp)
	}
	if errno != 0 {
		return fsError(errno, syscall, p, mount, c.subject())
	}
	out, _ := json.Marshal(resp)
	return abi.StatusOK, out
}

// fsSyscalls names each operation's system call in errors, as Node does.
var fsSyscalls = map[string]string{FSOpRead: "open", FSOpWrite: "open", FSOpAppend: "open",
	FSOpReadDir: "scandir", FSOpStat: "stat", FSOpMkdir: "mkdir"}

// fsMount finds the effective fs grant holding p (the deepest) and p's path inside it ("."
// for the mount's root).
func (c *Tool) fsMount(p string) (policy.FS, string, bool) {
	best := -1
	for i, f := range c.effective.FS {
		g := path.Clean("/" + f.Guest)
		if within(p, g) && (best < 0 || len(g) > len(path.Clean("/"+c.effective.FS[best].Guest))) {
			best = i
		}
	}
	if best < 0 {
		return policy.FS{}, "", false
	}
	f := c.effective.FS[best]
	rel := strings.TrimPrefix(strings.TrimPrefix(p, path.Clean("/"+f.Guest)), "/")
	if rel == "" {
		rel = "."
	}
	return f, rel, true
}

// fsRead reads rel into resp; tooLarge if it is over MaxFSRead.
func fsRead(r *rootFS, rel string, resp *FSOpResponse) (_ experimentalsys.Errno, tooLarge bool) {
	f, errno := r.OpenFile(rel, experimentalsys.O_RDONLY, 0)
	if errno != 0 {
		return errno, false
	}
	defer f.Close()
	st, errno := f.Stat()
	if errno != 0 {
		return errno, false
	}
	if st.Mode.IsDir() {
		return experimentalsys.EISDIR, false
	}
	if st.Size > MaxFSRead {
		return 0, true
	}
	buf := make([]byte, 0, st.Size+1)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 4096)
		}
		n, errno := f.Read(buf[len(buf):cap(buf)])
		if errno != 0 {
			return errno, false
		}
		if n == 0 {
			break
		}
		if buf = buf[:len(buf)+n]; len(buf) > MaxFSRead { // it grew while read
			return 0, true
		}
	}
	if utf8.Valid(buf) {
		resp.Data = string(buf)
	} else {
		resp.DataBase64 = base64.StdEncoding.EncodeToString(buf)
	}
	return 0, false
}

func fsWrite(r *rootFS, rel string, data []byte, appendTo bool) experimentalsys.Errno {
	flag := experimentalsys.O_WRONLY | experimentalsys.O_CREAT | experimentalsys.O_TRUNC
	if appendTo {
		flag = experimentalsys.O_WRONLY | experimentalsys.O_CREAT | experimentalsys.O_APPEND
	}
	f, errno := r.OpenFile(rel, flag, 0o644)
	if errno != 0 {
		return errno
	}
	for len(data) > 0 {
		n, errno := f.Write(data)
		if errno != 0 {
			f.Close()
			return errno
		}
		data = data[n:]
	}
	return f.Close()
}

func fsReadDir(r *rootFS, rel string, resp *FSOpResponse) experimentalsys.Errno {
	f, errno := r.OpenFile(rel, experimentalsys.O_RDONLY|experimentalsys.O_DIRECTORY, 0)
	if errno != 0 {
		return errno
	}
	defer f.Close()
	ents, errno := f.Readdir(-1)
	if errno != 0 {
		return errno
	}
	resp.Entries = make([]FSEntry, 0, len(ents))
	for _, e := range ents {
		if e.Name == "." || e.Name == ".." {
			continue
		}
		resp.Entries = append(resp.Entries, FSEntry{Name: e.Name, Type: fsType(e.Type)})
	}
	slices.SortFunc(resp.Entries, func(a, b FSEntry) int { return strings.Compare(a.Name, b.Name) })
	return 0
}

// fsMkdir makes rel; with recursive its missing parents too, an existing directory being no
// error, and resp.First the first it made (as a guest path below mount).
func fsMkdir(r *rootFS, rel string, recursive bool, mount string, resp *FSOpResponse) experimentalsys.Errno {
	if !recursive {
		return r.Mkdir(rel, 0o755)
	}
	if rel == "." {
		return 0
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		dir := strings.Join(parts[:i+1], "/")
		st, errno := r.Stat(dir)
		switch {
		case errno == 0 && st.Mode.IsDir():
			continue
		case errno == 0:
			return experimentalsys.ENOTDIR
		case errno != experimentalsys.ENOENT:
			return errno
		}
		if errno := r.Mkdir(dir, 0o755); errno != 0 && errno != experimentalsys.EEXIST {
			return errno
		}
		if resp.First == "" {
			resp.First = path.Join(path.Clean("/"+mount), dir)
		}
	}
	return 0
}

func fsType(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "other"
}

// fsErrors are the errnos a file operation reports as Node's codes and messages, with the
// status each answers.
var fsErrors = map[experimentalsys.Errno]struct {
	code, text string
	status     abi.Status
}{
	experimentalsys.ENOENT:       {"ENOENT", "no such file or directory", abi.StatusNotFound},
	experimentalsys.EEXIST:       {"EEXIST", "file already exists", abi.StatusFailed},
	experimentalsys.ENOTDIR:      {"ENOTDIR", "not a directory", abi.StatusFailed},
	experimentalsys.EISDIR:       {"EISDIR", "illegal operation on a directory", abi.StatusFailed},
	experimentalsys.ENOTEMPTY:    {"ENOTEMPTY", "directory not empty", abi.StatusFailed},
	experimentalsys.EROFS:        {"EROFS", "read-only file system", abi.StatusDenied},
	experimentalsys.EACCES:       {"EACCES", "permission denied", abi.StatusDenied},
	experimentalsys.EPERM:        {"EPERM", "operation not permitted", abi.StatusDenied},
	experimentalsys.ELOOP:        {"ELOOP", "too many symbolic links encountered", abi.StatusDenied},
	experimentalsys.ENAMETOOLONG: {"ENAMETOOLONG", "name too long", abi.StatusInvalid},
	experimentalsys.EINVAL:       {"EINVAL", "invalid argument", abi.StatusInvalid},
}

// fsError is the answer to a failed operation: `ENOENT: no such file or directory, open
// '/data/x'`; a read-only mount's refusal names the grant.
func fsError(errno experimentalsys.Errno, syscall, p string, mount policy.FS, subject string) (abi.Status, []byte) {
	e, ok := fsErrors[errno]
	if !ok {
		e.code, e.text, e.status = "EIO", errno.Error(), abi.StatusFailed
	}
	msg := fmt.Sprintf("%s: %s, %s '%s'", e.code, e.text, syscall, clip(p))
	switch errno {
	case experimentalsys.EROFS:
		msg += fmt.Sprintf(" (fs: %s is granted read-only to %s)", path.Clean("/"+mount.Guest), subject)
	case experimentalsys.EPERM:
		msg += fmt.Sprintf(" (fs: the path leaves %s, granted to %s)", path.Clean("/"+mount.Guest), subject)
	}
	return e.status, ErrorBody(msg)
}

// KindFS is the request kind of a file operation over the guest's fs grant (ABI.md §6.9):
// body FSOpRequest → FSOpResponse. It serves engines that import no WASI file functions (the
// JavaScript kind's node:fs/promises); the paths, read-only mounts and refusals are those of
// the WASI mounts. The kind and its JSON live here, not in package abi: every Go guest
// compiles abi, and a change there rebuilds the bundled guests (guests' TestBundledCurrent).
const KindFS = "fs"

// File operations of a KindFS request (FSOpRequest.Op).
const (
	FSOpRead    = "read"    // the file's bytes: FSOpResponse.Data or DataBase64
	FSOpWrite   = "write"   // create or truncate the file and write Data (or DataBase64)
	FSOpAppend  = "append"  // create the file or append Data (or DataBase64) to it
	FSOpReadDir = "readdir" // the directory's entries: FSOpResponse.Entries, sorted by name
	FSOpStat    = "stat"    // the file's FSOpResponse.Stat (symlinks inside the grant followed)
	FSOpMkdir   = "mkdir"   // make the directory (Recursive: and its parents; FSOpResponse.First)
)

// FSOpRequest is the body of a KindFS request. Path is absolute, in the guest's file system
// (the fs grants' guest paths).
type FSOpRequest struct {
	Op   string `json:"op"`
	Path string `json:"path"`
	Data string `json:"data,omitempty"`
	// DataBase64 carries bytes that are not valid UTF-8 (RFC 4648 §4); used instead of Data
	// when set.
	DataBase64 string `json:"data_base64,omitempty"`
	Recursive  bool   `json:"recursive,omitempty"`
}

// FSOpResponse is the body of an OK answer to a KindFS request; which fields are set depends
// on the operation.
type FSOpResponse struct {
	Data       string    `json:"data,omitempty"`        // read: the bytes, if valid UTF-8
	DataBase64 string    `json:"data_base64,omitempty"` // read: else base64
	Entries    []FSEntry `json:"entries,omitempty"`     // readdir
	Stat       *FileStat `json:"stat,omitempty"`        // stat
	First      string    `json:"first,omitempty"`       // mkdir recursive: the first directory made
}

// FSEntry is one directory entry: its name and type ("file", "dir", "symlink" or "other").
type FSEntry struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// FileStat is what a stat returns: the type as FSEntry's, the size in bytes, the permission
// bits and the modification time in milliseconds since the Unix epoch.
type FileStat struct {
	Type    string  `json:"type"`
	Size    int64   `json:"size"`
	Mode    uint32  `json:"mode"`
	MtimeMS float64 `json:"mtime_ms"`
}
