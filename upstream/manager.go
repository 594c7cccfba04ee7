package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/stdio"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Backoff between restarts of a server that keeps failing: the first restart after a crash is
// immediate, then 100 ms, doubling up to maxBackoff. A session that lived stableAfter resets
// it.
const (
	minBackoff  = 100 * time.Millisecond
	maxBackoff  = 30 * time.Second
	stableAfter = 10 * time.Second
)

// Manager holds the upstream MCP servers of a configuration, by name. Each is started on
// first use, restarted (after backoff) on the next use after it crashed or closed its end, and
// closed by Close. It implements peer.Upstreams. It is safe for concurrent use; concurrent
// first uses of one server share one start.
type Manager struct {
	opts Options

	mu      sync.Mutex
	servers map[string]*server
	closed  bool
}

// server is one named upstream and its current session.
type server struct {
	name string
	spec Spec

	lock chan struct{} // held while starting; a channel so waiting honours ctx

	mu        sync.Mutex
	sess      *Session
	started   time.Time
	failures  int
	nextTry   time.Time
	connected bool     // a session existed before: the next one is a restart
	onChange  []func() // its lists may have changed: list_changed, or a restart
	onUpdated []func(context.Context, *mcp.ResourceUpdatedNotificationParams)
}

var _ peer.Upstreams = (*Manager)(nil)

// NewManager returns a Manager for specs (name → how to reach the server). Nothing starts
// until first use. opts is copied; nil means defaults.
func NewManager(specs map[string]Spec, opts *Options) *Manager {
	m := &Manager{opts: opts.withDefaults(), servers: map[string]*server{}}
	for name, s := range specs {
		m.servers[name] = &server{name: name, spec: s, lock: make(chan struct{}, 1)}
	}
	return m
}

// Names returns the configured server names, sorted.
func (m *Manager) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.servers))
	for n := range m.servers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// OnListChanged registers f to run when server name's tools, prompts, resources or resource
// templates may have changed: it sent notifications/tools/list_changed,
// notifications/prompts/list_changed or notifications/resources/list_changed, or it was
// restarted. f runs on its own goroutine.
func (m *Manager) OnListChanged(name string, f func()) {
	if s := m.server(name); s != nil {
		s.mu.Lock()
		s.onChange = append(s.onChange, f)
		s.mu.Unlock()
	}
}

// OnResourceUpdated registers f to run on each notifications/resources/updated from server
// name (MCP "Server Features › Resources › Subscriptions"), on the SDK's notification
// goroutine: f must not block.
func (m *Manager) OnResourceUpdated(name string, f func(context.Context, *mcp.ResourceUpdatedNotificationParams)) {
	if s := m.server(name); s != nil {
		s.mu.Lock()
		s.onUpdated = append(s.onUpdated, f)
		s.mu.Unlock()
	}
}

func (m *Manager) server(name string) *server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.servers[name]
}

func (s *server) updated(ctx context.Context, p *mcp.ResourceUpdatedNotificationParams) {
	s.mu.Lock()
	fs := slices.Clone(s.onUpdated)
	s.mu.Unlock()
	for _, f := range fs {
		f(ctx, p)
	}
}

func (s *server) changed() {
	s.mu.Lock()
	fs := slices.Clone(s.onChange)
	s.mu.Unlock()
	for _, f := range fs {
		go f()
	}
}

// Session returns a live session to server name, starting (or restarting) it if needed. Errors
// wrap peer.ErrUnknownUpstream or peer.ErrUpstreamUnavailable.
func (m *Manager) Session(ctx context.Context, name string) (*Session, error) {
	m.mu.Lock()
	s, closed := m.servers[name], m.closed
	m.mu.Unlock()
	switch {
	case s == nil:
		return nil, fmt.Errorf("upstream %q: %w", name, peer.ErrUnknownUpstream)
	case closed:
		return nil, fmt.Errorf("upstream %q: %w: shutting down", name, peer.ErrUpstreamUnavailable)
	}
	if sess := s.current(); sess != nil {
		return sess, nil
	}
	select {
	case s.lock <- struct{}{}:
		defer func() { <-s.lock }()
	case <-ctx.Done():
		return nil, fmt.Errorf("upstream %q: waiting for start: %w", name, ctx.Err())
	}
	if sess := s.current(); sess != nil {
		return sess, nil // another caller started it
	}
	s.mu.Lock()
	wait := time.Until(s.nextTry)
	s.mu.Unlock()
	if wait > 0 {
		m.opts.Logger.Info("upstream: waiting before restart", "upstream", name, "backoff", wait)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("upstream %q: waiting %v before restarting: %w", name, wait, ctx.Err())
		}
	}
	sess, err := Dial(ctx, s.spec, m.sessionOptions(s))
	s.mu.Lock()
	if err != nil {
		s.failures++
		s.nextTry = time.Now().Add(backoff(s.failures))
		s.mu.Unlock()
		m.opts.Logger.Warn("upstream: start failed", "upstream", name, "err", err)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("upstream %q: %w", name, err)
		}
		return nil, fmt.Errorf("upstream %q: %w: %w", name, peer.ErrUpstreamUnavailable, err)
	}
	restart := s.connected
	s.sess, s.started, s.connected = sess, time.Now(), true
	s.mu.Unlock()
	m.mu.Lock()
	closed = m.closed
	m.mu.Unlock()
	if closed {
		_ = sess.Close()
		return nil, fmt.Errorf("upstream %q: %w: shutting down", name, peer.ErrUpstreamUnavailable)
	}
	m.opts.Logger.Info("upstream: started", "upstream", name, "server", s.spec.String(), "restart", restart)
	go m.watch(s, sess)
	if restart {
		if m.opts.OnRestart != nil {
			m.opts.OnRestart(name)
		}
		s.changed()
	}
	return sess, nil
}

func (s *server) current() *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

// watch notices when a session ends (the server exited or closed its end) and schedules the
// restart's backoff.
func (m *Manager) watch(s *server, sess *Session) {
	err := sess.Wait()
	s.mu.Lock()
	if s.sess != sess {
		s.mu.Unlock()
		return
	}
	s.sess = nil
	if time.Since(s.started) < stableAfter {
		s.failures++
		s.nextTry = time.Now().Add(backoff(s.failures - 1))
	} else {
		s.failures, s.nextTry = 0, time.Time{}
	}
	s.mu.Unlock()
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if !closed {
		m.opts.Logger.Warn("upstream: session ended; restarting on next use", "upstream", s.name, "err", err)
	}
	_ = sess.Close() // reap the process
}

// backoff returns the wait before restart number n of a failing server: 0 for n ≤ 0, then
// minBackoff doubling up to maxBackoff.
func backoff(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	d := minBackoff
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// sessionOptions are m's options with server s's notification handlers and stderr logger.
func (m *Manager) sessionOptions(s *server) *Options {
	o := m.opts
	var co mcp.ClientOptions
	if o.Client != nil {
		co = *o.Client
	}
	user := co.ToolListChangedHandler
	co.ToolListChangedHandler = func(ctx context.Context, req *mcp.ToolListChangedRequest) {
		if user != nil {
			user(ctx, req)
		}
		s.changed()
	}
	userPrompts, userResources, userUpdated := co.PromptListChangedHandler, co.ResourceListChangedHandler, co.ResourceUpdatedHandler
	co.PromptListChangedHandler = func(ctx context.Context, req *mcp.PromptListChangedRequest) {
		if userPrompts != nil {
			userPrompts(ctx, req)
		}
		s.changed()
	}
	co.ResourceListChangedHandler = func(ctx context.Context, req *mcp.ResourceListChangedRequest) {
		if userResources != nil {
			userResources(ctx, req)
		}
		s.changed()
	}
	co.ResourceUpdatedHandler = func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		if userUpdated != nil {
			userUpdated(ctx, req)
		}
		s.updated(ctx, req.Params)
	}
	o.Client = &co
	o.Logger = o.Logger.With("upstream", s.name)
	if o.Stderr == nil {
		o.Stderr = &lineLogger{logger: o.Logger}
	}
	return &o
}

// ListTools implements peer.Upstreams: {"tools": [...]} with every tool of server.
func (m *Manager) ListTools(ctx context.Context, server string) ([]byte, error) {
	sess, err := m.Session(ctx, server)
	if err != nil {
		return nil, err
	}
	tools, err := sess.AllTools(ctx)
	if err != nil {
		return nil, callError(server, "tools/list", err)
	}
	if tools == nil {
		tools = []*mcp.Tool{}
	}
	return json.Marshal(struct {
		Tools []*mcp.Tool `json:"tools"`
	}{tools})
}

// CallTool implements peer.Upstreams: the server's CallToolResult JSON. A call is never
// retried (it may have side effects); a crashed server is restarted on the next use.
func (m *Manager) CallTool(ctx context.Context, server, tool string, args []byte) ([]byte, error) {
	sess, err := m.Session(ctx, server)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		args = []byte("{}")
	}
	res, err := sess.CallToolExact(ctx, tool, json.RawMessage(args), "", nil)
	if err != nil {
		return nil, callError(server, fmt.Sprintf("tool %q", tool), err)
	}
	return res.Raw, nil // as the server sent it: no number rounded (exact.go)
}

// callError names the server and what failed. A connection that is gone — closed, at EOF, or
// a write to a server process that just exited (EPIPE) — makes the server unavailable (the
// next use restarts it), not a failed call.
func callError(server, what string, err error) error {
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed) || errors.Is(err, stdio.ErrClosed) {
		return fmt.Errorf("upstream %q %s: %w: %w", server, what, peer.ErrUpstreamUnavailable, err)
	}
	return fmt.Errorf("upstream %q %s: %w", server, what, err)
}

// Close closes every running session (stdio servers are shut down) and makes later uses fail.
// Close is idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	servers := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		servers = append(servers, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(servers))
	for i, s := range servers {
		s.mu.Lock()
		sess := s.sess
		s.sess = nil
		s.mu.Unlock()
		if sess != nil {
			wg.Go(func() {
				if err := sess.Close(); err != nil {
					errs[i] = fmt.Errorf("upstream %q: %w", s.name, err)
				}
			})
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// lineLogger logs a server's stderr line by line.
type lineLogger struct {
	logger *slog.Logger
	mu     sync.Mutex
	buf    []byte
}

func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := slices.Index(l.buf, '\n')
		if i < 0 {
			break
		}
		if line := string(l.buf[:i]); line != "" {
			l.logger.Info("upstream stderr", "line", line)
		}
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > 64<<10 { // a line without end: log what we have
		l.logger.Info("upstream stderr", "line", string(l.buf))
		l.buf = l.buf[:0]
	}
	return len(p), nil
}
