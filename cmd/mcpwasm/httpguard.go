package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
)

// ExitPublicNoToken: serve --http was asked to listen on a non-loopback address without a
// bearer token and without --allow-public-without-token (checkPublicHTTP).
const ExitPublicNoToken = 5

// httpGuard are serve's flags against exposure and slow clients on Streamable HTTP.
type httpGuard struct {
	allowPublic   bool
	headerTimeout time.Duration
	bodyTimeout   time.Duration
	connIdle      time.Duration
	maxConns      int
	sseKeepAlive  time.Duration
}

// Defaults of the flags (the body timeout and keep-alive are mcpserver's).
const (
	defaultHeaderTimeout = 10 * time.Second
	defaultConnIdle      = 2 * time.Minute
	defaultMaxConns      = 2048
)

func (g *httpGuard) register(fs *flag.FlagSet) {
	fs.BoolVar(&g.allowPublic, "allow-public-without-token", false, "HTTP: serve on a non-loopback address without a bearer token (refused otherwise: every tool, exec and fs grants included, would be open to anyone who can connect)")
	fs.DurationVar(&g.headerTimeout, "header-timeout", defaultHeaderTimeout, "HTTP: a request's headers must arrive within this (0: no limit)")
	fs.DurationVar(&g.bodyTimeout, "body-timeout", mcpserver.DefaultBodyTimeout, "HTTP: a request's body must arrive within this once its headers are in; answers and GET streams are not limited (0: no limit)")
	fs.DurationVar(&g.connIdle, "conn-idle-timeout", defaultConnIdle, "HTTP: close a keep-alive connection idle between requests this long (0: never)")
	fs.IntVar(&g.maxConns, "max-conns", defaultMaxConns, "HTTP: most open connections; more wait in the kernel's accept queue until one closes (0: no cap)")
	fs.DurationVar(&g.sseKeepAlive, "sse-keepalive", mcpserver.DefaultSSEKeepAlive, "HTTP: write a keep-alive comment on a session's GET stream this often, and end the stream if a write to it takes longer (0: neither)")
}

// validate rejects negative values (0 is "none" for each).
func (g *httpGuard) validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"header-timeout", g.headerTimeout}, {"body-timeout", g.bodyTimeout}, {"conn-idle-timeout", g.connIdle}, {"sse-keepalive", g.sseKeepAlive}} {
		if d.v < 0 {
			return fmt.Errorf("--%s %v: must not be negative (0 means no limit)", d.name, d.v)
		}
	}
	if g.maxConns < 0 {
		return fmt.Errorf("--max-conns %d: must not be negative (0 means no cap)", g.maxConns)
	}
	return nil
}

// checkPublicHTTP refuses to serve on a non-loopback address without a bearer token unless
// allowed: the tools would be open to anyone who can connect. Loopback is 127.0.0.0/8, ::1,
// "localhost", and an empty host (serveHTTP binds it to 127.0.0.1). Any other host name
// counts as public: what it resolves to is not checked.
func checkPublicHTTP(addr, token, tokenEnv string, allow bool) error {
	if token != "" || allow || loopbackHTTPAddr(addr) {
		return nil
	}
	set := "set a token in $" + tokenEnv + " (--token-env names the variable)"
	if tokenEnv == "" {
		set = "name a token variable with --token-env and set it"
	}
	return fmt.Errorf("refusing to serve --http %s without a bearer token: every tool would be open to anyone who can connect; %s, or pass --allow-public-without-token if that is meant", addr, set)
}

func loopbackHTTPAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false // net.Listen refuses it
	}
	if host == "" || strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// server is the http.Server of serve --http: headers within --header-timeout (a trickled
// header is cut), idle keep-alive connections closed after --conn-idle-timeout. No
// ReadTimeout or WriteTimeout: they would cut GET streams and long calls' answers (the body
// is bounded per request by mcpserver's BodyTimeout instead).
func (g *httpGuard) server(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: g.headerTimeout, IdleTimeout: orNever(g.connIdle)}
}

// handlerOptions sets the guard's mcpserver.HTTPOptions (0 in a flag is "none" there).
func (g *httpGuard) handlerOptions(o *mcpserver.HTTPOptions) {
	o.BodyTimeout, o.SSEKeepAlive = orNever(g.bodyTimeout), orNever(g.sseKeepAlive)
}

// listener caps ln's open connections at --max-conns.
func (g *httpGuard) listener(ln net.Listener, logger *slog.Logger) net.Listener {
	if g.maxConns <= 0 {
		return ln
	}
	var mu sync.Mutex
	var last time.Time
	return newCapListener(ln, g.maxConns, func() {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) >= 10*time.Second { // a warning, not a flood of them
			last = time.Now()
			logger.Warn("connection cap reached: new connections wait until one closes", "transport", "http", "max_conns", g.maxConns)
		}
	})
}

// capListener accepts at most cap connections at a time: at the cap, Accept waits for one
// to close, and clients beyond wait in the kernel's accept queue (their connect succeeds;
// their request is read once a slot frees). Slow clients free their slots through the header
// and body timeouts, idle ones through the idle timeout. full is called each time Accept has
// to wait.
type capListener struct {
	net.Listener
	slots  chan struct{}
	full   func()
	closed chan struct{}
	once   sync.Once
}

func newCapListener(ln net.Listener, n int, full func()) *capListener {
	return &capListener{Listener: ln, slots: make(chan struct{}, n), full: full, closed: make(chan struct{})}
}

func (l *capListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		l.full()
		select {
		case l.slots <- struct{}{}:
		case <-l.closed:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &capConn{Conn: c, release: sync.OnceFunc(func() { <-l.slots })}, nil
}

func (l *capListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

type capConn struct {
	net.Conn
	release func()
}

func (c *capConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
