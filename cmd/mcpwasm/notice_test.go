package main

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// A load still running after compileNoticeAfter says what it compiles and that later starts
// are fast (a newcomer's first serve sat silent for 10-20 s); a quick load says nothing.
func TestCompileNotice(t *testing.T) {
	defer func(d time.Duration) { compileNoticeAfter = d }(compileNoticeAfter)
	want := `level=INFO msg="` + compileNoticeMsg + `" source=` + fixturePath + "\n"
	for _, tt := range []struct {
		after  time.Duration
		notice bool
	}{
		{0, true},          // the load takes "longer" than 0: the notice, before the load
		{time.Hour, false}, // generous: loading the small fixture takes milliseconds
	} {
		compileNoticeAfter = tt.after
		_, errOut, code := runCLI("serve", "--cache-dir", t.TempDir(), fixturePath)
		if code != ExitOK || strings.Contains(errOut, want) != tt.notice {
			t.Errorf("after %v: exit %d, stderr %q; want the notice %v", tt.after, code, errOut, tt.notice)
		}
	}
}

// A client command shows the warnings, errors and compile notice of the server it spawns,
// prefixed "server: ", and keeps the rest of its log to itself.
func TestServerNotices(t *testing.T) {
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	logger.Info("serving", "transport", "stdio")
	logger.Info(compileNoticeMsg, "source", "bundled:calc")
	logger.Warn("requested capabilities not granted", "guest", "notes", "missing", `fs "/notes"`)
	logger.Error("boom")
	logger.Debug("hidden")
	var out bytes.Buffer
	n := &serverNotices{out: &out}
	for _, c := range log.Bytes() { // byte by byte: lines split across writes
		n.Write([]byte{c})
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `msg="compiling a guest to machine code`) ||
		!strings.Contains(lines[1], `level=WARN msg="requested capabilities not granted" guest=notes missing="fs \"/notes\""`) ||
		!strings.Contains(lines[2], `level=ERROR msg=boom`) {
		t.Fatalf("passed on:\n%s", out.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "server: time=") {
			t.Errorf("line %q lacks the server: prefix", l)
		}
	}
}

// `mcpwasm tools -- mcpwasm serve GUEST` shows that the guest asked for a capability it was
// not granted (the warning was in the server's hidden log only); a server with nothing to
// warn about leaves the client's stderr empty.
func TestClientShowsServerWarnings(t *testing.T) {
	fetch := fetchWasm(t)
	for _, tt := range []struct {
		guest, want string
	}{
		{fetch, `level=WARN msg="requested capabilities not granted" guest=fetch missing=`},
		{fixturePath, ""},
	} {
		cmd := exec.CommandContext(testContext(t), binPath, "tools", "--", binPath, "serve", "--cache-dir", cacheDir, tt.guest)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		if tt.want == "" && dropCompileNotices(stderr.String()) != "" || tt.want != "" && !strings.Contains(stderr.String(), "server: time=") || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%s: stderr %q, want it to contain %q", tt.guest, stderr.String(), tt.want)
		}
	}
}

// serve on a terminal says that it speaks MCP on stdin and how to quit; on /dev/null or a
// pipe it says nothing of it.
func TestServeTerminalHint(t *testing.T) {
	pty, tty := openPTY(t)
	var buf bytes.Buffer
	hintIfTerminal(tty, &buf)
	if buf.String() != stdinHint+"\n" {
		t.Errorf("on a terminal: %q", buf.String())
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, in := range []*os.File{null, r} {
		buf.Reset()
		hintIfTerminal(in, &buf)
		if buf.Len() != 0 {
			t.Errorf("on %s: %q", in.Name(), buf.String())
		}
	}
	// The real thing: serve with the terminal as stdin says it, and Ctrl-D ends it.
	cmd := exec.CommandContext(testContext(t), binPath, "serve", "--cache-dir", cacheDir, fixturePath)
	var stderr lockedBuffer
	cmd.Stdin, cmd.Stderr = tty, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, &stderr, "the hint", func(s string) bool { return strings.Contains(s, stdinHint) })
	if _, err := pty.Write([]byte{4}); err != nil { // Ctrl-D: end of input
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
}

// dropCompileNotices removes the compile notice lines from a client's stderr: a load shows it
// when it takes over compileNoticeAfter, which a test cannot rule out on a loaded machine.
func dropCompileNotices(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.Contains(l, compileNoticeMsg) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// noticeWriter holds a write until finish is closed, and says when one began.
type noticeWriter struct {
	began, finish chan struct{}
	once          sync.Once
	mu            sync.Mutex
	buf           bytes.Buffer
}

func (w *noticeWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.began) })
	<-w.finish
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// A compile notice that has begun when the load ends is finished before loadNoticed returns:
// the caller reads (or closes) what the logger writes to as soon as it does. The race
// detector caught runCLI reading serve's stderr buffer while the notice still wrote to it.
// (Fixed code never returns early, so this cannot fail spuriously; the 100 ms only bounds
// how long it looks for an early return.)
func TestCompileNoticeFinishedBeforeReturn(t *testing.T) {
	defer func(d time.Duration) { compileNoticeAfter = d }(compileNoticeAfter)
	compileNoticeAfter = time.Nanosecond
	w := &noticeWriter{began: make(chan struct{}), finish: make(chan struct{})}
	logger := slog.New(slog.NewTextHandler(w, nil))
	loaded, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		loadNoticed(logger, "x.wasm", func() (*runtime.Guest, error) {
			<-w.began // the notice is being written
			close(loaded)
			return nil, nil
		})
	}()
	<-loaded
	select {
	case <-done:
		t.Fatal("loadNoticed returned while its notice was still being written")
	case <-time.After(100 * time.Millisecond):
	}
	close(w.finish)
	<-done
	w.mu.Lock()
	defer w.mu.Unlock()
	if !strings.Contains(w.buf.String(), compileNoticeMsg) {
		t.Errorf("notice = %q", w.buf.String())
	}
}

// A load that goes on after its notice logs compileStillMsg every compileStillEvery, so a
// client waiting for this server's answer to server/discover sees it alive on stderr (upstream
// restarts its deadline at each write) instead of stopping it and starting a second server
// that compiles everything again; nothing is logged after the load ends.
func TestCompileStillLogged(t *testing.T) {
	defer func(a, e time.Duration) { compileNoticeAfter, compileStillEvery = a, e }(compileNoticeAfter, compileStillEvery)
	compileNoticeAfter, compileStillEvery = time.Nanosecond, time.Millisecond
	w := &lineCounter{want: 3, reached: make(chan struct{})}
	logger := slog.New(slog.NewTextHandler(w, nil))
	loadNoticed(logger, "x.wasm", func() (*runtime.Guest, error) {
		<-w.reached // the notice and two "still" lines
		return nil, nil
	})
	w.mu.Lock()
	got := w.buf.String()
	w.mu.Unlock()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], compileNoticeMsg) {
		t.Fatalf("log:\n%s", got)
	}
	for _, l := range lines[1:] {
		if !strings.Contains(l, `level=INFO msg="still compiling" source=x.wasm seconds=`) {
			t.Errorf("line %q, want the still-compiling line", l)
		}
	}
	time.Sleep(10 * compileStillEvery) // none may follow the return (the ticker has stopped)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.String() != got {
		t.Errorf("logged after the load returned:\n%s", strings.TrimPrefix(w.buf.String(), got))
	}
}

// lineCounter is a log writer that closes reached once want lines are written.
type lineCounter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	want    int
	reached chan struct{}
}

func (w *lineCounter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.want--; w.want == 0 {
		close(w.reached)
	}
	return len(p), nil
}
