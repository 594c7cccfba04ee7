package mcpserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawConn dials the test server; the test's raw HTTP/1.1 requests go through it.
func rawConn(t *testing.T, ts *httptest.Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readAnswer reads what the server sends on c until it closes the connection, within
// limit (a generous bound: the events awaited happen in milliseconds).
func readAnswer(t *testing.T, c net.Conn, limit time.Duration) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(limit))
	b, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server did not close the connection within %v (read %q)", limit, b)
	}
	return string(b) // up to a FIN, or a reset when the server closed with our bytes unread
}

// TestHTTPBodyTimeout: a client that sends its headers and then trickles the body (one byte
// every 10 ms of a 1 MB body), or sends part of it and stops, is cut at the body timeout:
// 400 naming the timeout, connection closed. Before, it held the connection for as long as
// it kept trickling.
func TestHTTPBodyTimeout(t *testing.T) {
	ts, _ := httpServer(t, &mcpserver.HTTPOptions{BodyTimeout: 200 * time.Millisecond})
	id := initSession(t, ts.URL)
	for _, tc := range []struct {
		name, session string
		trickle       bool
		want          string
	}{
		// Without a session: sessionGate reads the body and names the timeout.
		{"trickle", "", true, "request body not received within the body timeout (200ms)"},
		// In a session: the SDK reads it (its own message).
		{"stall in session", id, false, "failed to read body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rawConn(t, ts)
			hdr := "POST /mcp HTTP/1.1\r\nHost: " + ts.Listener.Addr().String() + "\r\nContent-Type: application/json\r\n" +
				"Accept: application/json, text/event-stream\r\nContent-Length: 1000000\r\n"
			if tc.session != "" {
				hdr += "Mcp-Session-Id: " + tc.session + "\r\nMCP-Protocol-Version: 2025-11-25\r\n"
			}
			if _, err := io.WriteString(c, hdr+"\r\n{\"jsonrpc\":"); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			defer close(stop)
			if tc.trickle {
				go func() {
					tick := time.NewTicker(10 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-stop:
							return
						case <-tick.C:
						}
						if _, err := c.Write([]byte(" ")); err != nil {
							return // cut
						}
					}
				}()
			}
			got := readAnswer(t, c, 10*time.Second)
			if !strings.HasPrefix(got, "HTTP/1.1 400 ") || !strings.Contains(got, tc.want) {
				t.Errorf("answer %q: want 400 with %q", got, tc.want)
			}
		})
	}
}

// TestHTTPBodyTimeoutSparesLongAnswers: the body timeout ends when the body has arrived; a
// tool call that runs longer than it is answered, and a GET stream open longer than it
// still delivers notifications. (A read deadline left on the connection would cancel both:
// net/http cancels a request whose connection read fails.) The tool's run and the wait on
// the stream are time-based on purpose: they must outlast the 100 ms timeout, and do so by 5x.
func TestHTTPBodyTimeoutSparesLongAnswers(t *testing.T) {
	const bodyTimeout = 100 * time.Millisecond
	ts, s := httpServer(t, &mcpserver.HTTPOptions{BodyTimeout: bodyTimeout})
	mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(5 * bodyTimeout):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	id := initSession(t, ts.URL)
	events := openGET(t, ts.URL, id, http.StatusOK)
	resp, body := post(t, ts.URL, id, both, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"text":"done"`) {
		t.Fatalf("slow call: %s %q, want its result", resp.Status, body)
	}
	notify(t, s, id, "after the wait")
	waitEvent(t, events, "after the wait")
}

// openGET opens the session's standalone GET stream, checks its status, and returns its
// lines (the channel closes when the stream ends).
func openGET(t *testing.T, url, session string, want int) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("GET stream: %s %q, want %d", resp.Status, b, want)
	}
	lines := make(chan string, 1000)
	go func() {
		defer close(lines)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	return lines
}

// waitEvent reads lines until one contains want (bounded generously: it comes in ms).
func waitEvent(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the stream ended before %q", want)
			}
			if strings.Contains(l, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no %q on the stream within 20s", want)
		}
	}
}

// session returns the server session with the given id.
func session(t *testing.T, s *mcp.Server, id string) *mcp.ServerSession {
	t.Helper()
	for ss := range s.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	t.Fatalf("no session %s", id)
	return nil
}

// notify sends a progress notification, unrelated to any request, so it goes to the
// session's standalone GET stream.
func notify(t *testing.T, s *mcp.Server, id, msg string) {
	t.Helper()
	if err := session(t, s, id).NotifyProgress(context.Background(), &mcp.ProgressNotificationParams{ProgressToken: "p", Message: msg}); err != nil {
		t.Fatalf("notify %q: %v", msg, err)
	}
}

// rawGET opens the session's GET stream on a raw connection and reads its answer up to
// the first SSE comment; the caller then never reads from it again (a stream that died
// silently: a proxy or NAT in between lost it and sent no FIN).
func rawGET(t *testing.T, ts *httptest.Server, session string) net.Conn {
	t.Helper()
	c := rawConn(t, ts)
	fmt.Fprintf(c, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n",
		ts.Listener.Addr(), session)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	status, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200 ") {
		t.Fatalf("raw GET: %q %v", status, err)
	}
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("raw GET: %v", err)
		}
		if strings.HasPrefix(strings.TrimLeft(l, "0123456789abcdef\r\n"), ":") {
			return c
		}
	}
}

// TestHTTPGetStreamReplacesDead: a session's GET stream that died without the server
// noticing (the client stopped reading and never closed) does not lock the session out of
// listening: a new GET gets 200 and the notifications (before, 409 "stream ID conflicts
// with ongoing stream" for the session's whole life). The old connection is closed.
func TestHTTPGetStreamReplacesDead(t *testing.T) {
	ts, s := httpServer(t, &mcpserver.HTTPOptions{SSEKeepAlive: -1}) // no pings: replacement alone
	id := initSession(t, ts.URL)
	dead := rawGET(t, ts, id)
	events := openGET(t, ts.URL, id, http.StatusOK)
	notify(t, s, id, "to the new stream")
	waitEvent(t, events, "to the new stream")
	if got := readAnswer(t, dead, 20*time.Second); strings.Contains(got, "to the new stream") {
		t.Errorf("the replaced stream got the notification too: %q", got)
	}
	// And again: the newest stream always wins.
	events2 := openGET(t, ts.URL, id, http.StatusOK)
	notify(t, s, id, "to the third stream")
	waitEvent(t, events2, "to the third stream")
}

// TestHTTPGetStreamWriteTimeout: a GET stream whose client stopped reading while
// notifications flow (its socket buffers fill, the server's write blocks) is ended by the
// write deadline (the keep-alive interval) without any new GET: the notifications fail
// instead of blocking the session's sender forever, and a new GET then gets them.
func TestHTTPGetStreamWriteTimeout(t *testing.T) {
	ts, s := httpServer(t, &mcpserver.HTTPOptions{SSEKeepAlive: 200 * time.Millisecond})
	id := initSession(t, ts.URL)
	rawGET(t, ts, id) // never read again
	ss := session(t, s, id)
	big := strings.Repeat("x", 1<<20)
	sent := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			// Loopback socket buffers hold a few MiB: a write blocks long before 256 MiB.
			if i == 256 {
				sent <- nil
				return
			}
			if err := ss.NotifyProgress(context.Background(), &mcp.ProgressNotificationParams{ProgressToken: "p", Message: big}); err != nil {
				sent <- err
				return
			}
		}
	}()
	select {
	case err := <-sent:
		if err == nil {
			t.Fatal("256 MiB of notifications were all written to a client that reads nothing")
		}
	case <-time.After(30 * time.Second): // generous: the deadline is 200 ms
		t.Fatal("a notification to a stream whose client stopped reading was still blocked after 30s")
	}
	events := openGET(t, ts.URL, id, http.StatusOK)
	notify(t, s, id, "after the timeout")
	waitEvent(t, events, "after the timeout")
}

// TestHTTPGetStreamKeepAlive: an idle GET stream gets an SSE comment every keep-alive
// interval, so proxies that cut idle connections leave it open.
func TestHTTPGetStreamKeepAlive(t *testing.T) {
	ts, _ := httpServer(t, &mcpserver.HTTPOptions{SSEKeepAlive: 50 * time.Millisecond})
	id := initSession(t, ts.URL)
	events := openGET(t, ts.URL, id, http.StatusOK)
	waitEvent(t, events, ": ping")
	waitEvent(t, events, ": ping") // and again
}
