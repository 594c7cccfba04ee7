package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/bench"
	"github.com/mcpwasm/mcpwasm/guests"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
)

// soakSample is the driver process's resident memory and goroutine count at one moment.
type soakSample struct {
	rss        int64
	goroutines int
}

func takeSoakSample() soakSample {
	pr, _ := bench.ReadProc(os.Getpid())
	return soakSample{pr.RSS, goruntime.NumGoroutine()}
}

// soak is section 7 (issue #12): the bundled calc served over Streamable HTTP in this process
// (so its goroutines can be counted without a debug endpoint in the product), `sessions` MCP
// sessions calling it `calls` times each, concurrently; every call must succeed. Then the
// server idles past its idle timeouts (guest instances: runtime.Options.IdleTimeout; HTTP
// sessions: SessionIdleTimeout), and memory and goroutines must come back down. RSS is the
// whole driver process: the server and the clients; the clients' connections are closed
// before the "after" samples.
func soak(ctx context.Context, c config, dir string) error {
	sessions, calls, idle := 8, 5_000, 2*time.Second
	if c.quick {
		calls, idle = 50, 500*time.Millisecond
	}
	step(fmt.Sprintf("soak: %d sessions × %d calls, then %v idle", sessions, calls, 3*idle))
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: filepath.Join(dir, "soak-cache"), IdleTimeout: idle})
	if err != nil {
		return err
	}
	defer h.Close(context.Background())
	var calc []byte
	for _, b := range guests.Default() {
		if b.Name == "calc" {
			calc = b.Wasm
		}
	}
	g, err := h.Load(ctx, calc, &runtime.GuestConfig{Source: "bundled:calc"})
	if err != nil {
		return err
	}
	if err := g.Ready(ctx); err != nil {
		return err
	}
	srv, err := mcpserver.NewServer([]*runtime.Guest{g}, &mcpserver.Options{Name: "mcpwasm", Version: "bench"})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mcpserver.NewHTTPHandler(srv, &mcpserver.HTTPOptions{SessionIdleTimeout: idle}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	url := "http://" + ln.Addr().String() + "/mcp"

	settle := func() soakSample {
		goruntime.GC()
		debug.FreeOSMemory()
		return takeSoakSample()
	}
	start := settle()
	var peakRSS, peakG atomic.Int64
	stopSampling := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			s := takeSoakSample()
			if s.rss > peakRSS.Load() {
				peakRSS.Store(s.rss)
			}
			if int64(s.goroutines) > peakG.Load() {
				peakG.Store(int64(s.goroutines))
			}
			select {
			case <-stopSampling:
				return
			case <-t.C:
			}
		}
	})
	args := json.RawMessage(`{"expression":"2*(3+4)^2"}`)
	var failed atomic.Int64
	var firstErr atomic.Pointer[error]
	clients := make([]*bench.HTTPServer, sessions)
	began := time.Now()
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Go(func() {
			s, err := bench.DialHTTP(url)
			if err != nil {
				failed.Add(int64(calls))
				firstErr.CompareAndSwap(nil, &err)
				return
			}
			clients[i] = s
			for range calls {
				if err := s.CallTool("calc", args); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, &err)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	loaded := takeSoakSample()
	for _, s := range clients {
		if s != nil {
			s.Close()
		}
	}
	time.Sleep(3 * idle) // past both idle timeouts (checked every idle/2)
	close(stopSampling)
	sampler.Wait()
	after := settle()

	fmt.Printf("\n## 7. Soak: %d sessions × %d calls\n\n", sessions, calls)
	fmt.Printf("Bundled calc (`2*(3+4)^2`) over Streamable HTTP (sessions, SSE answers), server in the driver process; "+
		"%d calls in %.1f s (%.0f calls/s), %d failed; then %v idle (instance and session idle timeout %v).\n\n",
		sessions*calls, elapsed.Seconds(), float64(sessions*calls)/elapsed.Seconds(), failed.Load(), 3*idle, idle)
	fmt.Println("| moment | RSS | goroutines |")
	fmt.Println("|---|--:|--:|")
	fmt.Printf("| start (server up, guest compiled) | %s | %d |\n", mb(start.rss), start.goroutines)
	fmt.Printf("| peak (sampled every 20 ms) | %s | %d |\n", mb(peakRSS.Load()), peakG.Load())
	fmt.Printf("| end of calls | %s | %d |\n", mb(loaded.rss), loaded.goroutines)
	fmt.Printf("| after idle (clients closed, GC) | %s | %d |\n", mb(after.rss), after.goroutines)
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("soak: %d of %d calls failed; first: %w", n, sessions*calls, *firstErr.Load())
	}
	if after.goroutines > start.goroutines+2 {
		return fmt.Errorf("soak: %d goroutines after idle, %d at start: something outlives its session", after.goroutines, start.goroutines)
	}
	return nil
}
