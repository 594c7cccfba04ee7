package oauth_test

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/oauth"
	"github.com/mcpwasm/mcpwasm/internal/oauth/oauthtest"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

// echo connects to the server with h and calls echo; it returns the text or the error.
func echo(t *testing.T, server string, h auth.OAuthHandler, logger *slog.Logger) (string, error) {
	t.Helper()
	ctx := t.Context()
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{Logger: logger})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: server, OAuthHandler: h}, nil)
	if err != nil {
		return "", err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		return "", err
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

// noToken fails the test if s contains any token srv issued.
func noToken(t *testing.T, what, s string, srv *oauthtest.Server) {
	t.Helper()
	for _, tok := range srv.Issued() {
		if strings.Contains(s, tok) {
			t.Errorf("%s contains an issued token:\n%s", what, s)
		}
	}
}

// A login (authorization code, PKCE, loopback redirect) stores the token in a 0600 file in a
// 0700 directory; a later handler without a user (an upstream of serve) uses the stored grant
// and refreshes it when it expires, writing the new token back; no token reaches the logs.
func TestLoginStoresTokenThenRefreshes(t *testing.T) {
	srv := oauthtest.NewServer(t)
	srv.SetExpiresIn(1) // every use refreshes
	dir := filepath.Join(t.TempDir(), "config", "mcpwasm")
	store := oauth.NewStore(dir)
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))

	lb, err := oauth.ListenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	h, err := oauth.NewHandler(oauth.Config{Server: srv.MCPURL, Store: store, Logger: logger,
		Login: lb.Fetcher(oauthtest.Browser(func(err error) { t.Error(err) })), RedirectURL: lb.RedirectURL()})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := echo(t, srv.MCPURL, h, logger); got != "echo: hi" || err != nil {
		t.Fatalf("echo after login = %q, %v", got, err)
	}
	if logins, _ := srv.Counts(); logins != 1 {
		t.Errorf("logins = %d, want 1", logins)
	}
	fi, err := os.Stat(store.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode = %v, want 0600", fi.Mode().Perm())
	}
	if di, err := os.Stat(dir); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("token dir mode = %v (%v), want 0700", di.Mode().Perm(), err)
	}

	// A new process: the stored grant, no user.
	h2, err := oauth.NewHandler(oauth.Config{Server: srv.MCPURL, Store: store, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	_, refreshedBefore := srv.Counts()
	for range 2 {
		if got, err := echo(t, srv.MCPURL, h2, logger); got != "echo: hi" || err != nil {
			t.Fatalf("echo with the stored token = %q, %v", got, err)
		}
	}
	logins, refreshes := srv.Counts()
	if logins != 1 || refreshes <= refreshedBefore {
		t.Errorf("after two calls with the stored grant: logins %d (want 1), refreshes %d (want > %d)", logins, refreshes, refreshedBefore)
	}
	b, err := os.ReadFile(store.Path())
	if err != nil {
		t.Fatal(err)
	}
	issued := srv.Issued()
	if last := issued[len(issued)-2]; !bytes.Contains(b, []byte(last)) { // the last access token (then its refresh token)
		t.Errorf("the store does not hold the latest access token after refreshing")
	}
	noToken(t, "the log", logs.String(), srv)
}

// Without a stored token and without a user, connecting fails with ErrLoginRequired and a
// message naming `mcpwasm login`; a revoked stored token whose refresh still works is
// refreshed instead.
func TestNoLoginNoToken(t *testing.T) {
	srv := oauthtest.NewServer(t)
	store := oauth.NewStore(t.TempDir())
	h, err := oauth.NewHandler(oauth.Config{Server: srv.MCPURL, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	_, err = echo(t, srv.MCPURL, h, nil)
	if !errors.Is(err, oauth.ErrLoginRequired) || !strings.Contains(err.Error(), "run `mcpwasm login "+srv.MCPURL+"`") {
		t.Errorf("connect without a token: %v, want ErrLoginRequired naming mcpwasm login", err)
	}
	if ok, _ := store.Has(srv.MCPURL); ok {
		t.Errorf("a token was stored")
	}

	// A login by another process (another handler on the same store) is picked up by this
	// handler on its next refused request, without a new handler.
	lb, err := oauth.ListenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	login, err := oauth.NewHandler(oauth.Config{Server: srv.MCPURL, Store: store, Fresh: true,
		Login: lb.Fetcher(oauthtest.Browser(func(err error) { t.Error(err) })), RedirectURL: lb.RedirectURL()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := echo(t, srv.MCPURL, login, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := echo(t, srv.MCPURL, h, nil); got != "echo: hi" || err != nil {
		t.Errorf("after a login elsewhere: %q, %v", got, err)
	}
}

// The client credentials grant (headless upstreams) with a pre-registered client.
func TestClientCredentials(t *testing.T) {
	srv := oauthtest.NewServer(t)
	srv.AddClient("svc", "s3cret-value")
	h, err := oauth.NewHandler(oauth.Config{Server: srv.MCPURL, ClientID: "svc", ClientSecret: "s3cret-value", ClientCredentials: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := echo(t, srv.MCPURL, h, nil); got != "echo: hi" || err != nil {
		t.Fatalf("echo = %q, %v", got, err)
	}
	bad, err := oauth.NewHandler(oauth.Config{Server: srv.MCPURL, ClientID: "svc", ClientSecret: "wrong-secret", ClientCredentials: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = echo(t, srv.MCPURL, bad, nil)
	if err == nil || strings.Contains(err.Error(), "wrong-secret") {
		t.Errorf("wrong secret: %v (want an error that does not quote the secret)", err)
	}
	if _, err := oauth.NewHandler(oauth.Config{Server: srv.MCPURL, ClientCredentials: true}); err == nil {
		t.Errorf("client credentials without an ID and secret: no error")
	}
}

func TestStoreKeysAndDelete(t *testing.T) {
	if got, want := oauth.ResourceKey("HTTPS://MCP.Example.COM/Path#frag"), "https://mcp.example.com/Path"; got != want {
		t.Errorf("ResourceKey = %q, want %q", got, want)
	}
	srv := oauthtest.NewServer(t)
	srv.AddClient("svc", "x")
	store := oauth.NewStore(t.TempDir())
	lb, err := oauth.ListenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	h, err := oauth.NewHandler(oauth.Config{Server: srv.MCPURL, Store: store,
		Login: lb.Fetcher(oauthtest.Browser(func(err error) { t.Error(err) })), RedirectURL: lb.RedirectURL()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := echo(t, srv.MCPURL, h, nil); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false} {
		if had, err := store.Delete(strings.ToUpper(srv.MCPURL[:4]) + srv.MCPURL[4:]); had != want || err != nil {
			t.Errorf("Delete #%d = %v, %v; want %v", i+1, had, err, want)
		}
	}
	if ok, err := store.Has(srv.MCPURL); ok || err != nil {
		t.Errorf("Has after Delete = %v, %v", ok, err)
	}
}
