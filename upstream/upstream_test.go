package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/internal/stdio"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// syncBuffer collects logs or stderr written from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testOptions are quick options for fake servers, logging into logs.
func testOptions(logs *syncBuffer) *Options {
	return &Options{
		Logger:          slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		DiscoverTimeout: 200 * time.Millisecond,
		ConnectTimeout:  10 * time.Second,
		TerminateGrace:  time.Second,
		Stderr:          logs,
	}
}

func dial(t *testing.T, spec Spec, opts *Options) *Session {
	t.Helper()
	s, err := Dial(context.Background(), spec, opts)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func toolNames(tools []*mcp.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return names
}

func callText(t *testing.T, s *Session, tool string, args any) string {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("CallTool(%s): %d content blocks", tool, len(res.Content))
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// A go-sdk server answers server/discover: the session speaks the newest protocol.
func TestDialSDKServer(t *testing.T) {
	logs := &syncBuffer{}
	o := testOptions(logs)
	// This server answers server/discover, so a long probe deadline costs nothing; the short
	// default of testOptions made the test fail on a loaded machine, where starting the
	// child can take longer than that.
	o.DiscoverTimeout = 10 * time.Second
	s := dial(t, fake(t, "sdk"), o)
	if got, want := s.InitializeResult().ProtocolVersion, mcp.SupportedProtocolVersions()[0]; got != want {
		t.Errorf("protocol version = %q, want %q", got, want)
	}
	tools, err := s.AllTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"add", "echo"}, toolNames(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if got := callText(t, s, "echo", map[string]any{"text": "hi"}); got != "hi" {
		t.Errorf("echo = %q, want hi", got)
	}
	if got := callText(t, s, "add", map[string]any{"a": 1, "b": 2}); got != "3" {
		t.Errorf("add = %q, want 3", got)
	}
	if ts, err := s.AllResourceTemplates(context.Background()); err != nil || len(ts) != 1 || ts[0].URITemplate != "docs://{id}" {
		t.Errorf("AllResourceTemplates = %v, %v; want docs://{id}", ts, err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A server that never answers server/discover gets a plain initialize once DiscoverTimeout
// passes, and the session speaks the newest legacy version.
func TestSilentDiscoverFallsBackToInitialize(t *testing.T) {
	logs := &syncBuffer{}
	start := time.Now()
	s := dial(t, fake(t), testOptions(logs))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Dial took %v", d)
	}
	if got := s.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Errorf("protocol version = %q, want 2025-11-25", got)
	}
	if got := callText(t, s, "echo", map[string]any{"text": "legacy"}); got != "legacy" {
		t.Errorf("echo = %q", got)
	}
}

// Non-JSON lines and replies to ids never sent are logged and skipped; the session goes on.
func TestNoiseIsSkipped(t *testing.T) {
	logs := &syncBuffer{}
	s := dial(t, fake(t, "noise"), testOptions(logs))
	tools, err := s.AllTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"echo"}, toolNames(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for i := range 3 {
		if got := callText(t, s, "echo", map[string]any{"text": "hi"}); got != "hi" {
			t.Errorf("call %d: echo = %q, want hi", i, got)
		}
	}
	if !strings.Contains(logs.String(), "stdio: rejecting line") {
		t.Errorf("non-JSON line not logged:\n%s", logs)
	}
}

// A 5 MiB reply line arrives whole (the SDK's own CommandTransport stops at 16 MiB; ours has
// no cap by default).
func TestLargeReply(t *testing.T) {
	logs := &syncBuffer{}
	s := dial(t, fake(t), testOptions(logs))
	const n = 5 << 20
	got := callText(t, s, "echo", map[string]any{"bytes": n})
	if len(got) != n || strings.Trim(got, "x") != "" {
		t.Errorf("reply text: %d bytes, want %d x's", len(got), n)
	}
}

// A server that sends a cursor twice ends the walk; entries are de-duplicated.
func TestRepeatedCursor(t *testing.T) {
	logs := &syncBuffer{}
	s := dial(t, fake(t, "cursor"), testOptions(logs))
	tools, err := s.AllTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, toolNames(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for _, want := range []string{"server repeated a cursor", "duplicate list entry dropped"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

// A server that paginates forever is cut at the page cap.
func TestPageCap(t *testing.T) {
	logs := &syncBuffer{}
	o := testOptions(logs)
	o.MaxPages = 3
	s := dial(t, fake(t, "endless"), o)
	tools, err := s.AllTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"t1", "t2", "t3"}, toolNames(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// A server that never answers initialize fails Dial at ConnectTimeout, and is shut down.
func TestConnectTimeout(t *testing.T) {
	logs := &syncBuffer{}
	o := testOptions(logs)
	o.ConnectTimeout = 700 * time.Millisecond
	start := time.Now()
	_, err := Dial(context.Background(), fake(t, "silent"), o)
	if !errors.Is(err, ErrConnectTimeout) {
		t.Fatalf("Dial error = %v, want ErrConnectTimeout", err)
	}
	if !strings.Contains(err.Error(), "no answer to initialize within 700ms") {
		t.Errorf("error = %q", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("Dial returned after %v", d)
	}
}

// A server answering a protocol version the SDK does not speak is a *VersionError.
func TestUnsupportedVersion(t *testing.T) {
	logs := &syncBuffer{}
	_, err := Dial(context.Background(), fake(t, "badversion"), testOptions(logs))
	var ve *VersionError
	if !errors.As(err, &ve) {
		t.Fatalf("Dial error = %v, want a *VersionError", err)
	}
	if ve.Version != "1999-01-01" {
		t.Errorf("Version = %q, want 1999-01-01", ve.Version)
	}
	if !strings.Contains(err.Error(), `server answered protocol version "1999-01-01", which this client does not support (supported: 2026-07-28, 2025-11-25`) {
		t.Errorf("error = %q", err)
	}
}

// A call whose context ends is cancelled on the wire before the session closes, and the
// server's late silence does not hang Close.
func TestCancelledCallNotifiesServer(t *testing.T) {
	logs := &syncBuffer{}
	s, err := Dial(context.Background(), fake(t, "slow"), testOptions(logs))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("CallTool error = %v, want DeadlineExceeded", err)
	}
	if err := s.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	// The fake ignores server/discover, so Dial reconnected: on the second connection
	// initialize is id 1 and tools/call id 2.
	if got := logs.String(); !strings.Contains(got, "cancelled 2\n") {
		t.Errorf("server did not see notifications/cancelled for the call:\n%s", got)
	}
}

func TestManager(t *testing.T) {
	logs := &syncBuffer{}
	o := testOptions(logs)
	m := NewManager(map[string]Spec{"docs": fake(t, "crash"), "sdk": fake(t, "sdk")}, o)
	defer m.Close()
	ctx := context.Background()
	if diff := cmp.Diff([]string{"docs", "sdk"}, m.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	if strings.Contains(logs.String(), "upstream: started") {
		t.Fatalf("a server started before first use:\n%s", logs)
	}
	list, err := m.ListTools(ctx, "sdk")
	if err != nil {
		t.Fatal(err)
	}
	var lr struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(list, &lr); err != nil || len(lr.Tools) != 2 || lr.Tools[0].Name != "add" || lr.Tools[1].Name != "echo" {
		t.Errorf("ListTools(sdk) = %s (%v)", list, err)
	}

	changed := make(chan struct{}, 4)
	m.OnListChanged("docs", func() { changed <- struct{}{} })
	for i := range 3 {
		// The crash server exits after each answer: every call after the first restarts it.
		out, err := m.CallTool(ctx, "docs", "echo", []byte(`{"text":"x"}`))
		for err != nil && errors.Is(err, peer.ErrUpstreamUnavailable) {
			// The process died between our liveness check and the call; the next use restarts.
			out, err = m.CallTool(ctx, "docs", "echo", []byte(`{"text":"x"}`))
		}
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		// The result as the fake server wrote it (CallToolExact), not re-encoded by the SDK.
		if want := `{"content":[{"text":"x","type":"text"}]}`; string(out) != want {
			t.Errorf("call %d = %s, want %s", i, out, want)
		}
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Error("OnListChanged not called after a restart")
	}
	if got := strings.Count(logs.String(), `upstream: started" upstream=docs`); got < 3 {
		t.Errorf("docs started %d times, want ≥ 3:\n%s", got, logs)
	}

	_, err = m.CallTool(ctx, "nope", "echo", nil)
	if !errors.Is(err, peer.ErrUnknownUpstream) || err.Error() != `upstream "nope": unknown upstream server` {
		t.Errorf("unknown server: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := m.ListTools(ctx, "sdk"); !errors.Is(err, peer.ErrUpstreamUnavailable) {
		t.Errorf("ListTools after Close: %v, want ErrUpstreamUnavailable", err)
	}
}

func TestBackoff(t *testing.T) {
	got := []time.Duration{backoff(0), backoff(1), backoff(2), backoff(3), backoff(20)}
	want := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, maxBackoff}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}
}

// A server gone between calls — closed, at EOF, or exited so that our write fails with EPIPE
// (it happened in CI: "write |1: broken pipe") — is unavailable, so the next use restarts it;
// any other error is the call's own.
func TestCallErrorClassifiesGoneServers(t *testing.T) {
	for _, tc := range []struct {
		err         error
		unavailable bool
	}{
		{fmt.Errorf("calling %q: %w", "tools/call", &os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}), true},
		{fmt.Errorf("%w: calling %q: x", mcp.ErrConnectionClosed, "tools/call"), true},
		{io.EOF, true},
		{stdio.ErrClosed, true},
		{errors.New("tool failed"), false},
	} {
		err := callError("docs", `tool "echo"`, tc.err)
		if got := errors.Is(err, peer.ErrUpstreamUnavailable); got != tc.unavailable {
			t.Errorf("callError(%v): unavailable = %v; want %v", tc.err, got, tc.unavailable)
		}
	}
}

// A server that is slow to answer server/discover at all (a loaded machine: the HTTP response
// comes late) is waited for: the probe's deadline counts a live server's silence, from its
// HTTP answer on, so the session speaks the newest protocol rather than falling back to a
// legacy initialize. The handler's delay only makes the server slow; the outcome does not
// depend on it (before, any delay over DiscoverTimeout fell back).
func TestSlowDiscoverIsWaitedFor(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"server/discover"`)) {
			time.Sleep(100 * time.Millisecond) // slow to answer, 100 times DiscoverTimeout
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	logs := &syncBuffer{}
	o := testOptions(logs)
	o.DiscoverTimeout = time.Millisecond
	s, err := Dial(context.Background(), Spec{URL: hs.URL}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if got, want := s.InitializeResult().ProtocolVersion, mcp.SupportedProtocolVersions()[0]; got != want {
		t.Errorf("protocol version = %q, want %q (logs:\n%s)", got, want, logs)
	}
}

// A stdio server slow to read its input but alive (it logs on stderr, as mcpwasm serve does
// while it compiles its guests on a first start) is waited for: each stderr line starts the
// server/discover deadline over. Before, the deadline ran from the probe alone, and the
// client stopped the server and started a second, which did the whole start again: a first
// `mcpwasm call -- mcpwasm serve X.wasm` on a loaded machine compiled twice and could pass
// the connect timeout. The server logs for twice the deadline (gateTicks × gateTick).
func TestSlowStdioServerIsStartedOnce(t *testing.T) {
	dir := t.TempDir()
	spec := fake(t, "sdk")
	spec.Command = append([]string{spec.Command[0], gateEnv + "=" + dir}, spec.Command[1:]...)
	logs := &syncBuffer{}
	o := testOptions(logs)
	o.DiscoverTimeout = gateTicks * gateTick / 2
	s := dial(t, spec, o)
	starts, err := os.ReadFile(filepath.Join(dir, "starts"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(starts), "\n"); n != 1 {
		t.Errorf("the server was started %d times, want 1", n)
	}
	if got, want := s.InitializeResult().ProtocolVersion, mcp.SupportedProtocolVersions()[0]; got != want {
		t.Errorf("protocol version = %q, want %q: the server answers server/discover", got, want)
	}
	if got := callText(t, s, "echo", map[string]any{"text": "once"}); got != "once" {
		t.Errorf("echo = %q", got)
	}
}

// fakeOAuth authorizes at once: after its first Authorize, every request carries its token.
type fakeOAuth struct {
	mu   sync.Mutex
	done bool
}

func (f *fakeOAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.done {
		return nil, nil
	}
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "tok"}), nil
}

func (f *fakeOAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	f.mu.Lock()
	f.done = true
	f.mu.Unlock()
	return nil
}

// The server/discover probe's deadline does not start at a 401: the authorization and the
// retried probe come first, and the retry's answer starts it. Before, the deadline ran from the
// 401 and ran out while a slow server (a loaded machine) had not yet answered the retry; the
// connection then started over with a legacy initialize — how the conformance scenarios
// auth/scope-step-up and auth/authorization-server-migration failed now and then.
func TestDiscoverDeadlineStartsAfterAuthorization(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "authd", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/none"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"server/discover"`)) {
			time.Sleep(100 * time.Millisecond) // slow to answer the retry, 100 times DiscoverTimeout
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	logs := &syncBuffer{}
	o := testOptions(logs)
	o.DiscoverTimeout = time.Millisecond
	s, err := Dial(context.Background(), Spec{URL: hs.URL, OAuth: &fakeOAuth{}}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if got, want := s.InitializeResult().ProtocolVersion, mcp.SupportedProtocolVersions()[0]; got != want {
		t.Errorf("protocol version = %q, want %q (logs:\n%s)", got, want, logs)
	}
}
