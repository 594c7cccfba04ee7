package sandbox

import (
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// DeniedFS lists the requested fs directories not granted (not those a grant overlaps),
// naming the guest, or the tool when grants are narrowed per tool.
func TestDeniedFS(t *testing.T) {
	req := abi.Requests{FS: []abi.FSRequest{{Path: "/notes"}, {Path: "/data"}, {Path: "/notes/"}}}
	granted := policy.Grants{FS: []policy.FS{{Guest: "/data", Host: t.TempDir()}}}
	for _, perTool := range []bool{false, true} {
		tool, err := NewTool("notes", "read", granted, perTool, req, Env{})
		if err != nil {
			t.Fatal(err)
		}
		subject := `guest "notes"`
		if perTool {
			subject = `tool "read" of guest "notes"`
		}
		want := []DeniedFS{{Path: "/notes", Msg: "fs: /notes is not granted to " + subject}}
		if got := tool.DeniedFS(); !slices.Equal(got, want) {
			t.Errorf("perTool %v: DeniedFS = %q, want %q", perTool, got, want)
		}
	}
}

// The refusing mount is an empty directory: its root opens and lists nothing, and every
// path below it or change to it is EACCES.
func TestDeniedFSMount(t *testing.T) {
	d := deniedFS{path: "/notes"}
	f, errno := d.OpenFile(".", experimentalsys.O_RDONLY|experimentalsys.O_DIRECTORY, 0)
	if errno != 0 {
		t.Fatalf("open .: %v", errno)
	}
	defer f.Close()
	dir, errno := f.Readdir(-1)
	if errno != 0 || len(dir) != 0 {
		t.Errorf("readdir: %v, %d entries", errno, len(dir))
	}
	if st, errno := d.Stat("."); errno != 0 || !st.Mode.IsDir() {
		t.Errorf("stat .: %v %v", st.Mode, errno)
	}
	if _, errno := d.OpenFile(".", experimentalsys.O_RDWR|experimentalsys.O_DIRECTORY, 0); errno != experimentalsys.EACCES {
		t.Errorf("open . for writing: %v, want EACCES", errno)
	}
	if _, errno := d.OpenFile("a.txt", experimentalsys.O_RDONLY, 0); errno != experimentalsys.EACCES {
		t.Errorf("open a.txt: %v, want EACCES", errno)
	}
	if _, errno := d.Stat("a.txt"); errno != experimentalsys.EACCES {
		t.Errorf("stat a.txt: %v, want EACCES", errno)
	}
	for name, errno := range map[string]experimentalsys.Errno{
		"mkdir": d.Mkdir("x", 0o755), "unlink": d.Unlink("x"), "rename": d.Rename("x", "y"),
		"rmdir": d.Rmdir("x"), "symlink": d.Symlink("x", "y"), "link": d.Link("x", "y"),
	} {
		if errno != experimentalsys.EACCES {
			t.Errorf("%s: %v, want EACCES", name, errno)
		}
	}
}
