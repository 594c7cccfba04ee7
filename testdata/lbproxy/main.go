// Command lbproxy is a tiny round-robin HTTP load balancer for tests: it stands in for a
// Kubernetes Service in front of several `mcpwasm serve --http --stateless` replicas.
//
//	go run ./testdata/lbproxy -backend http://127.0.0.1:8081 -backend http://127.0.0.1:8082
//
// Like a Service with a readiness probe, it routes only to backends whose GET /readyz answered
// 200 at the last check (every -check-interval; an answer slower than -check-timeout counts as
// not ready); a backend starts not ready. Each change is logged to stderr ("backend URL
// ready" / "backend URL not ready: REASON"), after the line "listening on http://ADDR". GET /lbz answers the backends' state as JSON (url, ready,
// routed: requests sent there so far); every other request is proxied.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type backend struct {
	url    *url.URL
	ready  atomic.Bool
	routed atomic.Int64
}

type balancer struct {
	backends []*backend
	next     atomic.Uint64
	proxy    *httputil.ReverseProxy
}

// pick returns the next ready backend in turn, or nil.
func (b *balancer) pick() *backend {
	n := len(b.backends)
	start := b.next.Add(1)
	for i := range n {
		be := b.backends[(int(start)+i)%n]
		if be.ready.Load() {
			return be
		}
	}
	return nil
}

type ctxKey struct{}

func (b *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/lbz" && r.Method == http.MethodGet {
		type state struct {
			URL    string `json:"url"`
			Ready  bool   `json:"ready"`
			Routed int64  `json:"routed"`
		}
		var out []state
		for _, be := range b.backends {
			out = append(out, state{be.url.String(), be.ready.Load(), be.routed.Load()})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	be := b.pick()
	if be == nil {
		http.Error(w, "no ready backend", http.StatusServiceUnavailable)
		return
	}
	be.routed.Add(1)
	b.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, be)))
}

// check asks every backend's GET /readyz once and logs changes.
func (b *balancer) check(ctx context.Context, client *http.Client) {
	for _, be := range b.backends {
		reason := ""
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, be.url.JoinPath("/readyz").String(), nil)
		resp, err := client.Do(req)
		if err != nil {
			reason = err.Error()
		} else {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				reason = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body)))
			}
		}
		if ctx.Err() != nil {
			return
		}
		if ready := reason == ""; ready != be.ready.Load() {
			be.ready.Store(ready)
			if ready {
				log.Printf("backend %s ready", be.url)
			} else {
				log.Printf("backend %s not ready: %s", be.url, reason)
			}
		}
	}
}

type urls []*url.URL

func (u *urls) String() string { return fmt.Sprint(*u) }
func (u *urls) Set(s string) error {
	p, err := url.Parse(s)
	if err != nil || p.Scheme == "" || p.Host == "" {
		return fmt.Errorf("backend %q: want http://HOST:PORT", s)
	}
	*u = append(*u, p)
	return nil
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("lbproxy: ")
	var backends urls
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	interval := flag.Duration("check-interval", time.Second, "how often to ask each backend's GET /readyz")
	timeout := flag.Duration("check-timeout", 2*time.Second, "how long a backend's GET /readyz may take before the backend counts as not ready")
	flag.Var(&backends, "backend", "a backend's base URL (repeat the flag for each)")
	flag.Parse()
	if len(backends) == 0 {
		log.Fatal("no -backend given")
	}
	b := &balancer{}
	for _, u := range backends {
		b.backends = append(b.backends, &backend{url: u})
	}
	b.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(pr.In.Context().Value(ctxKey{}).(*backend).url)
			pr.Out.Host = pr.In.Host // as a Service does: the backend sees the client's Host
			pr.SetXForwarded()
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			log.Printf("backend %s: %v", r.Context().Value(ctxKey{}).(*backend).url, err)
			http.Error(w, "bad gateway", http.StatusBadGateway)
		},
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client := &http.Client{Timeout: *timeout}
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(*interval)
		defer t.Stop()
		for {
			b.check(ctx, client)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	srv := &http.Server{Handler: b, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("listening on http://%s", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		log.Fatal(err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		log.Print(err)
	}
	wg.Wait()
}
