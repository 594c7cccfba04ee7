package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

var ctx = context.Background()

// tree builds this tree in a temporary directory and returns its path:
//
//	a.txt            "hello\nworld\nHello again\n"
//	b.md             "# title\r\nhello crlf\r\n"
//	big.txt          1 MiB + 1 byte, mentioning hello
//	bin.dat          not UTF-8, mentioning hello
//	empty/
//	escape -> /      a symbolic link out of the tree
//	inside -> a.txt  a symbolic link within the tree
//	sub/c.txt        "say hello\n"
//	sub/deeper/d.txt "nothing\n"
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "hello\nworld\nHello again\n")
	write("b.md", "# title\r\nhello crlf\r\n")
	write("big.txt", "hello\n"+strings.Repeat("x", MaxGrepFileSize-5))
	write("bin.dat", "\xff\xfehello\n")
	write("sub/c.txt", "say hello\n")
	write("sub/deeper/d.txt", "nothing\n")
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "inside")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestList(t *testing.T) {
	dir := tree(t)
	f := Files{Root: dir}
	got, err := f.List(ctx, ListIn{})
	if err != nil {
		t.Fatal(err)
	}
	want := ListOut{Entries: []Entry{
		{Name: "a.txt", Size: 24},
		{Name: "b.md", Size: 21},
		{Name: "big.txt", Size: MaxGrepFileSize + 1},
		{Name: "bin.dat", Size: 8},
		{Name: "empty", Dir: true},
		{Name: "escape", Size: 1}, // a link is listed as itself: its size is its target's length
		{Name: "inside", Size: 5},
		{Name: "sub", Dir: true},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List(root) (-want +got):\n%s", diff)
	}

	got, err = f.List(ctx, ListIn{Path: dir + "/sub/"})
	want = ListOut{Entries: []Entry{{Name: "c.txt", Size: 10}, {Name: "deeper", Dir: true}}}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("List(sub) = %v (-want +got):\n%s", err, diff)
	}

	got, err = f.List(ctx, ListIn{Path: dir + "/empty"})
	if err != nil || got.Entries == nil || len(got.Entries) != 0 {
		t.Errorf("List(empty) = %#v, %v; want non-nil empty entries", got, err)
	}
	b, _ := json.Marshal(got)
	if string(b) != `{"entries":[]}` {
		t.Errorf("List(empty) JSON = %s", b)
	}
}

func TestRead(t *testing.T) {
	dir := tree(t)
	f := Files{Root: dir}
	tests := []struct {
		in   ReadIn
		want string
	}{
		{ReadIn{Path: dir + "/a.txt"}, "hello\nworld\nHello again\n"},
		{ReadIn{Path: dir + "/sub/../a.txt"}, "hello\nworld\nHello again\n"},
		{ReadIn{Path: dir + "/inside"}, "hello\nworld\nHello again\n"},
		{ReadIn{Path: dir + "/a.txt", MaxBytes: 24}, "hello\nworld\nHello again\n"},
		{ReadIn{Path: dir + "/a.txt", MaxBytes: 5}, "hello\n\n[truncated: showing 5 of 24 bytes; raise max_bytes for more]"},
		{ReadIn{Path: dir + "/b.md"}, "# title\r\nhello crlf\r\n"},
	}
	for _, tt := range tests {
		got, err := f.Read(ctx, tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Read(%+v) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestReadRuneBoundary(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "u.txt"), []byte("aé☺"), 0o644); err != nil { // 1 + 2 + 3 bytes
		t.Fatal(err)
	}
	f := Files{Root: dir}
	for _, tt := range []struct {
		max  int
		want string
	}{
		{1, "a\n\n[truncated: showing 1 of 6 bytes; raise max_bytes for more]"},
		{2, "a\n\n[truncated: showing 1 of 6 bytes; raise max_bytes for more]"},
		{3, "aé\n\n[truncated: showing 3 of 6 bytes; raise max_bytes for more]"},
		{5, "aé\n\n[truncated: showing 3 of 6 bytes; raise max_bytes for more]"},
		{6, "aé☺"},
	} {
		got, err := f.Read(ctx, ReadIn{Path: dir + "/u.txt", MaxBytes: tt.max})
		if err != nil || got != tt.want {
			t.Errorf("Read(max %d) = %q, %v; want %q", tt.max, got, err, tt.want)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := tree(t)
	f := Files{Root: dir}
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"read missing", func() error { _, err := f.Read(ctx, ReadIn{Path: dir + "/nope.txt"}); return err },
			"open " + dir + "/nope.txt: no such file or directory"},
		{"read directory", func() error { _, err := f.Read(ctx, ReadIn{Path: dir + "/sub"}); return err },
			"read " + dir + "/sub: is a directory"},
		{"read root", func() error { _, err := f.Read(ctx, ReadIn{Path: dir}); return err },
			"read " + dir + ": is a directory"},
		{"read binary", func() error { _, err := f.Read(ctx, ReadIn{Path: dir + "/bin.dat"}); return err },
			"read " + dir + "/bin.dat: not UTF-8 text"},
		{"read relative", func() error { _, err := f.Read(ctx, ReadIn{Path: "a.txt"}); return err },
			`path "a.txt" must be absolute, under ` + dir},
		{"read empty path", func() error { _, err := f.Read(ctx, ReadIn{}); return err },
			"path is required"},
		{"read max_bytes", func() error { _, err := f.Read(ctx, ReadIn{Path: dir + "/a.txt", MaxBytes: 1_000_001}); return err },
			"max_bytes must be between 1 and 1000000, got 1000001"},
		{"read dot-dot escape", func() error { _, err := f.Read(ctx, ReadIn{Path: dir + "/../outside.txt"}); return err },
			"read " + filepath.Dir(dir) + "/outside.txt: outside " + dir + ", the only directory this guest can see"},
		{"read absolute escape", func() error { _, err := f.Read(ctx, ReadIn{Path: "/etc/passwd"}); return err },
			"read /etc/passwd: outside " + dir + ", the only directory this guest can see"},
		{"read sibling prefix", func() error { _, err := f.Read(ctx, ReadIn{Path: dir + "x/a.txt"}); return err },
			"read " + dir + "x/a.txt: outside " + dir + ", the only directory this guest can see"},
		{"list missing", func() error { _, err := f.List(ctx, ListIn{Path: dir + "/nope"}); return err },
			"stat " + dir + "/nope: no such file or directory"},
		{"list file", func() error { _, err := f.List(ctx, ListIn{Path: dir + "/a.txt"}); return err },
			"list " + dir + "/a.txt: not a directory"},
		{"list escape", func() error { _, err := f.List(ctx, ListIn{Path: dir + "/sub/../.."}); return err },
			"list " + filepath.Dir(dir) + ": outside " + dir + ", the only directory this guest can see"},
		{"list relative", func() error { _, err := f.List(ctx, ListIn{Path: "sub"}); return err },
			`path "sub" must be absolute, under ` + dir},
		{"grep missing", func() error { _, err := f.Grep(ctx, GrepIn{Pattern: "x", Path: dir + "/nope"}); return err },
			"lstat " + dir + "/nope: no such file or directory"},
		{"grep escape", func() error { _, err := f.Grep(ctx, GrepIn{Pattern: "x", Path: "/etc"}); return err },
			"grep /etc: outside " + dir + ", the only directory this guest can see"},
		{"grep bad pattern", func() error { _, err := f.Grep(ctx, GrepIn{Pattern: "a("}); return err },
			"invalid pattern: error parsing regexp: missing closing ): `a(`"},
		{"grep long pattern", func() error { _, err := f.Grep(ctx, GrepIn{Pattern: strings.Repeat("a", 1025)}); return err },
			"pattern is 1025 bytes long, at most 1024 allowed"},
		{"grep max_matches", func() error { _, err := f.Grep(ctx, GrepIn{Pattern: "x", MaxMatches: -1}); return err },
			"max_matches must be between 1 and 1000, got -1"},
		{"no root", func() error {
			_, err := Files{Root: dir + "/nope"}.List(ctx, ListIn{})
			return err
		}, "stat " + dir + "/nope: no such file or directory (this guest sees files only when the operator mounts a directory at " + dir + "/nope)"},
	}
	for _, tt := range tests {
		err := tt.call()
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

// A file the OS refuses to open is an error naming it. Root reads any file, so as root (CI
// runs as root) the test runs again as an unprivileged user, in a child test process.
func TestReadPermission(t *testing.T) {
	if os.Geteuid() == 0 {
		runUnprivileged(t)
		return
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "secret")
	if err := os.WriteFile(p, []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	_, err := Files{Root: dir}.Read(ctx, ReadIn{Path: p})
	if want := "open " + p + ": permission denied"; err == nil || err.Error() != want {
		t.Errorf("Read(unreadable) error %v, want %q", err, want)
	}
}

// unprivilegedUID is the user a root test drops to: nobody on Linux.
const unprivilegedUID = 65534

// runUnprivileged runs t again in a copy of this test binary as unprivilegedUID, and fails if
// that run does not pass (a skip is not a pass). The copy and the child's TMPDIR are in a
// directory that user can reach.
func runUnprivileged(t *testing.T) {
	dir, err := os.MkdirTemp("", "unprivileged")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: unprivilegedUID, Gid: unprivilegedUID}}
	out, err := cmd.CombinedOutput()
	if err != nil && len(out) == 0 {
		testenv.Skip(t, "cannot run a test as uid %d: %v", unprivilegedUID, err)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s as uid %d: %v\n%s", t.Name(), unprivilegedUID, err, out)
	}
}

func TestGrep(t *testing.T) {
	dir := tree(t)
	f := Files{Root: dir}
	got, err := f.Grep(ctx, GrepIn{Pattern: "hello"})
	want := GrepOut{
		Matches: []Match{
			{File: dir + "/a.txt", Line: 1, Text: "hello"},
			{File: dir + "/b.md", Line: 2, Text: "hello crlf"},
			{File: dir + "/sub/c.txt", Line: 1, Text: "say hello"},
		},
		Skipped: 2, // big.txt, bin.dat; links are not followed
	}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Grep(hello) = %v (-want +got):\n%s", err, diff)
	}

	got, err = f.Grep(ctx, GrepIn{Pattern: "(?i)^hello", MaxMatches: 2})
	want = GrepOut{
		Matches: []Match{
			{File: dir + "/a.txt", Line: 1, Text: "hello"},
			{File: dir + "/a.txt", Line: 3, Text: "Hello again"},
		},
		Truncated: true,
	}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Grep((?i)^hello, 2) = %v (-want +got):\n%s", err, diff)
	}

	// Exactly max_matches matches: not truncated.
	got, err = f.Grep(ctx, GrepIn{Pattern: "(?i)^hello", Path: dir + "/a.txt", MaxMatches: 2})
	want.Truncated = false
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Grep(file, 2) = %v (-want +got):\n%s", err, diff)
	}

	got, err = f.Grep(ctx, GrepIn{Pattern: "thing$", Path: dir + "/sub"})
	want = GrepOut{Matches: []Match{{File: dir + "/sub/deeper/d.txt", Line: 1, Text: "nothing"}}}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Grep(sub) = %v (-want +got):\n%s", err, diff)
	}

	got, err = f.Grep(ctx, GrepIn{Pattern: "zzz"})
	if b, _ := json.Marshal(got); err != nil || string(b) != `{"matches":[],"skipped":2}` {
		t.Errorf("Grep(no match) = %s, %v", b, err)
	}
}

func TestGrepLongLine(t *testing.T) {
	dir := t.TempDir()
	line := strings.Repeat("a", MaxMatchText-1) + "é" + "tail" // é straddles the cut
	if err := os.WriteFile(filepath.Join(dir, "long.txt"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Files{Root: dir}.Grep(ctx, GrepIn{Pattern: "tail"})
	if err != nil || len(got.Matches) != 1 || got.Matches[0].Text != strings.Repeat("a", MaxMatchText-1)+"…" {
		t.Errorf("Grep(long line) = %+v, %v", got, err)
	}
}

func TestGrepCancelled(t *testing.T) {
	dir := tree(t)
	old := cancelled
	cancelled = func() bool { return true }
	t.Cleanup(func() { cancelled = old })
	_, err := Files{Root: dir}.Grep(ctx, GrepIn{Pattern: "x"})
	if err == nil || err.Error() != "cancelled" {
		t.Errorf("Grep(cancelled) error %v, want cancelled", err)
	}
}

func TestSchemas(t *testing.T) {
	check := func(name string, raw json.RawMessage, required []string, prop string, want map[string]any) {
		t.Helper()
		var s struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(required, s.Required); diff != "" {
			t.Errorf("%s required (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(want, s.Properties[prop]); diff != "" {
			t.Errorf("%s.%s (-want +got):\n%s", name, prop, diff)
		}
	}
	check("read", readSchema(), []string{"path"}, "max_bytes", map[string]any{"type": "integer", "minimum": 1.0, "maximum": 1e6, "default": 100000.0,
		"description": "most bytes to return (default 100000, at most 1000000); a longer file is cut and marked"})
	check("grep", grepSchema(), []string{"pattern"}, "max_matches", map[string]any{"type": "integer", "minimum": 1.0, "maximum": 1000.0, "default": 100.0,
		"description": "most matches to return (default 100, at most 1000)"})
}

// inferredSchema is T's inferred input schema with the given integer properties bounded and
// defaulted, which struct tags cannot express.
func inferredSchema[T any](ints map[string][3]int) json.RawMessage {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	for name, b := range ints { // b = {minimum, maximum, default}
		p := s.Properties[name]
		p.Minimum, p.Maximum = ptr(float64(b[0])), ptr(float64(b[1]))
		p.Default = json.RawMessage(strconv.Itoa(b[2]))
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return raw
}

func inferredReadSchema() json.RawMessage {
	return inferredSchema[ReadIn](map[string][3]int{"max_bytes": {1, MaxMaxBytes, DefaultMaxBytes}})
}

func inferredGrepSchema() json.RawMessage {
	return inferredSchema[GrepIn](map[string][3]int{"max_matches": {1, MaxMaxMatches, DefaultMaxMatches}})
}

func ptr[T any](v T) *T { return &v }

// TestSchemasCurrent: the constant schemas are what jsonschema-go infers from ReadIn and
// GrepIn, plus the bounds, byte for byte.
func TestSchemasCurrent(t *testing.T) {
	if got, want := string(readSchema()), string(inferredReadSchema()); got != want {
		t.Errorf("readInputSchema is stale; set it to\n%s", want)
	}
	if got, want := string(grepSchema()), string(inferredGrepSchema()); got != want {
		t.Errorf("grepInputSchema is stale; set it to\n%s", want)
	}
}
