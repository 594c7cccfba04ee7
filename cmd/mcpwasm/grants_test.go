package main

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

var update = flag.Bool("update", false, "rewrite golden files")

var fetchGuest struct {
	once sync.Once
	path string
	err  error
}

// fetchWasm builds guests/fetch once per test binary.
func fetchWasm(t *testing.T) string {
	t.Helper()
	fetchGuest.once.Do(func() {
		fetchGuest.path = filepath.Join(filepath.Dir(binPath), "fetch.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", fetchGuest.path, "../../guests/fetch")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			fetchGuest.err = fmt.Errorf("building guests/fetch: %v\n%s", err, b)
		}
	})
	if fetchGuest.err != nil {
		t.Fatal(fetchGuest.err)
	}
	return fetchGuest.path
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mcpwasm.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// countingServer is a loopback HTTP server that counts accepted connections.
func countingServer(t *testing.T, body string) (*httptest.Server, *atomic.Int32) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body)
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// The headline for grants: with a net grant for the server's loopback address, fetch
// returns its body; without it, the call is a tool error naming the missing grant, and the
// server sees no connection.
func TestFetchNetGrant(t *testing.T) {
	srv, conns := countingServer(t, "body from the local server")
	addr := strings.TrimPrefix(srv.URL, "http://")
	wasm := fetchWasm(t)
	url := fmt.Sprintf(`{"url":%q}`, srv.URL+"/page")

	granted := writeConfig(t, fmt.Sprintf(`{"guests": [{"path": %q, "grants": {"net": [%q]}}]}`, wasm, addr))
	s := startServer(t, "--config", granted)
	s.initialize()
	s.send(callLine(2, "fetch", url))
	if isErr, text := toolResult(t, s.recv()); isErr || text != "body from the local server" {
		t.Errorf("granted fetch: isError=%v %q", isErr, text)
	}
	if conns.Load() != 1 {
		t.Errorf("%d connections with the grant, want 1", conns.Load())
	}

	conns.Store(0)
	ungranted := writeConfig(t, fmt.Sprintf(`{"guests": [{"path": %q}]}`, wasm))
	s2 := startServer(t, "--config", ungranted)
	s2.initialize()
	s2.send(callLine(2, "fetch", url))
	isErr, text := toolResult(t, s2.recv())
	if want := fmt.Sprintf(`GET %s/page: net: no hosts are granted to guest "fetch"`, srv.URL); !isErr || text != want {
		t.Errorf("ungranted fetch: isError=%v\n got %q\nwant %q", isErr, text, want)
	}
	if conns.Load() != 0 {
		t.Errorf("server saw %d connections without a grant", conns.Load())
	}
	if !strings.Contains(s2.stderr.String(), `msg="requested capabilities not granted" guest=fetch missing="net \"*:*\" (tool fetch)"`) {
		t.Errorf("serve did not log the ungranted request:\n%s", s2.stderr)
	}
}

// A bad config line is answered precisely and nothing is served.
func TestServeBadConfig(t *testing.T) {
	cfg := writeConfig(t, `{"guests": [{"path": "x.wasm", "grants": {"nett": []}}]}`)
	cmd := exec.Command(binPath, "serve", "--config", cfg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != ExitLoad {
		t.Errorf("exit code %d (%v), want %d", code, err, ExitLoad)
	}
	if want := fmt.Sprintf("mcpwasm serve: %s: line 1 column 43: unknown key \"nett\" in guests[0].grants (did you mean \"net\"?)\n", cfg); stderr.String() != want {
		t.Errorf("stderr %q\nwant %q", stderr.String(), want)
	}
}

// inspect --config shows requested vs granted vs effective (golden).
func TestInspectGolden(t *testing.T) {
	wasm := fetchWasm(t)
	cfg := writeConfig(t, fmt.Sprintf(`{"guests": [{"path": %q, "grants": {"env": ["LANG"], "clock": true}}]}`, wasm))
	cmd := exec.Command(binPath, "inspect", "--cache-dir", cacheDir, "--config", cfg, wasm)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspect: %v", err)
	}
	// The module's path, size and hash depend on the toolchain; the rest is the contract.
	got := regexp.MustCompile(`source: .* \(\d+ bytes, sha256 [0-9a-f]{64}\)`).ReplaceAllString(string(out), "source: fetch.wasm (SIZE bytes, sha256 SHA)")
	golden := filepath.Join("testdata", "inspect-fetch.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("inspect output (-want +got):\n%s", diff)
	}
}

// A tool whose description hides a zero-width space: inspect says serve would withhold it,
// and serve neither lists nor counts it.
func TestHiddenTextWithheld(t *testing.T) {
	poisoned := bytes.Replace(wat.Echo, []byte("Returns its arguments"), []byte("Returns\u200bits argumen"), 1)
	path := filepath.Join(t.TempDir(), "poisoned.wasm")
	if err := os.WriteFile(path, poisoned, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binPath, "inspect", "--cache-dir", cacheDir, path).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := `    WITHHELD by serve unless the config sets allow_hidden_text: tool "echo": description contains hidden character U+200B`; !strings.Contains(string(out), want+"\n") {
		t.Errorf("inspect output lacks %q:\n%s", want, out)
	}
	s := startServer(t, path)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if l := s.recv(); l != `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}` && !strings.Contains(l, `"tools":[]`) {
		t.Errorf("tools/list: %s", l)
	}
	if !strings.Contains(s.stderr.String(), "guests=echo tools=0") {
		t.Errorf("startup line does not count 0 tools:\n%s", s.stderr)
	}
}

var askGuest struct {
	once sync.Once
	path string
	err  error
}

// askWasm builds guests/ask once per test binary.
func askWasm(t *testing.T) string {
	t.Helper()
	askGuest.once.Do(func() {
		askGuest.path = filepath.Join(filepath.Dir(binPath), "ask.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", askGuest.path, "../../guests/ask")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			askGuest.err = fmt.Errorf("building guests/ask: %v\n%s", err, b)
		}
	})
	if askGuest.err != nil {
		t.Fatal(askGuest.err)
	}
	return askGuest.path
}
