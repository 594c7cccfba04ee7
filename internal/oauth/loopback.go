package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// CallbackPath is the path of the loopback redirect URI.
const CallbackPath = "/callback"

// Loopback is the redirect endpoint of a native app's authorization code flow (RFC 8252 §7.3):
// an HTTP listener on 127.0.0.1 and an ephemeral port that receives the authorization
// response. Its Fetcher sends the user to the authorization URL and waits for the redirect.
type Loopback struct {
	ln  net.Listener
	srv *http.Server

	mu      sync.Mutex
	waiting map[string]chan callback // by state

	closeOnce sync.Once
}

type callback struct {
	res *auth.AuthorizationResult
	err error
}

// ListenLoopback starts the listener. Close it when the flow is over.
func ListenLoopback() (*Loopback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("oauth: loopback redirect listener: %w", err)
	}
	l := &Loopback{ln: ln, waiting: map[string]chan callback{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+CallbackPath, l.serveCallback)
	l.srv = &http.Server{Handler: mux}
	go l.srv.Serve(ln)
	return l, nil
}

// RedirectURL is the redirect URI to register: http://127.0.0.1:PORT/callback.
func (l *Loopback) RedirectURL() string {
	return "http://" + l.ln.Addr().String() + CallbackPath
}

// Close stops the listener (a Fetcher still waiting returns when its context ends). Close is
// idempotent.
func (l *Loopback) Close() error {
	var err error
	l.closeOnce.Do(func() { err = l.srv.Close() })
	return err
}

// serveCallback takes the authorization response (RFC 6749 §4.1.2): code, state and, where
// the server sends it, iss (RFC 9207); or error. A response whose state no Fetcher waits for
// is refused.
func (l *Loopback) serveCallback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	l.mu.Lock()
	ch := l.waiting[state]
	delete(l.waiting, state)
	l.mu.Unlock()
	if ch == nil {
		http.Error(w, "no authorization in progress with this state", http.StatusBadRequest)
		return
	}
	if e := q.Get("error"); e != "" {
		ch <- callback{err: fmt.Errorf("oauth: the authorization server refused: %.100q", e)}
		http.Error(w, "Authorization failed; you may close this window.", http.StatusForbidden)
		return
	}
	ch <- callback{res: &auth.AuthorizationResult{Code: q.Get("code"), State: state, Iss: q.Get("iss")}}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "mcpwasm: authorization complete; you may close this window.")
}

// Fetcher returns an auth.AuthorizationCodeFetcher that calls show with the authorization URL
// (print it, open a browser) and waits for the redirect to reach the listener, or for ctx.
func (l *Loopback) Fetcher(show func(authURL string)) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		u, err := url.Parse(args.URL)
		if err != nil {
			return nil, fmt.Errorf("oauth: authorization URL: %w", err)
		}
		state := u.Query().Get("state")
		if state == "" {
			return nil, errors.New("oauth: authorization URL without state")
		}
		ch := make(chan callback, 1)
		l.mu.Lock()
		l.waiting[state] = ch
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			delete(l.waiting, state)
			l.mu.Unlock()
		}()
		show(args.URL)
		select {
		case cb := <-ch:
			return cb.res, cb.err
		case <-ctx.Done():
			return nil, fmt.Errorf("oauth: waiting for the authorization redirect: %w", context.Cause(ctx))
		}
	}
}
