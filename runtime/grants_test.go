package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/testenv"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

var probe struct {
	once sync.Once
	wasm []byte
	err  error
}

// probeWasm builds testdata/guests/probe once per test binary.
func probeWasm(t *testing.T) []byte {
	t.Helper()
	probe.once.Do(func() {
		out := filepath.Join(cacheDir, "probe.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "./testdata/guests/probe")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			probe.err = fmt.Errorf("building probe guest: %v\n%s", err, b)
			return
		}
		probe.wasm, probe.err = os.ReadFile(out)
	})
	if probe.err != nil {
		t.Fatal(probe.err)
	}
	return probe.wasm
}

// result calls tool and returns the text of its result and whether it is a tool error.
func result(t *testing.T, g *runtime.Guest, tool, args string) (string, bool) {
	t.Helper()
	out, err := g.Call(context.Background(), tool, []byte(args))
	if err != nil {
		t.Fatalf("Call(%s, %s): %v", tool, args, err)
	}
	s := string(out)
	isErr := strings.Contains(s, `"isError":true`)
	i := strings.Index(s, `"text":"`)
	if i < 0 {
		t.Fatalf("no text in %s", s)
	}
	text := s[i+len(`"text":"`):]
	text = text[:strings.Index(text, `"}`)]
	return strings.NewReplacer(`\"`, `"`, `\n`, "\n", `\\`, `\`).Replace(text), isErr
}

func loadProbe(t *testing.T, h *runtime.Host, cfg runtime.GuestConfig) *runtime.Guest {
	t.Helper()
	return load(t, h, probeWasm(t), &cfg)
}

// fakeNet resolves test names to fixed addresses and sends dials for the public-looking test
// address to a loopback server, counting every dial.
type fakeNet struct {
	dials  atomic.Int32
	server string // host:port of the httptest server
}

func (f *fakeNet) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	switch host {
	case "api.example.test":
		return []netip.Addr{netip.MustParseAddr("203.0.113.10")}, nil
	case "internal.example.test":
		return []netip.Addr{netip.MustParseAddr("10.0.0.5")}, nil
	case "localhost":
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (f *fakeNet) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	f.dials.Add(1)
	if addr == "203.0.113.10:80" {
		addr = f.server
	}
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

func newNetHost(t *testing.T) (*runtime.Host, *fakeNet) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello from api") })
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/to-internal", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://internal.example.test/", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	fn := &fakeNet{server: srv.Listener.Addr().String()}
	h, err := runtime.NewHost(context.Background(), &runtime.Options{CacheDir: cacheDir,
		Net: peer.Net{Resolver: fn, DialContext: fn.DialContext}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, fn
}

// SSRF through the net grant.
func TestNetGrantSSRF(t *testing.T) {
	h, fn := newNetHost(t)
	g := loadProbe(t, h, runtime.GuestConfig{Grants: runtime.Grants{Net: []string{"api.example.test", "internal.example.test"}}})
	for _, tc := range []struct{ url, want string }{
		{"http://127.1/", `net: host "127.1" is an ambiguous numeric address; use a dotted-quad IPv4 or a name`},
		{"http://2130706433/", `net: host "2130706433" is an ambiguous numeric address; use a dotted-quad IPv4 or a name`},
		{"http://0x7f000001/", `net: host "0x7f000001" is an ambiguous numeric address; use a dotted-quad IPv4 or a name`},
		{"http://[::1]/", `net: host "::1" is not granted to guest "probe"`},
		{"http://[::ffff:127.0.0.1]/", `net: host "::ffff:127.0.0.1" is not granted to guest "probe"`},
		{"http://0.0.0.0/", `net: host "0.0.0.0" is not granted to guest "probe"`},
		{"http://169.254.169.254/", `net: host "169.254.169.254" is not granted to guest "probe"`},
		{"http://localhost./", `net: host "localhost" is not granted to guest "probe"`},
		{"file:///etc/passwd", `net: scheme "file" is not allowed (http and https only)`},
		{"gopher://127.0.0.1:6379/_x", `net: scheme "gopher" is not allowed (http and https only)`},
		{"http://api.example.test/to-metadata", `net: host "169.254.169.254" is not granted to guest "probe"`},
		{"http://internal.example.test/", `net: "internal.example.test" resolves to 10.0.0.5, a private address; not allowed unless granted by that IP`},
		{"http://api.example.test/to-internal", `net: "internal.example.test" resolves to 10.0.0.5, a private address; not allowed unless granted by that IP`},
		{"http://api.example.test:8080/ok", `net: host "api.example.test:8080" is not granted to guest "probe" ("api.example.test" covers only the default port 80: grant "api.example.test:8080")`},
	} {
		text, isErr := result(t, g, "http", fmt.Sprintf(`{"url":%q}`, tc.url))
		want := "http: DENIED: " + tc.want
		if !isErr || text != want {
			t.Errorf("%s:\n got %q (isError=%v)\nwant %q", tc.url, text, isErr, want)
		}
	}
	// Only the two redirecting requests reached the (allowed) server: nothing else was dialed.
	if n := fn.dials.Load(); n != 2 {
		t.Errorf("%d dials, want 2 (the allowed host before each refused redirect)", n)
	}
	if text, isErr := result(t, g, "http", `{"url":"http://api.example.test/ok"}`); isErr || text != "200 hello from api" {
		t.Errorf("allowed host: %q isError=%v", text, isErr)
	}
}

// A grant that names an IP (or localhost) allows that loopback address explicitly.
func TestNetGrantExplicitLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "local") }))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	h, _ := newHost(t)
	g := loadProbe(t, h, runtime.GuestConfig{Grants: runtime.Grants{Net: []string{fmt.Sprintf("127.0.0.1:%d", port)}}})
	if text, isErr := result(t, g, "http", fmt.Sprintf(`{"url":"http://127.0.0.1:%d/"}`, port)); isErr || text != "200 local" {
		t.Errorf("granted loopback IP: %q isError=%v", text, isErr)
	}
	// The same host written differently is the same grant.
	h2, _ := newHost(t)
	g2 := loadProbe(t, h2, runtime.GuestConfig{Grants: runtime.Grants{Net: []string{fmt.Sprintf("localhost:%d", port)}}})
	for _, u := range []string{"http://localhost:%d/", "http://LOCALHOST:%d/", "http://localhost.:%d/", "http://localhost:0%d/"} {
		url := fmt.Sprintf(u, port)
		if text, isErr := result(t, g2, "http", fmt.Sprintf(`{"url":%q}`, url)); isErr || text != "200 local" {
			t.Errorf("%s with grant localhost:%d: %q isError=%v", url, port, text, isErr)
		}
	}
}

func TestNetDeniedWithoutGrant(t *testing.T) {
	h, fn := newNetHost(t)
	g := loadProbe(t, h, runtime.GuestConfig{})
	text, isErr := result(t, g, "http", `{"url":"http://api.example.test/ok"}`)
	if want := `http: DENIED: net: no hosts are granted to guest "probe"`; !isErr || text != want {
		t.Errorf("got %q, want %q", text, want)
	}
	if fn.dials.Load() != 0 {
		t.Errorf("dialed without a grant")
	}
}

// Per-tool narrowing: a tool without its own entry gets nothing.
func TestPerToolNarrowing(t *testing.T) {
	h, fn := newNetHost(t)
	g := loadProbe(t, h, runtime.GuestConfig{
		Grants:     runtime.Grants{Net: []string{"api.example.test"}},
		ToolGrants: map[string]runtime.Grants{"http": {Net: []string{"api.example.test"}}},
	})
	if text, isErr := result(t, g, "http", `{"url":"http://api.example.test/ok"}`); isErr || text != "200 hello from api" {
		t.Errorf("granted tool: %q isError=%v", text, isErr)
	}
	text, isErr := result(t, g, "http2", `{"url":"http://api.example.test/ok"}`)
	if want := `http: DENIED: net: no hosts are granted to tool "http2" of guest "probe"`; !isErr || text != want {
		t.Errorf("ungranted tool: %q, want %q", text, want)
	}
	if fn.dials.Load() != 1 {
		t.Errorf("%d dials, want 1", fn.dials.Load())
	}
}

// a rooted fs grant cannot be left through "..", symlinks, or absolute paths.
func TestFilesystemEscape(t *testing.T) {
	dir := t.TempDir()
	box := filepath.Join(dir, "box")
	must(t, os.MkdirAll(filepath.Join(box, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("TOP-SECRET"), 0o644))
	must(t, os.WriteFile(filepath.Join(box, "ok.txt"), []byte("fine"), 0o644))
	must(t, os.Symlink("../secret.txt", filepath.Join(box, "link")))
	h, _ := newHost(t)
	g := loadProbe(t, h, runtime.GuestConfig{Grants: runtime.Grants{FS: []policy.FS{{Guest: "/data", Host: box, RW: true}}}})

	// Links whose target leaves the directory are refused (they would be traps on the host),
	// and so is any target with "..", even one that stays inside from where it is made: a
	// rename or a link through a link would point it outside. A descending one is fine.
	for _, target := range []string{"../../../../etc/hostname", "/etc/hostname", "sub/../../secret.txt", "sub/../ok.txt"} {
		text, isErr := result(t, g, "symlink", fmt.Sprintf(`{"target":%q,"link":"/data/evil"}`, target))
		if want := "symlink " + target + " /data/evil: Operation not permitted"; !isErr || text != want {
			t.Errorf("symlink to %s: %q isError=%v; want %q", target, text, isErr, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(box, "evil")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an escaping symlink was created on the host: %v", err)
	}
	if text, isErr := result(t, g, "symlink", `{"target":"./ok.txt","link":"/data/inside"}`); isErr || text != "ok" {
		t.Errorf("symlink inside the root: %q isError=%v", text, isErr)
	}
	if text, isErr := result(t, g, "read", `{"path":"/data/inside"}`); isErr || text != "fine" {
		t.Errorf("read through an inside symlink: %q isError=%v", text, isErr)
	}
	for _, tc := range []struct{ path, want string }{
		{"/data/../secret.txt", "open /data/../secret.txt: Bad file number"}, // leaves every preopen
		{"/data/link", "open /data/link: Operation not permitted"},
		{"/etc/hostname", "open /etc/hostname: Bad file number"},
	} {
		text, isErr := result(t, g, "read", fmt.Sprintf(`{"path":%q}`, tc.path))
		if !isErr || strings.Contains(text, "TOP-SECRET") || text != tc.want {
			t.Errorf("read %s: %q isError=%v; want tool error %q", tc.path, text, isErr, tc.want)
		}
	}
	if text, isErr := result(t, g, "read", `{"path":"/data/sub/../ok.txt"}`); isErr || text != "fine" {
		t.Errorf("read /data/sub/../ok.txt: %q isError=%v", text, isErr)
	}
	if text, isErr := result(t, g, "write", `{"path":"/data/new.txt","text":"written"}`); isErr || text != "ok" {
		t.Errorf("write in rw mount: %q", text)
	}
	if b, _ := os.ReadFile(filepath.Join(box, "new.txt")); string(b) != "written" {
		t.Errorf("host file = %q", b)
	}
}

func TestFSReadOnlyAndUngranted(t *testing.T) {
	box := t.TempDir()
	must(t, os.WriteFile(filepath.Join(box, "a.txt"), []byte("A"), 0o644))
	h, _ := newHost(t)
	ro := loadProbe(t, h, runtime.GuestConfig{Name: "ro", Grants: runtime.Grants{FS: []policy.FS{{Guest: "/data", Host: box}}}})
	if text, isErr := result(t, ro, "read", `{"path":"/data/a.txt"}`); isErr || text != "A" {
		t.Errorf("read-only read: %q", text)
	}
	if text, isErr := result(t, ro, "write", `{"path":"/data/b.txt","text":"x"}`); !isErr || text != "open /data/b.txt: Read-only file system" {
		t.Errorf("write to read-only mount: %q isError=%v", text, isErr)
	}
	h2, _ := newHost(t)
	none := loadProbe(t, h2, runtime.GuestConfig{})
	if text, isErr := result(t, none, "read", `{"path":"/data/a.txt"}`); !isErr || text != "open /data/a.txt: Permission denied" { // see TestFSUngrantedSaysSo
		t.Errorf("read without fs grant: %q isError=%v", text, isErr)
	}
}

// exec option injection, PATH and symlink tricks, and a scrubbed environment.
func TestExecOptionInjection(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		testenv.Skip(t, "git not installed")
	}
	if git != "/usr/bin/git" {
		testenv.Skip(t, "git is at %s, the probe requests /usr/bin/git", git)
	}
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first commit"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	out := t.TempDir()
	h, _ := newHost(t)
	g := loadProbe(t, h, runtime.GuestConfig{Grants: runtime.Grants{Exec: []policy.Exec{
		{Name: "git-log", Path: "/usr/bin/git", Args: []string{"log", "--oneline", "--format=%s"}, Dir: repo},
		{Path: "/usr/bin/env", Env: []string{"GREETING=hi"}},
	}}})
	for _, ref := range []string{"--output=" + filepath.Join(out, "pwned.txt"), "-c"} {
		text, isErr := result(t, g, "exec", fmt.Sprintf(`{"program":"git-log","args":[%q]}`, ref))
		want := fmt.Sprintf(`exec: DENIED: exec: argument %q starts with "-"; grant "git-log" allows only positional arguments`, ref)
		if !isErr || text != want {
			t.Errorf("ref %s: %q\nwant %q", ref, text, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "pwned.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pwned.txt exists")
	}
	text, _ := result(t, g, "exec", `{"program":"git-log","args":["main; id"]}`)
	if !strings.HasPrefix(text, "exit=128 stdout=\"\" stderr=\"fatal: ambiguous argument 'main; id': unknown revision") {
		t.Errorf("main; id: %q", text)
	}
	if text, isErr := result(t, g, "exec", `{"program":"git-log","args":["main"]}`); isErr || text != `exit=0 stdout="first commit\n" stderr=""` {
		t.Errorf("main: %q isError=%v", text, isErr)
	}
	if text, isErr := result(t, g, "exec", `{"program":"git-log","args":["ma\u0000in"]}`); !isErr || text != `exec: INVALID: exec: argument "ma\x00in" contains a NUL byte` {
		t.Errorf("NUL argument: %q isError=%v", text, isErr)
	}
	// Not on the allowlist: a PATH lookup, or a symlink to an allowed binary in a writable dir.
	bin := t.TempDir()
	must(t, os.Symlink("/usr/bin/git", filepath.Join(bin, "git")))
	for _, prog := range []string{"git", filepath.Join(bin, "git"), "/usr/bin/id"} {
		text, isErr := result(t, g, "exec", fmt.Sprintf(`{"program":%q}`, prog))
		want := fmt.Sprintf(`exec: DENIED: exec: program %q is not granted to guest "probe"`, prog)
		if !isErr || text != want {
			t.Errorf("program %s: %q\nwant %q", prog, text, want)
		}
	}
	// The child's environment holds only the granted variables.
	t.Setenv("SECRET_TOKEN", "leak")
	if text, isErr := result(t, g, "exec", `{"program":"/usr/bin/env"}`); isErr || text != `exit=0 stdout="GREETING=hi\n" stderr=""` {
		t.Errorf("env: %q isError=%v", text, isErr)
	}
}

func TestExecGrantedButNotRequested(t *testing.T) {
	h, _ := newHost(t)
	g := loadProbe(t, h, runtime.GuestConfig{Grants: runtime.Grants{Exec: []policy.Exec{{Path: "/usr/bin/id"}}}})
	text, _ := result(t, g, "exec", `{"program":"/usr/bin/id"}`)
	if want := `exec: DENIED: exec: program "/usr/bin/id" is granted but not requested by guest "probe" (its manifest must list /usr/bin/id)`; text != want {
		t.Errorf("got %q\nwant %q", text, want)
	}
}

func TestExecTimeout(t *testing.T) {
	h, _ := newHost(t)
	g := loadProbe(t, h, runtime.GuestConfig{Grants: runtime.Grants{Exec: []policy.Exec{
		{Name: "sleep", Path: "/usr/bin/env", Args: []string{"/bin/sleep", "5"}, Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 200 * time.Millisecond},
	}}})
	start := time.Now()
	text, isErr := result(t, g, "exec", `{"program":"sleep"}`)
	if want := `exec: TIMEOUT: exec: sleep ran past 200ms and was killed`; !isErr || text != want {
		t.Errorf("got %q, want %q", text, want)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("took %v", took)
	}
}

// env, clock and random: absent by default, present when granted.
func TestWASIGrants(t *testing.T) {
	t.Setenv("GREETING", "hello")
	t.Setenv("SECRET_TOKEN", "leak")
	h, _ := newHost(t)
	bare := loadProbe(t, h, runtime.GuestConfig{Name: "bare"})
	if text, _ := result(t, bare, "env", `{}`); text != "" {
		t.Errorf("env without grant: %q", text)
	}
	if text, _ := result(t, bare, "clock", `{}`); text != "2022" {
		t.Errorf("clock without grant: %q, want the deterministic 2022", text)
	}
	r1, _ := result(t, bare, "random", `{}`)

	h2, _ := newHost(t)
	bare2 := loadProbe(t, h2, runtime.GuestConfig{Name: "bare"})
	if r2, _ := result(t, bare2, "random", `{}`); r2 != r1 {
		t.Errorf("deterministic random differs between instances: %s vs %s", r1, r2)
	}

	h3, _ := newHost(t)
	full := loadProbe(t, h3, runtime.GuestConfig{Grants: runtime.Grants{Env: []string{"GREETING", "HOME=/home/guest", "UNREQUESTED=x"}, Clock: true, Random: true}})
	if text, _ := result(t, full, "env", `{}`); text != "GREETING=hello\nHOME=/home/guest" {
		t.Errorf("env with grant: %q", text)
	}
	if text, _ := result(t, full, "clock", `{}`); text != fmt.Sprint(time.Now().Year()) {
		t.Errorf("clock with grant: %q", text)
	}
	if text, _ := result(t, full, "random", `{}`); text == r1 {
		t.Errorf("granted random equals the deterministic value %s", text)
	}
}

func TestSHA256Pin(t *testing.T) {
	h, _ := newHost(t)
	_, err := h.Load(context.Background(), probeWasm(t), &runtime.GuestConfig{Source: "probe.wasm", SHA256: strings.Repeat("0", 64)})
	if err == nil || !strings.HasPrefix(err.Error(), "probe.wasm: sha256 is ") || !strings.HasSuffix(err.Error(), ", config pins "+strings.Repeat("0", 64)) {
		t.Errorf("err = %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
