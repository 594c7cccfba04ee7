package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// The tests drive the real binary over pipes, as an MCP client would, so they also prove
// that stdout carries nothing but MCP messages.

var (
	binPath     string // the mcpwasm binary built for this test run
	cacheDir    string // compilation cache shared by the test processes
	fixturePath string // testdata/wat/fixture.wasm on disk
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpwasm-cmd-")
	if err != nil {
		panic(err)
	}
	binPath = filepath.Join(dir, "mcpwasm")
	cacheDir = filepath.Join(dir, "cache")
	fixturePath = filepath.Join(dir, "fixture.wasm")
	if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building mcpwasm: %v\n%s", err, out)
		os.Exit(1)
	}
	if err := os.WriteFile(fixturePath, wat.Fixture, 0o644); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
const initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// lockedBuffer is a concurrency-safe buffer that tells waiters when it was written to.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	notify chan struct{} // closed (and replaced) by every Write, and by end
	ended  string        // why no more will be written ("" while the writer may still write)
}

// end records that the buffer's writer is gone (its process exited: why), waking waiters.
func (l *lockedBuffer) end(why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended = why
	if l.notify != nil {
		close(l.notify)
		l.notify = nil
	}
}

// endedWhy is end's reason, or "" while the writer may still write.
func (l *lockedBuffer) endedWhy() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.notify != nil {
		close(l.notify)
		l.notify = nil
	}
	return l.b.Write(p)
}

// changed returns a channel closed by the next Write.
func (l *lockedBuffer) changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.notify == nil {
		l.notify = make(chan struct{})
	}
	return l.notify
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// server is a running `mcpwasm serve` process.
type server struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *lockedBuffer
	exited chan struct{}
}

func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"serve", "--cache-dir", cacheDir}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 128), stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				s.lines <- line
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		s.stderr.end(fmt.Sprintf("the server exited (%v)", err))
		close(s.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.exited
		if t.Failed() {
			t.Logf("server stderr:\n%s", s.stderr)
		}
	})
	return s
}

func (s *server) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.stdin, l+"\n"); err != nil {
			s.t.Fatalf("writing to server: %v", err)
		}
	}
}

// recv returns the next stdout line, which must end in exactly one "\n".
func (s *server) recv() string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("server closed stdout; stderr:\n%s", s.stderr)
		}
		if !strings.HasSuffix(l, "\n") || strings.HasSuffix(l, "\r\n") {
			s.t.Fatalf("line not terminated by a bare \\n: %q", l)
		}
		return strings.TrimSuffix(l, "\n")
	case <-time.After(waitLimit(s.t)):
		s.t.Fatalf("no reply before the test deadline; stderr:\n%s", s.stderr)
	}
	return ""
}

// recvReply is recv skipping notifications/*/list_changed: the SDK sends a list change
// after a short delay that coalesces changes, so a reload or a plugin's re-listed tools may
// announce themselves again after the reply the test waits for (seen under load).
func (s *server) recvReply() string {
	s.t.Helper()
	for {
		l := s.recv()
		if !(strings.Contains(l, `"method":"notifications/`) && strings.Contains(l, `/list_changed"`)) {
			return l
		}
	}
}

// recvReplies reads n lines that answer concurrent requests, which may come in any order,
// and returns them keyed by their JSON-RPC id; a line without a numeric id fails the test.
func (s *server) recvReplies(n int) map[int]string {
	s.t.Helper()
	out := make(map[int]string, n)
	for range n {
		l := s.recv()
		var m struct{ ID *int }
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.ID == nil {
			s.t.Fatalf("not a reply with a numeric id: %s", l)
		}
		out[*m.ID] = l
	}
	return out
}

func (s *server) initialize() {
	s.t.Helper()
	s.send(initLine, initializedLine)
	if l := s.recv(); !strings.Contains(l, `"id":1,"result"`) {
		s.t.Fatalf("initialize: %s", l)
	}
}

// closeAndWait closes stdin, waits for the server to exit and returns its exit code and how
// long the exit took. The exit must come before limit, a bound that tells the behaviour under
// test from its failure (e.g. a call's timeout), not a guess at the machine's speed; the wait
// itself lasts until the test's deadline, so a slow exit is reported with its duration.
func (s *server) closeAndWait(limit time.Duration) (int, time.Duration) {
	s.t.Helper()
	start := time.Now()
	s.stdin.Close()
	select {
	case <-s.exited:
	case <-time.After(waitLimit(s.t)):
		s.t.Fatalf("server still running %v after stdin closed; stderr:\n%s", time.Since(start), s.stderr)
	}
	took := time.Since(start)
	if took > limit {
		s.t.Errorf("server exited %v after stdin closed, want under %v", took, limit)
	}
	return s.cmd.ProcessState.ExitCode(), took
}

// rest drains stdout after exit.
func (s *server) rest() []string {
	var out []string
	for l := range s.lines {
		out = append(out, strings.TrimSuffix(l, "\n"))
	}
	return out
}

func callLine(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

// toolResult decodes a tools/call reply into (isError, first text).
func toolResult(t *testing.T, line string) (bool, string) {
	t.Helper()
	var r struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.Error != nil || len(r.Result.Content) == 0 {
		t.Fatalf("not a tool result: %s", line)
	}
	return r.Result.IsError, r.Result.Content[0].Text
}

// The headline: three requests piped in, exactly three JSON-RPC lines out, the last
// holding 98.
func TestServeCalcPipe(t *testing.T) {
	cmd := exec.Command(binPath, "serve", "--cache-dir", cacheDir)
	cmd.Stdin = strings.NewReader(strings.Join([]string{initLine, initializedLine,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		callLine(3, "calc", `{"expression":"2*(3+4)^2"}`)}, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d stdout lines, want 3:\n%s", len(lines), stdout.String())
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("invalid JSON line: %s", l)
		}
	}
	// JSON-RPC lets replies come in any order (the SDK runs calls concurrently): find each
	// by its id.
	byID := map[int]string{}
	for _, l := range lines {
		var m struct{ ID int }
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		byID[m.ID] = l
	}
	want := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"value\":98}"}],"structuredContent":{"value":98}}}`
	if diff := cmp.Diff(want, byID[3]); diff != "" {
		t.Errorf("calc reply (-want +got):\n%s", diff)
	}
	var list struct {
		Result struct{ Tools []struct{ Name string } } `json:"result"`
	}
	if err := json.Unmarshal([]byte(byID[2]), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Result.Tools {
		names = append(names, tl.Name)
	}
	wantNames := []string{"base64_decode", "base64_encode", "calc", "count", "echo", "json_query", "regex_match", "sha256"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("tools/list names (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr.String(), "msg=serving transport=stdio guests=calc,text tools=8") {
		t.Errorf("startup line missing from stderr:\n%s", stderr.String())
	}
}

// a 70,000- and a 1,200,000-byte string echo back whole; ping still answers.
func TestServeBigMessages(t *testing.T) {
	s := startServer(t)
	s.initialize()
	for i, n := range []int{70_000, 1_200_000} {
		text := strings.Repeat("a", n)
		s.send(callLine(2+i, "echo", fmt.Sprintf(`{"text":%q}`, text)))
		isErr, got := toolResult(t, s.recv())
		if isErr || len(got) != n || got != text {
			t.Fatalf("echo of %d bytes: isError=%v, got %d bytes", n, isErr, len(got))
		}
	}
	s.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":5,"result":{}}`, s.recv()); diff != "" {
		t.Error(diff)
	}
}

// a line over --max-line-bytes is rejected alone; the server keeps reading.
func TestServeLineLimit(t *testing.T) {
	s := startServer(t, "--max-line-bytes", "1000")
	s.initialize()
	s.send(callLine(2, "echo", fmt.Sprintf(`{"text":%q}`, strings.Repeat("b", 2000))))
	l := s.recv()
	if !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":null,"error":{"code":-32`) {
		t.Errorf("over-long line: got %s", l)
	}
	s.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":5,"result":{}}`, s.recv()); diff != "" {
		t.Error(diff)
	}
}

// arguments absent, null or {} succeed on a tool without required properties; an array
// is -32602; a missing name is -32602.
func TestServeArgumentsAbsentOrNull(t *testing.T) {
	s := startServer(t, fixturePath)
	s.initialize()
	for i, params := range []string{`{"name":"echo"}`, `{"name":"echo","arguments":null}`, `{"name":"echo","arguments":{}}`} {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, 10+i, params))
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"{}"}],"structuredContent":{}}}`, 10+i)
		if diff := cmp.Diff(want, s.recv()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", params, diff)
		}
	}
	s.send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`)
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":20,"error":{"code":-32602,"message":"invalid params: arguments must be an object, got an array"}}`, s.recv()); diff != "" {
		t.Errorf("array arguments (-want +got):\n%s", diff)
	}
	s.send(`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"arguments":{}}}`)
	if l := s.recv(); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":21,"error":{"code":-32602,`) {
		t.Errorf("missing name: %s", l)
	}
}

// bad arguments are a tool error naming the field, and the guest is not entered.
func TestServeBadArguments(t *testing.T) {
	s := startServer(t, "--log-level", "debug", fixturePath)
	s.initialize()
	for i, tc := range []struct{ args, want string }{
		{`{"a":1,"b":"two"}`, `invalid arguments: validating /properties/b: type: two has type "string", want "integer"`},
		{`{"a":1,"b":2,"x":true}`, `invalid arguments: unexpected additional properties ["x"]`},
		{`{"a":1}`, `invalid arguments: required: missing properties: ["b"]`},
	} {
		s.send(callLine(2+i, "add", tc.args))
		isErr, text := toolResult(t, s.recv())
		if !isErr || text != tc.want {
			t.Errorf("%s: isError=%v text=%q; want true, %q", tc.args, isErr, text, tc.want)
		}
	}
	s.send(callLine(9, "nope", `{}`))
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"unknown tool \"nope\""}}`, s.recv()); diff != "" {
		t.Errorf("unknown tool (-want +got):\n%s", diff)
	}
	if strings.Contains(s.stderr.String(), "entered") {
		t.Errorf("guest entered for invalid arguments:\n%s", s.stderr)
	}
	s.send(callLine(10, "add", `{"a":1,"b":2}`))
	if _, text := toolResult(t, s.recv()); text != `{"a":1,"b":2}` {
		t.Errorf("valid add: %s", text)
	}
}

// stdin at EOF from the start → exit 0 (the time it took is logged).
func TestServeEOFAtStart(t *testing.T) {
	s := startServer(t, fixturePath)
	// Wait until the server is up, so the measured time is EOF → exit.
	s.initialize()
	code, took := s.closeAndWait(5 * time.Minute)
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	t.Logf("exited %v after EOF", took)
}

// a long call in flight when stdin closes is cancelled after the drain grace; exit 0 well
// before the call's own 10-minute timeout. (Running or still being dispatched, the call is
// in flight once its line is read, so there is nothing to wait for before closing stdin.)
func TestServeEOFCancelsInFlight(t *testing.T) {
	s := startServer(t, "--timeout", "10m", fixturePath)
	s.initialize()
	s.send(callLine(2, "spin", `{}`))
	code, took := s.closeAndWait(5 * time.Minute)
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	t.Logf("exited %v after EOF with a call in flight", took)
}

// SIGTERM with a call running ends the input as EOF does: after the grace the call is stopped
// and answered (a newcomer saw it dropped unanswered), the process exits 0, and a normal
// shutdown logs no error.
func TestServeSIGTERMAnswersInFlight(t *testing.T) {
	s := startServer(t, "--timeout", "10m", fixturePath)
	s.initialize()
	// A signal ends the input where the server has read it: the ping's answer shows the spin
	// call's line was read before it.
	s.send(callLine(2, "spin", `{}`), `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if l := s.recv(); l != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Fatalf("ping: %s", l)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	isErr, text := toolResult(t, s.recv())
	if want := `guest "fixture" tool "spin": closed`; !isErr || text != want {
		t.Errorf("the call running at SIGTERM: isError=%v %q; want %q", isErr, text, want)
	}
	select {
	case <-s.exited:
	case <-time.After(waitLimit(t)):
		t.Fatalf("still running after SIGTERM; stderr:\n%s", s.stderr)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if strings.Contains(s.stderr.String(), "level=ERROR") {
		t.Errorf("a normal shutdown logged an error:\n%s", s.stderr)
	}
}

// A flag after the module argument is applied, not opened as a file: `serve x.wasm --timeout
// 300ms` serves x.wasm with a 300 ms time limit. (--lazy=false: the code is compiled before
// serving, so the limit meets only the call, never a background compile on a busy machine.)
func TestServeFlagAfterFile(t *testing.T) {
	s := startServer(t, fixturePath, "--timeout", "300ms", "--lazy=false")
	s.initialize()
	s.send(callLine(2, "spin", `{}`))
	if isErr, text := toolResult(t, s.recv()); !isErr || text != `guest "fixture" tool "spin": time limit exceeded (300ms)` {
		t.Errorf("spin: isError=%v, %q; want the 300ms time limit", isErr, text)
	}
}

// runaway guests hit the time limit, ping is answered meanwhile, the next call works.
//
// --lazy=false: the module is compiled before initialize is answered, so the 500ms limit
// meets the guest's loops and not a background compile on a busy machine (the limit covers
// the whole call, waiting for code included).
func TestRunawayGuestsOverMCP(t *testing.T) {
	s := startServer(t, "--timeout", "500ms", "--lazy=false", fixturePath)
	s.initialize()
	for i, tool := range []string{"spin", "tree"} {
		id := 10 + 2*i
		start := time.Now()
		s.send(callLine(id, tool, `{}`), fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id+1))
		// The ping is answered while the guest runs; the order of the two replies is left to
		// the scheduler.
		replies := s.recvReplies(2)
		if diff := cmp.Diff(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id+1), replies[id+1]); diff != "" {
			t.Errorf("ping during %s (-want +got):\n%s", tool, diff)
		}
		isErr, text := toolResult(t, replies[id])
		t.Logf("%s answered after %v", tool, time.Since(start))
		if want := fmt.Sprintf(`guest "fixture" tool %q: time limit exceeded (500ms)`, tool); !isErr || text != want {
			t.Errorf("%s: isError=%v %q; want %q", tool, isErr, text, want)
		}
	}
	s.send(callLine(20, "echo", `{"ok":true}`))
	if _, text := toolResult(t, s.recv()); text != `{"ok":true}` {
		t.Errorf("call after timeouts: %s", text)
	}
}

// at 16 MiB, memory.grow fails at the limit; an out-of-memory trap is a tool error
// naming the limit; the next call works.
func TestMemoryLimitOverMCP(t *testing.T) {
	s := startServer(t, "--memory-mb", "16", fixturePath)
	s.initialize()
	s.send(callLine(2, "grow", `{}`))
	if _, text := toolResult(t, s.recv()); text != "pages=256" {
		t.Errorf("grow: %s", text)
	}
	s.send(callLine(3, "oom", `{}`))
	isErr, text := toolResult(t, s.recv())
	if want := `guest "fixture" tool "oom": memory limit reached (16 MiB): wasm error: unreachable`; !isErr || text != want {
		t.Errorf("oom: isError=%v %q; want %q", isErr, text, want)
	}
	s.send(callLine(4, "echo", `{}`))
	if _, text := toolResult(t, s.recv()); text != `{}` {
		t.Errorf("after oom: %s", text)
	}
}

// 32 calls sent without waiting are all answered.
func TestServeManyInFlight(t *testing.T) {
	s := startServer(t, fixturePath)
	s.initialize()
	for i := range 32 {
		s.send(callLine(100+i, "echo", fmt.Sprintf(`{"i":%d}`, i)))
	}
	seen := map[string]bool{}
	for range 32 {
		var r struct {
			ID     int `json:"id"`
			Result struct {
				Structured map[string]int `json:"structuredContent"`
			} `json:"result"`
		}
		l := s.recv()
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Result.Structured["i"] != r.ID-100 {
			t.Errorf("reply %s does not match its request", l)
		}
		seen[fmt.Sprint(r.ID)] = true
	}
	if len(seen) != 32 {
		t.Errorf("%d distinct replies, want 32", len(seen))
	}
}

// guest stdout/stderr never reach the server's stdout; guest stdin is empty and does not
// swallow MCP input.
func TestServeGuestStdio(t *testing.T) {
	s := startServer(t, fixturePath)
	s.initialize()
	s.send(callLine(2, "print", `{}`))
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`, s.recv()); diff != "" {
		t.Errorf("print (-want +got):\n%s", diff)
	}
	s.send(callLine(3, "read", `{}`), `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	// The two requests run concurrently: their replies may come in either order.
	replies := s.recvReplies(2)
	if _, text := toolResult(t, replies[3]); text != "read=0" {
		t.Errorf("read: %s", text)
	}
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":4,"result":{}}`, replies[4]); diff != "" {
		t.Errorf("ping after read (-want +got):\n%s", diff)
	}
	code, _ := s.closeAndWait(5 * time.Minute)
	if rest := s.rest(); code != 0 || len(rest) != 0 {
		t.Errorf("exit %d, extra stdout %q", code, rest)
	}
	if !strings.Contains(s.stderr.String(), `text="to-stdout\n"`) {
		t.Errorf("guest stdout not logged on stderr:\n%s", s.stderr)
	}
}

// A cancelled call stops its guest: with one instance, the next call can only run once the
// cancelled guest has stopped, and the call's own timeout (10 minutes) is beyond the test's
// patience, so an answer at all proves the cancellation stopped it. The measured delay is
// logged. The cancellation may arrive before the guest starts: the request is registered when
// its line is read, before the next line, so there is nothing to wait for.
func TestCancelStopsGuestPromptly(t *testing.T) {
	s := startServer(t, "--instances", "1", "--timeout", "10m", fixturePath)
	s.initialize()
	s.send(callLine(2, "spin", `{}`))
	start := time.Now()
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, callLine(3, "echo", `{}`))
	l := s.recv()
	took := time.Since(start)
	if !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":3,"result"`) {
		t.Fatalf("first reply after cancel: %s (the cancelled request must get none)", l)
	}
	t.Logf("guest stopped and next call answered %v after notifications/cancelled", took)
}
