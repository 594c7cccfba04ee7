// Command mcpwasm-load keeps a steady load of MCP tools/call requests on a Streamable HTTP
// endpoint (stateless: one POST per call, no session) and reports how many failed and the
// latencies, split into the calls made inside a marked window (a rolling restart, a
// `docker stop`) and those outside it. .ci/container.sh runs it; BENCHMARKS.md has its numbers.
//
//	mcpwasm-load -url http://127.0.0.1:8080/mcp -workers 8 -rate 200
//
// The bearer token is read from the environment variable named by -token-env
// (MCPWASM_HTTP_TOKEN). Signals drive it: SIGUSR1 opens the window, SIGUSR2 closes it,
// SIGTERM or SIGINT (or -duration) stop the load; then it waits for the calls in flight and
// prints the report (text on stderr, one JSON object on stdout). A call fails unless it gets
// HTTP 200 and a result whose structured content is -want; a transport error is a failure
// too. Exit status 1 if any call failed or none was made in the window (when one was opened).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Phases of a call, by when it started.
const (
	before = iota
	during
	after
	nPhases
)

var phaseNames = [nPhases]string{"before", "during", "after"}

type result struct {
	phase      int
	start, dur time.Duration // start: since the load began
	err        error
}

func main() {
	url := flag.String("url", "", "Streamable HTTP endpoint (…/mcp)")
	tokenEnv := flag.String("token-env", "MCPWASM_HTTP_TOKEN", "environment variable holding the bearer token (unset: none sent)")
	workers := flag.Int("workers", 8, "concurrent callers")
	rate := flag.Float64("rate", 200, "calls per second in all (0: as fast as the workers go)")
	duration := flag.Duration("duration", 0, "stop after this long (0: at SIGTERM/SIGINT)")
	tool := flag.String("tool", "calc", "tool to call")
	args := flag.String("args", `{"expression":"2*(3+4)^2"}`, "the tool's arguments (JSON object)")
	want := flag.String("want", `{"value":98}`, "the structured content every result must have (JSON)")
	keepAlive := flag.Bool("keepalive", true, "reuse connections")
	timeout := flag.Duration("timeout", 30*time.Second, "time limit of one call")
	flag.Parse()
	if *url == "" || *workers < 1 {
		fmt.Fprintln(os.Stderr, "mcpwasm-load: -url is required, -workers at least 1")
		os.Exit(2)
	}
	var wantV any
	if err := json.Unmarshal([]byte(*want), &wantV); err != nil {
		fmt.Fprintf(os.Stderr, "mcpwasm-load: -want: %v\n", err)
		os.Exit(2)
	}
	wantJSON, _ := json.Marshal(wantV)
	var argsV map[string]any
	if err := json.Unmarshal([]byte(*args), &argsV); err != nil {
		fmt.Fprintf(os.Stderr, "mcpwasm-load: -args: %v\n", err)
		os.Exit(2)
	}
	token := os.Getenv(*tokenEnv)

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTERM, syscall.SIGINT)
	var phase atomic.Int32 // before → during → after
	go func() {
		for s := range sigs {
			switch s {
			case syscall.SIGUSR1:
				phase.Store(during)
			case syscall.SIGUSR2:
				phase.Store(after)
			default:
				stop()
			}
		}
	}()
	if *duration > 0 {
		time.AfterFunc(*duration, stop)
	}

	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableKeepAlives = !*keepAlive
	tr.MaxIdleConnsPerHost = *workers
	client := &http.Client{Transport: tr, Timeout: *timeout}

	// A shared ticker paces the workers to -rate in all.
	var tick <-chan time.Time
	if *rate > 0 {
		t := time.NewTicker(time.Duration(float64(time.Second) / *rate))
		defer t.Stop()
		tick = t.C
	}
	results := make(chan result, 1024)
	var wg sync.WaitGroup
	var id atomic.Int64
	began := time.Now()
	for range *workers {
		wg.Go(func() {
			for {
				if tick != nil {
					select {
					case <-ctx.Done():
						return
					case <-tick:
					}
				} else if ctx.Err() != nil {
					return
				}
				p := int(phase.Load())
				start := time.Now()
				err := call(client, *url, token, id.Add(1), *tool, argsV, wantJSON)
				results <- result{p, start.Sub(began), time.Since(start), err}
			}
		})
	}
	go func() { wg.Wait(); close(results) }()

	var durs [nPhases][]time.Duration
	var failed [nPhases]int
	var firstErrs []string
	answered := false
	for r := range results {
		if r.err == nil && !answered {
			answered = true // .ci/container.sh waits for this line
			fmt.Fprintln(os.Stderr, "mcpwasm-load: first call answered")
		}
		durs[r.phase] = append(durs[r.phase], r.dur)
		if r.err != nil {
			failed[r.phase]++
			if len(firstErrs) < 10 {
				firstErrs = append(firstErrs, fmt.Sprintf("%s (started at %.3fs, took %.1f ms): %v", phaseNames[r.phase], r.start.Seconds(), ms(r.dur), r.err))
			}
		}
	}
	windowOpened := phase.Load() != before

	outside := append(slices.Clone(durs[before]), durs[after]...)
	rep := map[string]any{
		"calls":          len(durs[before]) + len(durs[during]) + len(durs[after]),
		"failed":         failed[before] + failed[during] + failed[after],
		"calls_during":   len(durs[during]),
		"failed_during":  failed[during],
		"calls_outside":  len(outside),
		"p50_during_ms":  ms(pct(durs[during], 50)),
		"p99_during_ms":  ms(pct(durs[during], 99)),
		"p50_outside_ms": ms(pct(outside, 50)),
		"p99_outside_ms": ms(pct(outside, 99)),
	}
	for _, e := range firstErrs {
		fmt.Fprintln(os.Stderr, "mcpwasm-load: failed:", e)
	}
	fmt.Fprintf(os.Stderr, "mcpwasm-load: %d calls, %d failed; in the window: %d calls, %d failed, p50 %.1f ms, p99 %.1f ms; outside it: %d calls, p50 %.1f ms, p99 %.1f ms\n",
		rep["calls"], rep["failed"], rep["calls_during"], rep["failed_during"], rep["p50_during_ms"], rep["p99_during_ms"],
		rep["calls_outside"], rep["p50_outside_ms"], rep["p99_outside_ms"])
	b, _ := json.Marshal(rep)
	fmt.Println(string(b))
	if rep["failed"].(int) > 0 || windowOpened && len(durs[during]) == 0 || rep["calls"].(int) == 0 {
		os.Exit(1)
	}
}

// call makes one tools/call and checks its result.
func call(client *http.Client, url, token string, id int64, tool string, args map[string]any, want []byte) error {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args},
	})
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("call %d: reading the answer: %w", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("call %d: HTTP %s: %.200s", id, resp.Status, b)
	}
	// JSON, or an SSE stream whose last "data:" line is the response.
	msg := b
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg = nil
		for l := range strings.SplitSeq(string(b), "\n") {
			if d, ok := strings.CutPrefix(l, "data:"); ok {
				msg = []byte(strings.TrimSpace(d))
			}
		}
	}
	var r struct {
		ID     int64 `json:"id"`
		Result *struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		return fmt.Errorf("call %d: not a JSON-RPC response: %w: %.200s", id, err, b)
	}
	switch {
	case r.Error != nil:
		return fmt.Errorf("call %d: JSON-RPC error: %s", id, r.Error.Message)
	case r.ID != id || r.Result == nil:
		return fmt.Errorf("call %d: answer has id %d, result %v: %.200s", id, r.ID, r.Result != nil, b)
	case r.Result.IsError:
		return fmt.Errorf("call %d: tool error: %.200s", id, b)
	}
	var got any
	if err := json.Unmarshal(r.Result.StructuredContent, &got); err != nil {
		return fmt.Errorf("call %d: structured content: %w", id, err)
	}
	if g, _ := json.Marshal(got); !bytes.Equal(g, want) {
		return fmt.Errorf("call %d: structured content %s, want %s", id, g, want)
	}
	return nil
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p+99)/100 - 1
	return s[max(i, 0)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
