package guests_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/guests"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// This file runs JavaScript guests (the javascript kind: quickjs-wasi with the script in a
// custom section) through the runtime: the TypeScript example guests/typescript and the test
// guest guests/typescript/testdata/limits.js, both built with the example's
// mcpwasm/build.mjs (npm ci --prefix guests/typescript installs what it needs; .ci/run does).

var jsBuilt sync.Map // entry → module

// buildJS builds entry (relative to guests/typescript) into a guest module, once per test
// binary.
func buildJS(tb testing.TB, entry string) []byte {
	tb.Helper()
	// The build runs in a child process: read its inputs here, so that go test's result
	// cache (keyed by the files a test opens) never replays a PASS for edited sources.
	guests.ReadTrees(tb, "typescript/mcpwasm", "typescript/testdata")
	for _, f := range []string{"typescript/server.ts", "typescript/package.json", "typescript/package-lock.json"} {
		if _, err := os.ReadFile(f); err != nil {
			tb.Fatal(err)
		}
	}
	if b, ok := jsBuilt.Load(entry); ok {
		return b.([]byte)
	}
	out, b, err := buildJSResult(tb, entry) // npm_test.go
	if err != nil {
		tb.Fatalf("build %s: %v\n%s", entry, err, out)
	}
	jsBuilt.Store(entry, b)
	return b
}

// The TypeScript example loads as a javascript guest and serves its tools: structured
// output, arguments checked against the JSON Schema derived from its zod shapes.
func TestTypeScriptGuest(t *testing.T) {
	h := newHost(t)
	g := load(t, h, buildJS(t, "server.ts"), nil)
	if g.Kind() != "javascript" || g.Name() != "typescript" {
		t.Fatalf("kind %q, name %q", g.Kind(), g.Name())
	}
	if got, want := call(t, g, "greet", `{"name":"Ada","times":2}`), `{"content":[{"type":"text","text":"hello, Ada hello, Ada"}],"structuredContent":{"greeting":"hello, Ada hello, Ada"}}`; got != want {
		t.Errorf("greet: %s, want %s", got, want)
	}
	_, err := g.Call(context.Background(), "greet", []byte(`{"name":7}`))
	if !errors.Is(err, runtime.ErrInvalidArguments) || !strings.Contains(err.Error(), "/properties/name") {
		t.Errorf("greet name 7: %v, want invalid arguments naming /properties/name", err)
	}
	out, err := g.ReadResource(context.Background(), "note://42")
	if want := `{"contents":[{"uri":"note://42","text":"note 42"}]}`; err != nil || string(out) != want {
		t.Errorf("read note://42: %s, %v; want %s", out, err, want)
	}
	out, err = g.GetPrompt(context.Background(), "review", []byte(`{"code":"x"}`))
	if want := `{"messages":[{"role":"user","content":{"type":"text","text":"Please review:\n\nx"}}]}`; err != nil || string(out) != want {
		t.Errorf("prompt review: %s, %v; want %s", out, err, want)
	}
}

// A runaway loop ends at the time limit and a memory bomb at the memory limit; each loses
// its instance, and the next call works. A thrown error is a tool error; 1 MiB of Unicode
// arguments round-trips exactly.
func TestJavaScriptLimits(t *testing.T) {
	h := newHost(t)
	g := load(t, h, buildJS(t, "testdata/limits.js"), &runtime.GuestConfig{Limits: runtime.Limits{Timeout: 2 * time.Second, MemoryBytes: 64 << 20, OutputBytes: 4 << 20}})
	echo := func() {
		t.Helper()
		if got, want := call(t, g, "echo", `{"text":"still here"}`), fmt.Sprintf(textResult, `"still here"`); got != want {
			t.Fatalf("echo: %s, want %s", got, want)
		}
	}
	echo()
	if _, err := g.Call(context.Background(), "spin", nil); !errors.Is(err, runtime.ErrTimeLimit) {
		t.Fatalf("spin: %v, want ErrTimeLimit", err)
	}
	echo()
	if _, err := g.Call(context.Background(), "hog", nil); !errors.Is(err, runtime.ErrMemoryLimit) || !strings.Contains(err.Error(), "the script's heap is over 56 MiB") {
		t.Fatalf("hog: %v, want ErrMemoryLimit at the engine's heap limit (7/8 of 64 MiB)", err)
	}
	echo()
	if got, want := call(t, g, "boom", `{}`), fmt.Sprintf(errorResult, `"boom: the handler threw"`); got != want {
		t.Errorf("boom: %s, want %s", got, want)
	}
	text := strings.Repeat("añ€😀\"\\\n\u2028", 1<<20/16)
	args, _ := json.Marshal(map[string]string{"text": text})
	out, err := g.Call(context.Background(), "echo", args)
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Content []struct{ Text string } }
	if err := json.Unmarshal(out, &res); err != nil || len(res.Content) != 1 || res.Content[0].Text != text {
		t.Fatalf("1 MiB echo came back changed (%v)", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Call(ctx, "spin", nil); !errors.Is(err, runtime.ErrCancelled) {
		t.Fatalf("spin cancelled: %v, want ErrCancelled", err)
	}
	echo()
}

// fetch reaches the network only through the net grant: refused without one, allowed to
// the granted host, refused for another; process.env holds only granted variables.
func TestJavaScriptGrants(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "pong %s", r.URL.Path)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	module := buildJS(t, "testdata/limits.js")
	h := newHost(t)
	t.Setenv("MCPWASM_JS_TEST", "granted value")

	bare := load(t, h, module, &runtime.GuestConfig{Name: "bare"})
	if got, want := call(t, bare, "fetch", `{"url":"`+srv.URL+`/x"}`), fmt.Sprintf(errorResult, `"fetch `+srv.URL+`/x: net: no hosts are granted to guest \"bare\""`); got != want {
		t.Errorf("fetch without a grant: %s, want %s", got, want)
	}
	if got, want := call(t, bare, "env", `{"name":"MCPWASM_JS_TEST"}`), fmt.Sprintf(textResult, `"undefined"`); got != want {
		t.Errorf("env without a grant: %s, want %s", got, want)
	}

	granted := load(t, h, module, &runtime.GuestConfig{Name: "granted", Grants: runtime.Grants{Net: []string{u.Host}, Env: []string{"MCPWASM_JS_TEST"}}})
	if got, want := call(t, granted, "fetch", `{"url":"`+srv.URL+`/x"}`), fmt.Sprintf(textResult, `"200 pong /x"`); got != want {
		t.Errorf("fetch with a grant: %s, want %s", got, want)
	}
	other := "http://localhost:" + u.Port() + "/y"
	if got := call(t, granted, "fetch", `{"url":"`+other+`"}`); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, `not granted`) {
		t.Errorf("fetch of another host: %s, want a tool error saying it is not granted", got)
	}
	if got, want := call(t, granted, "env", `{"name":"MCPWASM_JS_TEST"}`), fmt.Sprintf(textResult, `"granted value"`); got != want {
		t.Errorf("env with a grant: %s, want %s", got, want)
	}
}

// A guest whose build read its net request off a fetch call reaches whatever host the
// operator grants, an IP literal with a port too: the inferred request is "*:*" (any host,
// any port), not "*" (any name on the scheme's default port), which left a granted
// 127.0.0.1:PORT "granted but not requested".
func TestJavaScriptInferredNetCoversAnyGrant(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "pong %s", r.URL.Path)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	h := newHost(t)
	g := load(t, h, buildJS(t, "server.ts"), &runtime.GuestConfig{Name: "mysrv", Grants: runtime.Grants{Net: []string{u.Host}}})
	if got, want := call(t, g, "fetch_text", `{"url":"`+srv.URL+`/x"}`), `{"content":[{"type":"text","text":"200 pong /x"}],"isError":false}`; got != want {
		t.Errorf("fetch of the granted %s: %s, want %s", u.Host, got, want)
	}
}

// A guest whose file uses setTimeout and Date.now requests the clock (read off the source by
// the build), so the operator's clock grant makes its timers really wait: a 30 ms timeout
// lasted 0 ms by Date.now when the build did not request it. Without the grant the clock
// stays deterministic.
func TestJavaScriptTimersRequestClock(t *testing.T) {
	module := buildJS(t, "testdata/timers.js")
	h := newHost(t)
	g := load(t, h, module, &runtime.GuestConfig{Name: "timers", Grants: runtime.Grants{Clock: true}})
	if got, want := call(t, g, "wait", `{"ms":30}`), fmt.Sprintf(textResult, `"waited"`); got != want {
		t.Errorf("wait 30 ms with the clock granted: %s, want %s", got, want)
	}
	bare := load(t, h, module, &runtime.GuestConfig{Name: "bare"})
	if got, want := call(t, bare, "wait", `{"ms":30}`), fmt.Sprintf(textResult, `"waited=1ms"`); got != want {
		t.Errorf("wait 30 ms without the clock: %s, want %s", got, want)
	}
}

// clientFunc is a peer.Client answering with a function.
type clientFunc func(ctx context.Context, kind string, params []byte) ([]byte, error)

func (f clientFunc) Request(ctx context.Context, kind string, params []byte) ([]byte, error) {
	return f(ctx, kind, params)
}

// The TS SDK 1.32.2's own toolWithSampleServer example, served unchanged (its relative SDK
// imports pointed at the package name): summarize reaches the client's sampling handler only
// with the sampling grant, which the build read off the file (createMessage → sampling).
func TestSDKSamplingExample(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "testdata", "interop", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "toolWithSampleServer.js"))
	if err != nil {
		testenv.Skip(t, "the TypeScript SDK is not installed (run: npm ci --prefix testdata/interop): %v", err)
	}
	entry := filepath.Join(t.TempDir(), "toolWithSampleServer.js")
	if err := os.WriteFile(entry, []byte(strings.ReplaceAll(string(src), "'../../server/", "'@modelcontextprotocol/sdk/server/")), 0o644); err != nil {
		t.Fatal(err)
	}
	module := buildJS(t, entry)
	var asked []string
	ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{Client: clientFunc(func(_ context.Context, kind string, params []byte) ([]byte, error) {
		asked = append(asked, kind+" "+string(params))
		return []byte(`{"role":"assistant","content":{"type":"text","text":"a summary"},"model":"m","stopReason":"endTurn"}`), nil
	})})
	h := newHost(t)

	bare := load(t, h, module, &runtime.GuestConfig{Name: "bare"})
	out, err := bare.Call(ctx, "summarize", []byte(`{"text":"long"}`))
	if want := fmt.Sprintf(errorResult, `"sampling: not granted to guest \"bare\""`); err != nil || string(out) != want {
		t.Fatalf("summarize without the grant: %s, %v; want %s", out, err, want)
	}
	if len(asked) != 0 {
		t.Fatalf("the client was asked without the grant: %q", asked)
	}

	granted := load(t, h, module, &runtime.GuestConfig{Name: "granted", Grants: runtime.Grants{Sampling: true}})
	out, err = granted.Call(ctx, "summarize", []byte(`{"text":"long"}`))
	if want := fmt.Sprintf(textResult, `"a summary"`); err != nil || string(out) != want {
		t.Fatalf("summarize with the grant: %s, %v; want %s", out, err, want)
	}
	if want := `sampling {"messages":[{"role":"user","content":{"type":"text","text":"Please summarize the following text concisely:\n\nlong"}}],"maxTokens":500}`; len(asked) != 1 || asked[0] != want {
		t.Fatalf("the client saw %q, want [%q]", asked, want)
	}
}

// A script that makes no McpServer, or throws at its top level, fails the load with the
// script's own words: no server is a manifest the ABI refuses, a throw the script's own
// failure (a trap, as a WASI guest's start that traps).
func TestJavaScriptLoadErrors(t *testing.T) {
	h := newHost(t)
	for _, c := range []struct {
		src, want string
		is        error
	}{
		{`console.log("no server here");` + "\n", "the script's manifest: the script made no McpServer", runtime.ErrABI},
		{`import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";` + "\nnew McpServer({ name: \"x\", version: \"1\" });\nthrow new RangeError(\"bad config\");\n", "guest trapped: script failed: RangeError: bad config", runtime.ErrTrap},
	} {
		entry := filepath.Join(t.TempDir(), "bad.js")
		if err := os.WriteFile(entry, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := h.Load(context.Background(), buildJS(t, entry), nil)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: load error %v, want %v containing %q", c.src, err, c.is, c.want)
		}
	}
}

// node:fs/promises reaches files only through the fs grant, which the build requested off
// the file's "/data" literal (writable: it writes): readFile as text and as a Buffer,
// writeFile of a string and of bytes, readdir with and without types, stat, mkdir
// {recursive}; a read-only grant refuses writes naming the grant, a path outside the grant and
// a guest without one are refused naming it (once: the line a Go guest's tool error gets, the
// requested directory is not granted, is not repeated), a symlink out of the grant is
// refused.
func TestJavaScriptFiles(t *testing.T) {
	module := buildJS(t, "testdata/files.js")
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	h := newHost(t)
	rw := load(t, h, module, &runtime.GuestConfig{Name: "rw", Grants: runtime.Grants{FS: []policy.FS{{Guest: "/data", Host: dir, RW: true}}}})
	for _, c := range []struct{ tool, args, want string }{
		{"save", `{"name":"a.txt","text":"héllo"}`, fmt.Sprintf(textResult, `"saved (made /data/notes)"`)},
		{"load", `{"path":"/data/notes/a.txt"}`, fmt.Sprintf(textResult, `"héllo|Buffer:6:true:68c3a96c"`)},
		{"load", `{"path":"/data/notes/a.txt.bin"}`, fmt.Sprintf(textResult, `"\u0000�\u0001|Buffer:3:true:00ff01"`)},
		{"list", `{"path":"/data/notes"}`, fmt.Sprintf(textResult, `"{\"names\":[\"a.txt\",\"a.txt.bin\",\"sub\"],\"dirs\":[\"sub\"],\"first\":{\"file\":true,\"dir\":false,\"size\":6,\"mtime\":true}}"`)},
		{"load", `{"path":"/data/none"}`, fmt.Sprintf(errorResult, `"ENOENT open /data/none: ENOENT: no such file or directory, open '/data/none'"`)},
		{"load", `{"path":"/data/link"}`, fmt.Sprintf(errorResult, `"EPERM open /data/link: EPERM: operation not permitted, open '/data/link' (fs: the path leaves /data, granted to guest \"rw\")"`)},
		{"load", `{"path":"/data/../etc/passwd"}`, fmt.Sprintf(errorResult, `"EACCES open /data/../etc/passwd: EACCES: permission denied, open '/etc/passwd' (fs: /etc/passwd is not granted to guest \"rw\")"`)},
	} {
		if got := call(t, rw, c.tool, c.args); got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.tool, c.args, got, c.want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes", "a.txt")); err != nil || string(b) != "héllo" {
		t.Errorf("notes/a.txt on the host: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes", "a.txt.bin")); err != nil || string(b) != "\x00\xff\x01" {
		t.Errorf("notes/a.txt.bin on the host: %q, %v", b, err)
	}

	ro := load(t, h, module, &runtime.GuestConfig{Name: "ro", Grants: runtime.Grants{FS: []policy.FS{{Guest: "/data", Host: dir}}}})
	if got, want := call(t, ro, "load", `{"path":"/data/notes/a.txt"}`), fmt.Sprintf(textResult, `"héllo|Buffer:6:true:68c3a96c"`); got != want {
		t.Errorf("read-only load: %s, want %s", got, want)
	}
	if got, want := call(t, ro, "save", `{"name":"b.txt","text":"x"}`), fmt.Sprintf(errorResult, `"EROFS open /data/notes/b.txt: EROFS: read-only file system, open '/data/notes/b.txt' (fs: /data is granted read-only to guest \"ro\")"`); got != want {
		t.Errorf("read-only save:\n got %s\nwant %s", got, want)
	}
	// Without a grant: the operator's log still gets the warning a Go guest's refusal gets.
	var logged lockedLog
	hl, err := runtime.NewHost(context.Background(), &runtime.Options{CacheDir: cacheDir,
		Logger: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hl.Close(context.Background()) })
	bare := load(t, hl, module, &runtime.GuestConfig{Name: "bare"})
	if got, want := call(t, bare, "load", `{"path":"/data/notes/a.txt"}`), `{"content":[{"type":"text","text":"EACCES open /data/notes/a.txt: EACCES: permission denied, open '/data/notes/a.txt' (fs: /data is not granted to guest \"bare\")"}],"isError":true}`; got != want {
		t.Errorf("load without a grant:\n got %s\nwant %s", got, want)
	}
	if want := `level=WARN msg="fs: /data is not granted to guest \"bare\"" guest=bare tool=load`; !strings.Contains(logged.String(), want) {
		t.Errorf("log without a grant:\n%s\nwant a line containing %s", logged.String(), want)
	}
}

// logLines collects a call's log lines; wait returns when one equals line.
type logLines struct {
	mu    sync.Mutex
	lines []string
	seen  chan string
}

func newLogLines() *logLines { return &logLines{seen: make(chan string, 64)} }

func (l *logLines) hooks() *runtime.CallHooks {
	return &runtime.CallHooks{Log: func(_ abi.Level, msg string) {
		l.mu.Lock()
		l.lines = append(l.lines, msg)
		l.mu.Unlock()
		l.seen <- msg
	}}
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// cancelOn runs tool in g with a context cancelled when the guest logs line, and returns the
// call's result and error.
func cancelOn(t *testing.T, g *runtime.Guest, tool, args, line string, logs *logLines) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(runtime.WithCallHooks(context.Background(), logs.hooks()))
	defer cancel()
	go func() {
		for msg := range logs.seen {
			if msg == line {
				cancel()
				return
			}
		}
	}()
	return g.Call(ctx, tool, []byte(args))
}

// extra.signal aborts when the client cancels the call and when its time limit nears (a
// grace period, a tenth of the limit, before the interrupt): a handler awaiting a timer or a
// fetch, or spinning on signal.aborted, ends cleanly. A cancelled call that ended within its
// grace keeps its instance (it is still ErrCancelled to the caller); one that ignores the
// signal is stopped by the interrupt, as before.
func TestJavaScriptAbortSignal(t *testing.T) {
	module := buildJS(t, "testdata/abort.js")
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done() // answers only when the guest's request is ended
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	h := newHost(t)
	// Cancellations never wait for the limit: a long one gives the longest grace (1 s), so a
	// busy machine does not make a clean end late.
	grants := runtime.Grants{Clock: true, Net: []string{u.Host}}
	g := load(t, h, module, &runtime.GuestConfig{Name: "abort", Grants: grants, Limits: runtime.Limits{Timeout: time.Minute}})
	short := load(t, h, module, &runtime.GuestConfig{Name: "short", Grants: grants, Limits: runtime.Limits{Timeout: deadlineTimeout}})

	// Cancelled while a one-minute timer is pending.
	logs := newLogLines()
	_, err := cancelOn(t, g, "wait_timer", `{}`, "waiting", logs)
	if !errors.Is(err, runtime.ErrCancelled) {
		t.Fatalf("wait_timer cancelled: %v, want ErrCancelled", err)
	}
	if want := []string{"waiting", "ended cleanly (aborted: AbortError)"}; !slices.Equal(logs.all(), want) {
		t.Errorf("wait_timer cancelled logged %q, want %q", logs.all(), want)
	}
	if st := guestStats(t, h, "abort"); st.Idle != 1 {
		t.Errorf("after a clean end within the grace: %d idle instances, want 1 (kept)", st.Idle)
	}

	// Cancelled while a fetch given the signal waits for its answer.
	logs = newLogLines()
	go func() {
		<-arrived
		logs.seen <- "the server has the request"
	}()
	_, err = cancelOn(t, g, "wait_fetch", `{"url":"`+srv.URL+`/slow"}`, "the server has the request", logs)
	if !errors.Is(err, runtime.ErrCancelled) {
		t.Fatalf("wait_fetch cancelled: %v, want ErrCancelled", err)
	}
	if want := []string{"fetching", "ended cleanly (fetch rejected: AbortError, aborted true)"}; !slices.Equal(logs.all(), want) {
		t.Errorf("wait_fetch cancelled logged %q, want %q", logs.all(), want)
	}

	// The time limit nears: the signal aborts with a TimeoutError and the handler's answer is
	// the call's result.
	for tool, want := range map[string]string{"wait_timer": "aborted: TimeoutError", "spin_checking": "stopped: TimeoutError"} {
		if got := call(t, short, tool, `{}`); got != fmt.Sprintf(textResult, `"`+want+`"`) {
			t.Errorf("%s at the deadline: %s, want the text %q", tool, got, want)
		}
	}

	// A handler that ignores the signal is interrupted a grace after the cancellation.
	logs = newLogLines()
	if _, err := cancelOn(t, g, "ignore", `{}`, "waiting", logs); !errors.Is(err, runtime.ErrCancelled) {
		t.Fatalf("ignore cancelled: %v, want ErrCancelled", err)
	}
	if got, want := call(t, g, "wait_fetch", `{"url":"http://127.0.0.1:1/"}`), fmt.Sprintf(textResult, `"fetch rejected: TypeError"`); got != want {
		t.Errorf("the next call: %s, want %s", got, want)
	}
}

// guestStats returns the stats of the guest called name.
func guestStats(t *testing.T, h *runtime.Host, name string) runtime.GuestStats {
	t.Helper()
	for _, st := range h.Stats() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no guest %q in Host.Stats", name)
	return runtime.GuestStats{}
}

// The engine alone (quickjs-wasi's quickjs.wasm, no script sections) is refused at load,
// saying what it is and how to build a guest; it was detected as a JavaScript guest and
// refused only when its first instance started.
func TestJavaScriptBareEngineRefusedAtLoad(t *testing.T) {
	engine, err := os.ReadFile(filepath.Join("typescript", "node_modules", "quickjs-wasi", "quickjs.wasm"))
	if err != nil {
		testenv.Skip(t, "guests/typescript's npm packages are not installed (run: npm ci --prefix guests/typescript): %v", err)
	}
	h := newHost(t)
	_, err = h.Load(context.Background(), engine, &runtime.GuestConfig{Name: "bare"})
	want := `a bare JavaScript engine: the module is quickjs-wasi with no script (custom section "mcpwasm.js" or "mcpwasm.jsbc"); build the guest with mcpwasm/build.mjs (npm run build)`
	if !errors.Is(err, runtime.ErrABI) || !strings.HasSuffix(err.Error(), want) || strings.Contains(err.Error(), "instantiating") {
		t.Fatalf("load of the bare engine: %v, want ErrABI ending %q (at detection, not at start)", err, want)
	}
}

// JavaScript guests differ only in their script sections, which the compile leaves out and
// the guest keeps: two guests share one compiled engine in the compilation cache, and both
// run, loaded eagerly and then lazily from the manifest cache (their code compiled in the
// background).
func TestJavaScriptGuestsShareTheEngine(t *testing.T) {
	dir := t.TempDir()
	compiled := func() int {
		n := 0
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			// dir/wazero-<version>/<hash> is compiled code (dir/macs/… authenticates it).
			if err == nil && !d.IsDir() && filepath.Dir(filepath.Dir(p)) == dir && strings.HasPrefix(filepath.Base(filepath.Dir(p)), "wazero-") {
				n++
			}
			return nil
		})
		return n
	}
	a, b := buildJS(t, "testdata/limits.js"), buildJS(t, "server.ts")
	for _, lazy := range []bool{false, true} {
		h, err := runtime.NewHost(context.Background(), &runtime.Options{CacheDir: dir, Lazy: lazy})
		if err != nil {
			t.Fatal(err)
		}
		ga, gb := load(t, h, a, nil), load(t, h, b, nil)
		if n := compiled(); n != 1 {
			t.Errorf("lazy %v: %d compiled modules in the cache for two JavaScript guests, want 1", lazy, n)
		}
		if got, want := call(t, ga, "echo", `{"text":"a"}`), fmt.Sprintf(textResult, `"a"`); got != want {
			t.Errorf("lazy %v: echo %s, want %s", lazy, got, want)
		}
		if got := call(t, gb, "greet", `{"name":"b"}`); !strings.Contains(got, `"hello, b"`) {
			t.Errorf("lazy %v: greet %s", lazy, got)
		}
		h.Close(context.Background())
	}
}

// A JavaScript guest under isolation session starts one instance; every other session's
// instance is a copy of it taken after Start (the script is not evaluated again). A copy
// answers like a started instance, never sees what another session's calls left (the
// counter), and draws its own Math.random sequence: with the clock grant each copy is
// reseeded from its clock, so two sessions draw different numbers; without it the clock is
// the sandbox's fixed one and every copy draws the same.
func TestJavaScriptSnapshot(t *testing.T) {
	module := buildJS(t, "testdata/state.js")
	for _, clock := range []bool{false, true} {
		t.Run(fmt.Sprintf("clock=%v", clock), func(t *testing.T) {
			logs := &lockedLog{}
			h, err := runtime.NewHost(context.Background(), &runtime.Options{CacheDir: cacheDir,
				Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h.Close(context.Background()) })
			g := load(t, h, module, &runtime.GuestConfig{Isolation: "session", Limits: runtime.Limits{Instances: 1}, Grants: runtime.Grants{Clock: clock}})
			type state struct {
				Calls           int
				AtStart, Random float64
			}
			in := func(session string) state {
				t.Helper()
				out, err := g.Call(runtime.WithCallHooks(context.Background(), &runtime.CallHooks{Session: session}), "state", nil)
				if err != nil {
					t.Fatalf("session %s: %v", session, err)
				}
				var r struct{ Content []struct{ Text string } }
				var s state
				if err := json.Unmarshal(out, &r); err != nil || len(r.Content) != 1 || json.Unmarshal([]byte(r.Content[0].Text), &s) != nil {
					t.Fatalf("session %s: %s", session, out)
				}
				return s
			}
			a1, a2 := in("A"), in("A")
			b, c := in("B"), in("C")
			if a1.Calls != 1 || a2.Calls != 2 || b.Calls != 1 || c.Calls != 1 {
				t.Errorf("calls seen: A %d then %d, B %d, C %d; want 1, 2, 1, 1 (a session's instance is its own)", a1.Calls, a2.Calls, b.Calls, c.Calls)
			}
			if b.AtStart != a1.AtStart || c.AtStart != a1.AtStart {
				t.Errorf("the number the script drew at start: A %v, B %v, C %v; want one value (the copies did not evaluate it again)", a1.AtStart, b.AtStart, c.AtStart)
			}
			if same := b.Random == c.Random; same == clock {
				t.Errorf("first draws of sessions B and C: %v and %v; want them equal only without the clock grant", b.Random, c.Random)
			}
			// C's instance was B's, reset in place to the snapshot; so was B's A's, unless A's
			// was the instance the snapshot was taken from (when the manifest came from the
			// cache, no describe instance went first), which is replaced once instead
			// (runtime/internal/engine/reset.go).
			if st := h.Stats(); len(st) != 1 || st[0].Resets < 1 || st[0].Resets > 2 {
				t.Errorf("Stats: %+v; want Resets 1 or 2", st)
			}
			if !strings.Contains(logs.String(), "instances start from a snapshot") || strings.Contains(logs.String(), "run the guest's start each time") {
				t.Errorf("want the pool to snapshot; log:\n%s", logs)
			}
		})
	}
}

// lockedLog is a log sink safe for the host's goroutines.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The shim's paths through an entry: a handler answering without a promise, a zod shape with
// an async refinement (parsed with safeParseAsync: its failure is invalid params naming the
// field), a handler throwing before it returns (a tool error), and extra.signal, made when a
// handler first reads it.
func TestJavaScriptEntryPaths(t *testing.T) {
	h := newHost(t)
	g := load(t, h, buildJS(t, "testdata/state.js"), nil)
	for _, c := range []struct{ tool, args, want string }{
		{"sync", `{}`, fmt.Sprintf(textResult, `"sync"`)},
		{"refined", `{"name":"ada"}`, fmt.Sprintf(textResult, `"hi ada"`)},
		{"throws", `{}`, fmt.Sprintf(errorResult, `"thrown at once"`)},
		{"signal", `{}`, fmt.Sprintf(textResult, `"false true function"`)},
	} {
		if got := call(t, g, c.tool, c.args); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.tool, c.args, got, c.want)
		}
	}
	_, err := g.Call(context.Background(), "refined", []byte(`{"name":"nobody"}`))
	if !errors.Is(err, runtime.ErrInvalidArguments) || !strings.Contains(err.Error(), "name: nobody is not a name") {
		t.Errorf("refined nobody: %v, want invalid arguments naming the field", err)
	}
}

// The snapshot of a JavaScript guest's first instance is kept in the compile cache, sealed
// with the cache's key: a second host with the same cache directory starts its first
// instance from it, without evaluating the script (with the clock grant the number the script
// drew at start would differ: QuickJS seeds Math.random from the clock). A file changed
// outside mcpwasm fails authentication: it is ignored with a warning, the start runs, and the
// file is written again. A lazily loaded guest reads it while its code compiles.
func TestJavaScriptSnapshotInCache(t *testing.T) {
	module := buildJS(t, "testdata/state.js")
	dir := t.TempDir()
	lazy := false
	atStart := func() (float64, string) {
		t.Helper()
		logs := &lockedLog{}
		h, err := runtime.NewHost(context.Background(), &runtime.Options{CacheDir: dir, Lazy: lazy,
			Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		if err != nil {
			t.Fatal(err)
		}
		g := load(t, h, module, &runtime.GuestConfig{Grants: runtime.Grants{Clock: true}})
		out := call(t, g, "state", `{}`)
		h.Close(context.Background()) // waits for the snapshot's write
		// The describe instance reads (or ignores) the file before the manifest names the
		// guest: its log lines name the guest all the same.
		if strings.Contains(logs.String(), `guest=""`) {
			t.Errorf("a log line does not name the guest:\n%s", logs)
		}
		var r struct{ Content []struct{ Text string } }
		var s struct{ AtStart float64 }
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Content) != 1 || json.Unmarshal([]byte(r.Content[0].Text), &s) != nil {
			t.Fatalf("state: %s", out)
		}
		return s.AtStart, logs.String()
	}
	first, _ := atStart()
	files, _ := filepath.Glob(filepath.Join(dir, "snapshots", "*.snap"))
	if len(files) != 2 {
		t.Fatalf("snapshot files in the cache: %v; want two (describe's pool, without grants, and the tool's)", files)
	}
	second, logs := atStart()
	if second != first || !strings.Contains(logs, "instances start from a snapshot in the cache") {
		t.Errorf("second host drew %v at start (first %v); want the same, restored from the cache; log:\n%s", second, first, logs)
	}
	// A lazy load (the manifest from the cache, the code compiled in the background) reads the
	// file while its first call waits for the code.
	lazy = true
	if got, logs := atStart(); got != first || !strings.Contains(logs, "instances start from a snapshot in the cache") {
		t.Errorf("lazily loaded host drew %v at start (first %v); want the same, restored from the cache; log:\n%s", got, first, logs)
	}
	lazy = false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 1
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	third, logs := atStart()
	if third == first || !strings.Contains(logs, "snapshot in the cache ignored") {
		t.Errorf("with the file tampered: drew %v at start (first %v); want a fresh start and a warning; log:\n%s", third, first, logs)
	}
	fourth, logs := atStart()
	if fourth != third || !strings.Contains(logs, "instances start from a snapshot in the cache") {
		t.Errorf("after the rewrite: drew %v at start; want %v, restored from the rewritten file; log:\n%s", fourth, third, logs)
	}
}

// A script that reads a granted variable at start keeps what it read in its snapshot, so a
// pool with an env grant keeps no snapshot in the cache: the next process, the variable
// changed (a rotated key), starts the script again and reads the new value, and no cache file
// holds the value.
func TestJavaScriptSnapshotNotCachedWithEnv(t *testing.T) {
	module := buildJS(t, "testdata/envstart.js")
	dir := t.TempDir()
	atStart := func(value string) string {
		t.Helper()
		t.Setenv("MCPWASM_SNAPSHOT_ENV", value)
		h, err := runtime.NewHost(context.Background(), &runtime.Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		g := load(t, h, module, &runtime.GuestConfig{Grants: runtime.Grants{Env: []string{"MCPWASM_SNAPSHOT_ENV"}}})
		out := call(t, g, "env", `{}`)
		h.Close(context.Background()) // waits for any snapshot's write
		var r struct{ Content []struct{ Text string } }
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Content) != 1 {
			t.Fatalf("env: %s", out)
		}
		return r.Content[0].Text
	}
	if got := atStart("first-key-8c1f"); got != "first-key-8c1f" {
		t.Fatalf("first process read %q", got)
	}
	if got := atStart("second-key-27d0"); got != "second-key-27d0" {
		t.Errorf("second process read %q at start, want the variable's new value", got)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "snapshots", "*.snap"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("-key-")) {
			t.Errorf("%s holds the variable's value", f)
		}
	}
}

// deadlineTimeout is the time limit of the tests that let a call run into it to see
// extra.signal abort: the shortest that gets the longest grace (MaxGrace, 1 s, a tenth of the
// limit), so a handler's clean end after the abort is not late on a busy machine under -race
// (with 2 s, its 200 ms grace was missed while another CI run shared the machine).
const deadlineTimeout = 10 * time.Second

// An instance restored from the snapshot aborts extra.signal as a started one does: with
// isolation call, the first call runs in the started instance and the second in a copy; both
// see the signal abort as the time limit nears and answer with the handler's result.
func TestJavaScriptRestoredInstanceAborts(t *testing.T) {
	h := newHost(t)
	g := load(t, h, buildJS(t, "testdata/abort.js"), &runtime.GuestConfig{Name: "abort", Isolation: "call",
		Grants: runtime.Grants{Clock: true}, Limits: runtime.Limits{Timeout: deadlineTimeout}})
	for i := range 2 {
		if got, want := call(t, g, "wait_timer", `{}`), fmt.Sprintf(textResult, `"aborted: TimeoutError"`); got != want {
			t.Errorf("call %d (%s instance): %s, want %s", i+1, []string{"started", "restored"}[i], got, want)
		}
	}
}

// What a script draws at its top level — crypto.randomUUID, crypto.getRandomValues,
// Math.random — comes from the random grant: every instance draws its own, in the first
// instance of a host and another session's, with the compile cache and without. The start
// drew the fixed sequence (Math.random seeded from the sandbox's fixed clock: the grant
// inferred from Math.random is random, not clock), the same in every instance and process.
// Without the grant every instance has the fixed values, started or copied from a snapshot
// (in the cache too).
func TestJavaScriptRandomAtStart(t *testing.T) {
	module := buildJS(t, "testdata/randstart.js")
	const fixed = "9e527556-54e6-479a-a4b9-20a9d278f71e 170,27,111,172,129,62,145,36 0.1617876141903971"
	for _, random := range []bool{true, false} {
		t.Run(fmt.Sprintf("random=%v", random), func(t *testing.T) {
			dir := t.TempDir()
			var drawn []string
			for _, opts := range []runtime.Options{{NoDiskCache: true}, {CacheDir: dir}, {CacheDir: dir}} {
				h, err := runtime.NewHost(context.Background(), &opts)
				if err != nil {
					t.Fatal(err)
				}
				g := load(t, h, module, &runtime.GuestConfig{Isolation: "session", Limits: runtime.Limits{Instances: 1}, Grants: runtime.Grants{Random: random}})
				for _, session := range []string{"A", "B"} {
					out, err := g.Call(runtime.WithCallHooks(context.Background(), &runtime.CallHooks{Session: session}), "start", nil)
					var r struct{ Content []struct{ Text string } }
					if err != nil || json.Unmarshal(out, &r) != nil || len(r.Content) != 1 {
						t.Fatalf("session %s: %s, %v", session, out, err)
					}
					drawn = append(drawn, r.Content[0].Text)
				}
				h.Close(context.Background()) // waits for any snapshot's write
			}
			if !random {
				for i, d := range drawn {
					if d != fixed {
						t.Errorf("instance %d drew %q at start; want the fixed %q", i, d, fixed)
					}
				}
				return
			}
			for i, name := range []string{"crypto.randomUUID", "crypto.getRandomValues", "Math.random"} {
				seen := map[string]bool{strings.Fields(fixed)[i]: true}
				for _, d := range drawn {
					f := strings.Fields(d)
					if len(f) != 3 || seen[f[i]] {
						t.Errorf("%s at start in instances (no cache, cold cache, warm cache; sessions A, B) %q: want each its own, none the fixed one", name, drawn)
						break
					}
					seen[f[i]] = true
				}
			}
		})
	}
}

// Every handler of a JavaScript guest runs with its guest's grants, as a Node server's run
// with its process's environment: the top level (which refuses to start without its key, as
// published servers do), a resource that fetches, a prompt that reads the environment. A
// grant narrowed per tool still applies to that tool alone. Before, the start and the
// resource and prompt handlers ran with no grants: the load failed with "API_KEY is not set"
// whatever the config granted, the fetch was refused "request outside a tool call" and the
// prompt read "unset".
func TestJavaScriptHandlersHaveGuestGrants(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "cloudy in %s", r.URL.Query().Get("city"))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	module := buildJS(t, "testdata/grants.js")
	h := newHost(t)
	ctx := context.Background()

	if _, err := h.Load(ctx, module, &runtime.GuestConfig{Name: "grants"}); err == nil || !strings.Contains(err.Error(), "API_KEY is not set") {
		t.Fatalf("without the env grant: %v, want the script's own error", err)
	}
	env := []string{"API_KEY=k-123", "TEAM=core", "WEATHER_URL=" + srv.URL}
	g := load(t, h, module, &runtime.GuestConfig{Name: "grants", Grants: runtime.Grants{Env: env, Net: []string{u.Host}}})
	out, err := g.ReadResource(ctx, "weather://oslo")
	if want := `"text":"200 cloudy in Oslo"`; err != nil || !strings.Contains(string(out), want) {
		t.Errorf("resource read: %s %v, want %s", out, err, want)
	}
	out, err = g.GetPrompt(ctx, "team", []byte(`{"topic":"wasm"}`))
	if want := `"text":"team=core topic=wasm"`; err != nil || !strings.Contains(string(out), want) {
		t.Errorf("prompt: %s %v, want %s", out, err, want)
	}
	if got, want := call(t, g, "team_tool", `{}`), fmt.Sprintf(textResult, `"team=core key=5"`); got != want {
		t.Errorf("tool: %s, want %s", got, want)
	}

	// Without the net grant the resource's fetch is refused naming the grant; the rest serves.
	g2 := load(t, h, module, &runtime.GuestConfig{Name: "grants2", Grants: runtime.Grants{Env: env}})
	if out, err := g2.ReadResource(ctx, "weather://oslo"); err == nil && !strings.Contains(string(out), "not granted") && !strings.Contains(string(out), "no hosts are granted") {
		t.Errorf("resource read without net: %s, want a refusal naming the grant", out)
	} else if err != nil && !strings.Contains(err.Error(), "net") {
		t.Errorf("resource read without net: %v, want a refusal naming the net grant", err)
	}

	// Narrowed per tool: team_tool loses TEAM, the prompt (the guest's grants) keeps it.
	g3 := load(t, h, module, &runtime.GuestConfig{Name: "grants3", Grants: runtime.Grants{Env: env},
		ToolGrants: map[string]runtime.Grants{"team_tool": {Env: []string{"API_KEY=k-123"}}}})
	if got, want := call(t, g3, "team_tool", `{}`), fmt.Sprintf(textResult, `"team=unset key=5"`); got != want {
		t.Errorf("narrowed tool: %s, want %s", got, want)
	}
	if out, err := g3.GetPrompt(ctx, "team", []byte(`{"topic":"x"}`)); err != nil || !strings.Contains(string(out), `"text":"team=core topic=x"`) {
		t.Errorf("prompt beside a narrowed tool: %s %v", out, err)
	}
}

// A refusal during a guest's start names the guest by its source's file name: the guest has
// no name yet (a script names itself in its manifest, which the start produces). It was
// `guest ""` (a newcomer's readFileSync at the top level: `fs: /etc/hostname is not granted
// to guest ""`).
func TestJavaScriptStartRefusalNamesTheGuest(t *testing.T) {
	h := newHost(t)
	g := load(t, h, buildJS(t, "testdata/startfetch.js"), &runtime.GuestConfig{Source: "/srv/guests/startfetch.wasm"})
	got := call(t, g, "at_start", `{}`)
	if want := `net: no hosts are granted to guest \"startfetch\"`; !strings.Contains(got, want) {
		t.Errorf("at_start: %s, want the refusal naming %s", got, want)
	}
}
