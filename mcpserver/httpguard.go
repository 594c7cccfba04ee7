package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"sync"
	"time"
)

// DefaultBodyTimeout is how long a request body may take to arrive, once its headers are
// in, when HTTPOptions.BodyTimeout is zero.
const DefaultBodyTimeout = 30 * time.Second

// DefaultSSEKeepAlive is the interval of keep-alive comments on a GET stream, and the time a
// write to it may take, when HTTPOptions.SSEKeepAlive is zero.
const DefaultSSEKeepAlive = 30 * time.Second

// bodyDeadline bounds the time a request's body takes to arrive: a client that sends its
// headers and then trickles the body (or stops) is cut after d, its read failing with a
// timeout (the handler answers 400, with "Connection: close"). The deadline is a read
// deadline on the connection, set when the request starts; it ends when the body has been
// read to its end (net/http clears it then too, as it starts watching the connection for the
// client leaving — a deadline left there would cancel long answers: an SSE response, a long
// tool call). A request without a body (a GET stream) gets none: net/http is already
// watching its connection, and the deadline would cut the stream.
func bodyDeadline(d time.Duration, next http.Handler) http.Handler {
	if d <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(d)) != nil {
			next.ServeHTTP(w, r) // a writer without a connection (a test recorder)
			return
		}
		// A shallow copy: net/http looks at the original's Body after the handler (to close
		// a connection whose body was left unread).
		r = r.WithContext(r.Context())
		r.Body = &deadlineBody{ReadCloser: r.Body, w: w, rc: rc, timeout: d}
		next.ServeHTTP(w, r)
	})
}

type deadlineBody struct {
	io.ReadCloser
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	cleared bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF && !b.cleared:
		b.cleared = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The rest of the body may still come: the connection cannot carry another request.
		b.w.Header().Set("Connection", "close")
		err = fmt.Errorf("request body not received within the body timeout (%v): %w", b.timeout, err)
	}
	return n, err
}

// standaloneStreams sits before the SDK's stateful handler and owns a session's standalone
// GET stream (MCP "Transports › Listening for Messages from the Server"):
//
//   - A new GET for a session replaces the stream it has: the old one is ended (its request
//     cancelled and its connection's writes cut) before the new one reaches the SDK. The SDK
//     alone answers a second GET with 409 for as long as the first one's request lives, and
//     a stream that died behind a proxy or NAT without a FIN lives for the session's life —
//     so its client could never listen again. The spec allows a client several streams; the
//     server sends each message on one of them, so one stream per session, the newest, is
//     what it keeps.
//   - Every keepAlive, an SSE comment (": ping") is written to the stream, so proxies that cut
//     idle connections leave it alone; and every write to it (events and pings) must finish
//     within keepAlive, else the stream is ended: a client that stopped reading does not
//     hold the session's outgoing messages.
//
// Replays (GET with Last-Event-ID) are passed through untouched: they need an event store,
// which the handler does not configure (the SDK answers them 400).
type standaloneStreams struct {
	next      http.Handler
	keepAlive time.Duration // <= 0: no pings, no write deadline

	mu   sync.Mutex
	live map[string]*getStream // by Mcp-Session-Id
}

func (g *standaloneStreams) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if r.Method != http.MethodGet || sid == "" || len(r.Header.Values("Last-Event-ID")) > 0 {
		g.next.ServeHTTP(w, r)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	s := &getStream{ResponseWriter: w, rc: http.NewResponseController(w), timeout: g.keepAlive,
		cancel: cancel, done: make(chan struct{})}
	g.mu.Lock()
	if g.live == nil {
		g.live = map[string]*getStream{}
	}
	old := g.live[sid]
	g.live[sid] = s
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		if g.live[sid] == s {
			delete(g.live, sid)
		}
		g.mu.Unlock()
		close(s.done)
	}()
	if old != nil {
		old.kill()
		select {
		case <-old.done: // the SDK has released the session's stream
		case <-ctx.Done():
			s.finish()
			return
		}
	}
	stop, pinged := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(pinged)
		s.ping(stop)
	}()
	defer func() { // before the stream leaves the map: no write after the handler returns
		close(stop)
		<-pinged
		s.finish()
	}()
	g.next.ServeHTTP(s, r.WithContext(ctx))
}

// getStream is the ResponseWriter of one GET stream: the SDK's writes and the pings are
// serialized, each under a write deadline; a failed write ends the stream.
type getStream struct {
	http.ResponseWriter
	rc      *http.ResponseController // of the connection's writer
	timeout time.Duration
	cancel  context.CancelFunc // ends the request the SDK serves
	done    chan struct{}      // closed when the handler has returned

	wmu sync.Mutex // serializes writes

	mu      sync.Mutex
	state   int  // streamRunning, streamKilled, streamFinished
	started bool // a 200 text/event-stream answer is under way: pings may be written
}

const (
	streamRunning = iota
	streamKilled
	streamFinished
)

var errStreamEnded = errors.New("GET stream ended: replaced by a newer GET of the session, or a write timed out")

// kill ends the stream: its request is cancelled and a write blocked on a client that does
// not read fails at once. Safe from any goroutine, any number of times.
func (s *getStream) kill() {
	s.mu.Lock()
	if s.state == streamRunning {
		s.state = streamKilled
		_ = s.rc.SetWriteDeadline(time.Now())
	}
	s.mu.Unlock()
	s.cancel()
}

// finish marks the handler as returned: the connection is no longer the stream's to touch.
func (s *getStream) finish() {
	s.mu.Lock()
	if s.state == streamRunning {
		s.state = streamFinished
	}
	s.mu.Unlock()
}

func (s *getStream) write(fn func() error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	if s.state != streamRunning {
		s.mu.Unlock()
		return errStreamEnded
	}
	if s.timeout > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	}
	s.mu.Unlock()
	if err := fn(); err != nil {
		s.kill()
		return err
	}
	s.mu.Lock()
	if s.state == streamRunning && s.timeout > 0 {
		_ = s.rc.SetWriteDeadline(time.Time{})
	}
	s.mu.Unlock()
	return nil
}

func (s *getStream) WriteHeader(code int) {
	s.mu.Lock()
	if mt, _, _ := mime.ParseMediaType(s.Header().Get("Content-Type")); code == http.StatusOK && mt == "text/event-stream" {
		s.started = true
	}
	s.mu.Unlock()
	s.ResponseWriter.WriteHeader(code)
}

func (s *getStream) Write(p []byte) (int, error) {
	s.mu.Lock()
	if mt, _, _ := mime.ParseMediaType(s.Header().Get("Content-Type")); mt == "text/event-stream" {
		s.started = true // an implicit 200
	}
	s.mu.Unlock()
	var n int
	err := s.write(func() error {
		var err error
		n, err = s.ResponseWriter.Write(p)
		return err
	})
	return n, err
}

// FlushError is what http.ResponseController.Flush calls (the SDK flushes every event).
func (s *getStream) FlushError() error {
	return s.write(s.flush)
}

// Flush is http.Flusher, for code that asserts it rather than using a ResponseController.
func (s *getStream) Flush() { _ = s.FlushError() }

// flush flushes the connection's writer; one that cannot flush is no failure of the stream.
func (s *getStream) flush() error {
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// ping writes a keep-alive comment every s.timeout until stop is closed or a write fails.
func (s *getStream) ping(stop <-chan struct{}) {
	if s.timeout <= 0 {
		return
	}
	t := time.NewTicker(s.timeout)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		started := s.started
		s.mu.Unlock()
		if !started {
			continue
		}
		if s.write(func() error {
			if _, err := io.WriteString(s.ResponseWriter, ": ping\n\n"); err != nil {
				return err
			}
			return s.flush()
		}) != nil {
			return
		}
	}
}
