package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// A KindFS request reaches files only under the tool's effective fs grants, through the same
// rootFS as a WASI mount: reads and writes in a rw mount, refusals naming the grant for a
// read-only mount, a path outside every grant, a requested directory not granted, and a
// symlink or ".." leaving the grant; a file over MaxFSRead is TOO_LARGE.
func TestFSRequest(t *testing.T) {
	data, docs, outside := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "a.txt"), []byte("héllo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(docs, "link")); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(docs, "big"))
	if err != nil {
		t.Fatal(err)
	}
	big.Truncate(MaxFSRead + 1)
	big.Close()
	req := abi.Requests{FS: []abi.FSRequest{{Path: "/data", RW: true}, {Path: "/docs"}, {Path: "/notes"}}}
	granted := policy.Grants{FS: []policy.FS{{Guest: "/data", Host: data, RW: true}, {Guest: "/docs", Host: docs, RW: true}}}
	tool, err := NewTool("files", "t", granted, false, req, Env{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		body   string
		status abi.Status
		want   string
	}{
		{`{"op":"write","path":"/data/x/y.txt","data":"one"}`, abi.StatusNotFound, `{"error":"ENOENT: no such file or directory, open '/data/x/y.txt'"}`},
		{`{"op":"mkdir","path":"/data/x/z","recursive":true}`, abi.StatusOK, `{"first":"/data/x"}`},
		{`{"op":"mkdir","path":"/data/x/z","recursive":true}`, abi.StatusOK, `{}`},
		{`{"op":"mkdir","path":"/data/x"}`, abi.StatusFailed, `{"error":"EEXIST: file already exists, mkdir '/data/x'"}`},
		{`{"op":"write","path":"/data/x/y.txt","data":"one"}`, abi.StatusOK, `{}`},
		{`{"op":"append","path":"/data/x/y.txt","data_base64":"/w=="}`, abi.StatusOK, `{}`},
		{`{"op":"read","path":"/data/x/y.txt"}`, abi.StatusOK, `{"data_base64":"b25l/w=="}`},
		{`{"op":"read","path":"/data/x/../x/./y.txt"}`, abi.StatusOK, `{"data_base64":"b25l/w=="}`},
		{`{"op":"readdir","path":"/data/x"}`, abi.StatusOK, `{"entries":[{"name":"y.txt","type":"file"},{"name":"z","type":"dir"}]}`},
		{`{"op":"stat","path":"/data/x/y.txt"}`, abi.StatusOK, ``},
		{`{"op":"read","path":"/data/x"}`, abi.StatusFailed, `{"error":"EISDIR: illegal operation on a directory, open '/data/x'"}`},
		{`{"op":"read","path":"/docs/a.txt"}`, abi.StatusOK, `{"data":"héllo"}`},
		{`{"op":"write","path":"/docs/a.txt","data":"x"}`, abi.StatusDenied, `{"error":"EROFS: read-only file system, open '/docs/a.txt' (fs: /docs is granted read-only to guest \"files\")"}`},
		{`{"op":"mkdir","path":"/docs/new"}`, abi.StatusDenied, `{"error":"EROFS: read-only file system, mkdir '/docs/new' (fs: /docs is granted read-only to guest \"files\")"}`},
		{`{"op":"read","path":"/docs/link"}`, abi.StatusDenied, `{"error":"EPERM: operation not permitted, open '/docs/link' (fs: the path leaves /docs, granted to guest \"files\")"}`},
		{`{"op":"read","path":"/docs/big"}`, abi.StatusTooLarge, `{"error":"EFBIG: file too large, read '/docs/big' (a read returns at most 16 MiB)"}`},
		{`{"op":"read","path":"/docs/../etc/passwd"}`, abi.StatusDenied, `{"error":"EACCES: permission denied, open '/etc/passwd' (fs: /etc/passwd is not granted to guest \"files\")"}`},
		{`{"op":"readdir","path":"/notes/today"}`, abi.StatusDenied, `{"error":"EACCES: permission denied, scandir '/notes/today' (fs: /notes is not granted to guest \"files\")"}`},
		{`{"op":"read","path":"data/x"}`, abi.StatusInvalid, `{"error":"fs: path \"data/x\" is not absolute"}`},
		{`{"op":"unlink","path":"/data/x"}`, abi.StatusInvalid, `{"error":"fs: unknown operation \"unlink\" (want read, write, append, readdir, stat or mkdir)"}`},
	} {
		st, body := tool.Request(context.Background(), KindFS, []byte(c.body))
		if st != c.status || (c.want != "" && string(body) != c.want) {
			t.Errorf("%s: %v %s, want %v %s", c.body, st, body, c.status, c.want)
		}
	}
	st, body := tool.Request(context.Background(), KindFS, []byte(`{"op":"stat","path":"/data/x/y.txt"}`))
	fi, _ := os.Stat(filepath.Join(data, "x", "y.txt"))
	if want := `{"stat":{"type":"file","size":4,"mode":420,"mtime_ms":` + formatMS(fi.ModTime().UnixNano()) + `}}`; st != abi.StatusOK || string(body) != want {
		t.Errorf("stat: %v %s, want %s", st, body, want)
	}
	// A tool the file system is not granted to at all.
	bare, err := NewTool("files", "t", policy.Grants{}, false, req, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if st, body := bare.Request(context.Background(), KindFS, []byte(`{"op":"read","path":"/data/x/y.txt"}`)); st != abi.StatusDenied || string(body) != `{"error":"EACCES: permission denied, open '/data/x/y.txt' (fs: /data is not granted to guest \"files\")"}` {
		t.Errorf("read without a grant: %v %s", st, body)
	}
	// Granted by the operator but never requested: the refusal says the guest must ask for it.
	unasked, err := NewTool("files", "t", policy.Grants{FS: []policy.FS{{Guest: "/srv", Host: data}}}, false, req, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if st, body := unasked.Request(context.Background(), KindFS, []byte(`{"op":"read","path":"/srv/x/y.txt"}`)); st != abi.StatusDenied || string(body) != `{"error":"EACCES: permission denied, open '/srv/x/y.txt' (fs: /srv is granted but not requested by guest \"files\"; its manifest must list it)"}` {
		t.Errorf("read of a granted, unrequested directory: %v %s", st, body)
	}
}

// formatMS is encoding/json's spelling of nanoseconds as float64 milliseconds.
func formatMS(ns int64) string {
	b, _ := json.Marshal(float64(ns) / 1e6)
	return string(b)
}
