package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

// appsHostDir is the host page's npm project (pinned by its package-lock.json; .ci/run
// installs it with npm_install).
var appsHostDir = filepath.Join("..", "..", "testdata", "appshost")

// TestAppsBrowser: a real MCP Apps host renders a guest's view and the view calls its tool. A
// page built from @modelcontextprotocol/ext-apps' AppBridge (testdata/appshost) connects to
// `mcpwasm serve --http` on loopback, headless Chromium loads it, the view appears in its
// sandboxed iframe (behind a sandbox proxy on another origin) and shows the result of the call
// that opened it; a click on the view's button calls the tool through the host and the answer
// shows in the view. Two views: the example guest's (guests/appview: shout), and
// @modelcontextprotocol/server-basic-vanillajs 2.0.3's, a whole MCP server built with mcpwasm
// build and served as a guest (kind javascript-server) with the clock grant: its view calls
// get-time by its own name, which is the name served. The test reads the DOM over the
// DevTools protocol; each screenshot is written to $MCPWASM_TEST_ARTIFACTS (or the test's
// temporary directory) and logged.
func TestAppsBrowser(t *testing.T) {
	chromium := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		testenv.Skip(t, "chromium is not installed (Debian package chromium)")
	}
	esbuild := filepath.Join(appsHostDir, "node_modules", "esbuild", "bin", "esbuild")
	if _, err := os.Stat(esbuild); err != nil {
		testenv.Skip(t, "testdata/appshost's npm packages are not installed (run: npm ci --prefix testdata/appshost): %v", err)
	}
	needTool(t, "node")
	ctx := testContext(t)

	// The host page, bundled.
	for _, f := range []string{"host.ts", "host.html", "sandbox.html", "package-lock.json"} {
		if _, err := os.ReadFile(filepath.Join(appsHostDir, f)); err != nil {
			t.Fatal(err)
		}
	}
	web := t.TempDir()
	// bin/esbuild is run as it is: npm ci's install script may have replaced the JavaScript
	// launcher with the native binary (it did on a fresh CI clone), which node cannot run.
	build := exec.CommandContext(ctx, esbuild, "host.ts", "--bundle", "--format=esm",
		"--platform=browser", "--log-level=error", "--outfile="+filepath.Join(web, "host.js"))
	build.Dir = appsHostDir
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("bundling the host page: %v\n%s", err, b)
	}
	b := startBrowser(t, ctx, chromium)

	t.Run("appview", func(t *testing.T) {
		b.t = t                        // subtests run one at a time: b fails the one running
		wasm := appGuests()[0].wasm(t) // guests/appview
		base, _ := startHTTP(t, wasm)
		session := b.openApp(t, web, base, "shout", `{"text":"hi"}`)
		// The view renders the result of the call that opened it.
		b.waitText(session, "status", "rendered")
		b.waitText(session, "answer", "HI!")
		// A click in the view calls shout through the host; the answer shows in the view.
		b.click(session, "shout")
		b.waitText(session, "answer", "HELLO FROM THE VIEW!")
		b.screenshot(session, "apps-browser.png")
	})

	t.Run("vanillajs", func(t *testing.T) {
		b.t = t
		wasm := buildNpmServer(t, "server-basic-vanillajs")
		cfg := writeConfig(t, `{"guests": [{"name": "vanilla", "path": "`+wasm+`", "args": ["--stdio"], "grants": {"clock": true}}]}`)
		base, _ := startHTTP(t, "--config", cfg)
		session := b.openApp(t, web, base, "get-time", `{}`)
		b.waitText(session, "status", "rendered")
		// The view shows the time of the call that opened it (its ontoolresult).
		opened := b.waitFor(session, "server-time", "an ISO 8601 time", isTime)
		// A click calls get-time from the view (callServerTool by its own name) through the
		// host: the answer is a time read by the instance's granted clock after the click.
		clicked := time.Now().UTC().Truncate(time.Millisecond)
		b.click(session, "get-time-btn")
		got := b.waitFor(session, "server-time", "a time after the click", func(s string) bool {
			ts, err := time.Parse(time.RFC3339Nano, s)
			return err == nil && !ts.Before(clicked)
		})
		if ts, _ := time.Parse(time.RFC3339Nano, got); ts.After(time.Now().Add(time.Second)) {
			t.Errorf("get-time from the view = %s, after now", got)
		}
		t.Logf("server-time: opened %s, after the click %s", opened, got)
		b.screenshot(session, "apps-browser-vanillajs.png")
	})
}

func isTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// openApp serves the host page (web: its bundle) on a new origin that passes /mcp to the
// mcpwasm server at base, with a sandbox proxy on another, and opens it in a new page of b
// for tool called with args (JSON). It returns the page's session.
func (b *browser) openApp(t *testing.T, web, base, tool, args string) string {
	t.Helper()
	// The host's origin serves the page and passes /mcp to mcpwasm as a host's backend does
	// (mcpwasm refuses cross-origin browser requests).
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	direct := proxy.Director
	proxy.Director = func(r *http.Request) {
		direct(r)
		r.Host = target.Host
		for _, h := range []string{"Origin", "Referer", "Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-Fetch-Dest"} {
			r.Header.Del(h)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", proxy)
	mux.HandleFunc("/host.html", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(appsHostDir, "host.html"))
	})
	mux.HandleFunc("/host.js", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(web, "host.js"))
	})
	host := httptest.NewServer(mux)
	// The sandbox proxy on another origin (another port).
	sandbox := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(appsHostDir, "sandbox.html"))
	}))
	page := host.URL + "/host.html?" + url.Values{"tool": {tool}, "args": {args}, "sandbox": {sandbox.URL + "/sandbox.html"}}.Encode()
	session, targetID := b.open(page)
	t.Cleanup(func() {
		// The page's connections (its MCP client's stream) end with it, before the
		// servers close: the browser outlives this subtest.
		_ = b.try("", "Target.closeTarget", map[string]any{"targetId": targetID}, nil)
		for _, s := range []*httptest.Server{host, sandbox} {
			s.CloseClientConnections()
			s.Close()
		}
	})
	return session
}

// screenshot keeps a PNG of the page of session as the test's artefact, named name.
func (b *browser) screenshot(session, name string) {
	t := b.t
	t.Helper()
	var shot struct{ Data string }
	b.call(session, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(png) == 0 {
		t.Fatalf("screenshot: %v (%d bytes)", err, len(png))
	}
	dir := os.Getenv("MCPWASM_TEST_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	out := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", out)
}

// browser is headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: commands on fd 3, answers on fd 4, each JSON text ending in NUL).
type browser struct {
	t   *testing.T
	ctx context.Context
	w   io.Writer

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpAnswer
}

type cdpAnswer struct {
	Result json.RawMessage
	Error  *struct{ Message string }
}

func startBrowser(t *testing.T, ctx context.Context, chromium string) *browser {
	t.Helper()
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// Site isolation off: the view's frames are in the page's process, so DOM.getDocument
	// with pierce reaches into them.
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--remote-debugging-pipe", "--user-data-dir="+t.TempDir(), "--no-first-run", "--no-default-browser-check",
		"--disable-site-isolation-trials", "--disable-features=IsolateOrigins,site-per-process", "--window-size=800,600", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	outW.Close()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmdW.Close()
		_ = cmd.Process.Kill()
		<-done
		outR.Close()
		if t.Failed() {
			t.Logf("chromium stderr:\n%s", stderr.String())
		}
	})
	b := &browser{t: t, ctx: ctx, w: cmdW, waiting: map[int]chan cdpAnswer{}}
	go func() {
		r := bufio.NewReader(outR)
		for {
			msg, err := r.ReadBytes(0)
			if err != nil {
				return
			}
			var m struct {
				ID *int
				cdpAnswer
			}
			if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == nil {
				continue // an event
			}
			b.mu.Lock()
			ch := b.waiting[*m.ID]
			delete(b.waiting, *m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m.cdpAnswer
			}
		}
	}()
	return b
}

// call sends method to the target of session ("" for the browser) and decodes the result
// into out (may be nil).
func (b *browser) call(session, method string, params any, out any) {
	b.t.Helper()
	if err := b.try(session, method, params, out); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browser) try(session, method string, params any, out any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpAnswer, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.w.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case a := <-ch:
		if a.Error != nil {
			return fmt.Errorf("%s: %s", method, a.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(a.Result, out)
		}
		return nil
	case <-b.ctx.Done():
		return fmt.Errorf("%s: no answer before the test deadline", method)
	}
}

// open creates a page at pageURL and returns its session and target.
func (b *browser) open(pageURL string) (session, target string) {
	b.t.Helper()
	var created struct{ TargetID string }
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &created)
	var attached struct{ SessionID string }
	b.call("", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached)
	b.call(attached.SessionID, "Page.navigate", map[string]any{"url": pageURL}, nil)
	return attached.SessionID, created.TargetID
}

// domNode is a node of DOM.getDocument's tree (pierced: frames' documents included).
type domNode struct {
	NodeID          int
	BackendNodeID   int
	NodeName        string
	NodeValue       string
	Attributes      []string
	Children        []*domNode
	ContentDocument *domNode
}

// find returns the element whose id attribute is id, searching frames too.
func (n *domNode) find(id string) *domNode {
	if n == nil {
		return nil
	}
	for i := 0; i+1 < len(n.Attributes); i += 2 {
		if n.Attributes[i] == "id" && n.Attributes[i+1] == id {
			return n
		}
	}
	for _, c := range append(n.Children, n.ContentDocument) {
		if f := c.find(id); f != nil {
			return f
		}
	}
	return nil
}

func (n *domNode) text() string {
	if n == nil {
		return ""
	}
	s := n.NodeValue
	for _, c := range n.Children {
		s += c.text()
	}
	return s
}

func (b *browser) document(session string) *domNode {
	b.t.Helper()
	var doc struct{ Root *domNode }
	if err := b.try(session, "DOM.getDocument", map[string]any{"depth": -1, "pierce": true}, &doc); err != nil {
		return nil // the page is between documents
	}
	return doc.Root
}

// waitText waits until the element with id (in the page or a frame) has the text want.
func (b *browser) waitText(session, id, want string) {
	b.t.Helper()
	b.waitFor(session, id, strconv.Quote(want), func(s string) bool { return s == want })
}

// waitFor waits until the text of the element with id (in the page or a frame), trimmed,
// satisfies ok (what describes it), and returns it.
func (b *browser) waitFor(session, id, what string, ok func(string) bool) string {
	b.t.Helper()
	last := ""
	for {
		if n := b.document(session).find(id); n != nil {
			if last = strings.TrimSpace(n.text()); ok(last) {
				return last
			}
			if id == "status" && strings.HasPrefix(last, "error:") { // the host page gave up
				b.t.Fatalf("#status never read %s: %s", what, last)
			}
		}
		select {
		case <-b.ctx.Done():
			b.t.Fatalf("#%s never read %s (last %q)", id, what, last)
		case <-time.After(50 * time.Millisecond): // polling the page's DOM, not synchronisation
		}
	}
}

// click clicks the middle of the element with id with the mouse, as a user does.
func (b *browser) click(session, id string) {
	b.t.Helper()
	n := b.document(session).find(id)
	if n == nil {
		b.t.Fatalf("no #%s to click", id)
	}
	var quads struct{ Quads [][]float64 }
	b.call(session, "DOM.getContentQuads", map[string]any{"backendNodeId": n.BackendNodeID}, &quads)
	if len(quads.Quads) == 0 || len(quads.Quads[0]) != 8 {
		b.t.Fatalf("#%s has no box: %v", id, quads.Quads)
	}
	q := quads.Quads[0]
	x, y := (q[0]+q[2]+q[4]+q[6])/4, (q[1]+q[3]+q[5]+q[7])/4
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		b.call(session, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1}, nil)
	}
}
