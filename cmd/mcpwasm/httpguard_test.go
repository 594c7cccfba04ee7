package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestServeHTTPPublicWithoutToken: serve --http on an address other hosts can reach, without
// a bearer token, is refused before anything is loaded or bound — one line naming the
// address, the token variable and the override, exit ExitPublicNoToken. Before, it served
// every tool (exec and fs grants included) to anyone who could connect.
func TestServeHTTPPublicWithoutToken(t *testing.T) {
	t.Setenv("MCPWASM_HTTP_TOKEN", "")
	var stdout, stderr bytes.Buffer
	// 192.0.2.1 (TEST-NET-1) is no address of this machine: were the refusal missing, the
	// bind would fail (exit 1) instead of opening a port.
	code := run(context.Background(), []string{"serve", "--http", "192.0.2.1:8080", fixturePath}, strings.NewReader(""), &stdout, &stderr)
	want := "mcpwasm serve: refusing to serve --http 192.0.2.1:8080 without a bearer token: every tool would be open to anyone who can connect; " +
		"set a token in $MCPWASM_HTTP_TOKEN (--token-env names the variable), or pass --allow-public-without-token if that is meant\n"
	if code != ExitPublicNoToken || stderr.String() != want {
		t.Errorf("exit %d, stderr %q\nwant exit %d, stderr %q", code, stderr.String(), ExitPublicNoToken, want)
	}

	for _, tc := range []struct {
		addr, token string
		allow, ok   bool
	}{
		{"0.0.0.0:8080", "", false, false},
		{"[::]:8080", "", false, false},
		{"192.168.1.10:8080", "", false, false},
		{"[::ffff:10.0.0.1]:80", "", false, false},
		{"mcp.example.com:80", "", false, false}, // a host name is not resolved: public
		{"0.0.0.0:8080", "secret", false, true},  // a token
		{"0.0.0.0:8080", "", true, true},         // --allow-public-without-token
		{":8080", "", false, true},               // serveHTTP binds 127.0.0.1
		{"127.0.0.1:8080", "", false, true},
		{"127.0.0.2:8080", "", false, true},
		{"[::1]:8080", "", false, true},
		{"[::ffff:127.0.0.1]:8080", "", false, true},
		{"localhost:8080", "", false, true},
		{"LOCALHOST.:8080", "", false, true},
	} {
		err := checkPublicHTTP(tc.addr, tc.token, "MCPWASM_HTTP_TOKEN", tc.allow)
		if (err == nil) != tc.ok {
			t.Errorf("--http %s token=%q allow=%v: %v, want allowed=%v", tc.addr, tc.token, tc.allow, err, tc.ok)
		}
	}
	if err := checkPublicHTTP("0.0.0.0:1", "", "", false); err == nil || !strings.Contains(err.Error(), "name a token variable with --token-env") {
		t.Errorf("--token-env '': %v", err)
	}
}

// guardedServer serves a handler answering "ok" the way serve --http does (g's server and
// listener) on 127.0.0.1; the log goes to the returned buffer.
func guardedServer(t *testing.T, g *httpGuard) (addr string, log *lockedBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	log = &lockedBuffer{}
	hsrv := g.server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	done := make(chan struct{})
	go func() { defer close(done); _ = hsrv.Serve(g.listener(ln, slog.New(slog.NewTextHandler(log, nil)))) }()
	t.Cleanup(func() { hsrv.Close(); <-done })
	return ln.Addr().String(), log
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin reads c until the server closes it (a FIN, or a reset when it closes with our
// bytes unread); the bound is generous (the timeouts under test are 200 ms).
func closedWithin(t *testing.T, c net.Conn, limit time.Duration) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(limit))
	b, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the connection was still open after %v (read %q)", limit, b)
	}
	return string(b)
}

// TestHTTPHeaderTimeout: a client trickling its request headers (a byte every 10 ms, never
// ending them) is cut at --header-timeout.
func TestHTTPHeaderTimeout(t *testing.T) {
	addr, _ := guardedServer(t, &httpGuard{headerTimeout: 200 * time.Millisecond})
	c := dial(t, addr)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := c.Write([]byte("a")); err != nil {
				return
			}
		}
	}()
	if got := closedWithin(t, c, 10*time.Second); strings.Contains(got, "200 OK") {
		t.Errorf("trickled headers were answered: %q", got)
	}
}

// TestHTTPConnIdleTimeout: a keep-alive connection left idle after its request is closed
// at --conn-idle-timeout (before, it was held forever: no IdleTimeout nor ReadTimeout).
func TestHTTPConnIdleTimeout(t *testing.T) {
	addr, _ := guardedServer(t, &httpGuard{headerTimeout: 10 * time.Second, connIdle: 200 * time.Millisecond})
	c := dial(t, addr)
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if got := closedWithin(t, c, 10*time.Second); !strings.HasPrefix(got, "HTTP/1.1 200 OK") {
		t.Errorf("answer %q", got)
	}
}

// TestHTTPMaxConns: at --max-conns open connections, a further one waits (the cap is logged)
// and is served as soon as one closes; no connection beyond the cap is ever served at once.
func TestHTTPMaxConns(t *testing.T) {
	addr, log := guardedServer(t, &httpGuard{headerTimeout: 10 * time.Second, maxConns: 2})
	a, b := dial(t, addr), dial(t, addr)
	for _, c := range []net.Conn{a, b} { // both accepted and served: the slots are taken
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 1)
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Read(buf); err != nil {
			t.Fatalf("a connection under the cap was not served: %v", err)
		}
	}
	c := dial(t, addr)
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, log, "the connection cap warning", func(out string) bool {
		return strings.Contains(out, "connection cap reached") && strings.Contains(out, "max_conns=2")
	})
	// Waiting, not served: a read now would time out (checked without waiting: nothing has
	// arrived while the cap was reached and no slot has freed).
	_ = c.SetReadDeadline(time.Now())
	if n, err := c.Read(make([]byte, 1)); n != 0 || !errors.Is(err, errDeadline(err)) {
		t.Fatalf("the connection beyond the cap was served at once (n=%d, %v)", n, err)
	}
	a.Close()
	if got := closedWithin(t, c, 10*time.Second); !strings.HasPrefix(got, "HTTP/1.1 200 OK") {
		t.Errorf("the waiting connection, once a slot freed: %q", got)
	}
}

// errDeadline returns err if it is a timeout (so errors.Is matches), else a sentinel.
func errDeadline(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	return errors.New("not a timeout")
}

// TestServeHTTPBodyTimeoutFlag: serve --http passes --body-timeout to the handler: a body
// that stalls after its headers is answered 400 naming the timeout, and the connection closed.
func TestServeHTTPBodyTimeoutFlag(t *testing.T) {
	s := startServer(t, "--http", "127.0.0.1:0", "--body-timeout", "200ms", fixturePath)
	var addr string
	waitOutput(t, s.stderr, "the HTTP server to listen", func(out string) bool {
		if _, rest, ok := strings.Cut(out, "transport=http addr="); ok {
			addr, _, _ = strings.Cut(rest, " ")
		}
		return addr != ""
	})
	c := dial(t, addr)
	if _, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	got := closedWithin(t, c, 10*time.Second)
	if !strings.HasPrefix(got, "HTTP/1.1 400 ") || !strings.Contains(got, "request body not received within the body timeout (200ms)") {
		t.Errorf("answer %q", got)
	}
}
