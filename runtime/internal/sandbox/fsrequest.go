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
	var req abi.FSOpRequest
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
		return abi.StatusDenied, ErrorBody(fmt.Sprintf("EACCES: permission denied, %s '%s' (%s)", syscall, clip(p), msg))
	}
	root, err := os.OpenRoot(mount.Host)
	if err != nil {
		return abi.StatusFailed, ErrorBody(fmt.Sprintf("fs %s: the granted directory cannot be opened: %v", mount.Guest, err))
	}
	defer root.Close()
	r := &rootFS{root: root, rw: mount.RW}
	var resp abi.FSOpResponse
	var errno experimentalsys.Errno
	switch req.Op {
	case abi.FSOpRead:
		var tooLarge bool
		if errno, tooLarge = fsRead(r, rel, &resp); tooLarge {
			return abi.StatusTooLarge, ErrorBody(fmt.Sprintf("EFBIG: file too large, read '%s' (a read returns at most %s)", clip(p), size.Format(MaxFSRead)))
		}
	case abi.FSOpWrite, abi.FSOpAppend:
		data := []byte(req.Data)
		if req.DataBase64 != "" {
			if data, err = base64.StdEncoding.DecodeString(req.DataBase64); err != nil {
				return abi.StatusInvalid, ErrorBody("fs: data_base64 is not base64: " + clip(err.Error()))
			}
		}
		errno = fsWrite(r, rel, data, req.Op == abi.FSOpAppend)
	case abi.FSOpReadDir:
		errno = fsReadDir(r, rel, &resp)
	case abi.FSOpStat:
		var st fs.FileMode
		stat, e := r.Stat(rel)
		if errno = e; e == 0 {
			st = stat.Mode
			resp.Stat = &abi.FileStat{Type: fsType(st), Size: stat.Size, Mode: uint32(st.Perm()), MtimeMS: float64(stat.Mtim) / 1e6}
		}
	case abi.FSOpMkdir:
		errno = fsMkdir(r, rel, req.Recursive, mount.Guest, &resp)
	}
	if errno != 0 {
		return fsError(errno, syscall, p, mount, c.subject())
	}
	out, _ := json.Marshal(resp)
	return abi.StatusOK, out
}

// fsSyscalls names each operation's system call in errors, as Node does.
var fsSyscalls = map[string]string{abi.FSOpRead: "open", abi.FSOpWrite: "open", abi.FSOpAppend: "open",
	abi.FSOpReadDir: "scandir", abi.FSOpStat: "stat", abi.FSOpMkdir: "mkdir"}

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
func fsRead(r *rootFS, rel string, resp *abi.FSOpResponse) (_ experimentalsys.Errno, tooLarge bool) {
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

func fsReadDir(r *rootFS, rel string, resp *abi.FSOpResponse) experimentalsys.Errno {
	f, errno := r.OpenFile(rel, experimentalsys.O_RDONLY|experimentalsys.O_DIRECTORY, 0)
	if errno != 0 {
		return errno
	}
	defer f.Close()
	ents, errno := f.Readdir(-1)
	if errno != 0 {
		return errno
	}
	resp.Entries = make([]abi.FSEntry, 0, len(ents))
	for _, e := range ents {
		if e.Name == "." || e.Name == ".." {
			continue
		}
		resp.Entries = append(resp.Entries, abi.FSEntry{Name: e.Name, Type: fsType(e.Type)})
	}
	slices.SortFunc(resp.Entries, func(a, b abi.FSEntry) int { return strings.Compare(a.Name, b.Name) })
	return 0
}

// fsMkdir makes rel; with recursive its missing parents too, an existing directory being no
// error, and resp.First the first it made (as a guest path below mount).
func fsMkdir(r *rootFS, rel string, recursive bool, mount string, resp *abi.FSOpResponse) experimentalsys.Errno {
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
