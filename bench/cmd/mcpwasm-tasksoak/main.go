// Command mcpwasm-tasksoak is the tasks soak (.ci/tasksoak.sh): 20 clients — half with a
// 2025-11-25 session, half sessionless 2026-07-28 — create, poll, answer, cancel and abandon
// tasks of the conformance guest over Streamable HTTP for -duration, against a server with a
// short task TTL and input TTL. Afterwards (clients gone, both TTLs passed) the server must
// hold no task, no byte and no session watcher, the goroutines must be back to where they
// started, and every client must have been served; RSS is reported, not asserted.
//
//	go run ./cmd/mcpwasm-tasksoak -duration 60s   (from bench/)
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/bench"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
)

func main() {
	duration := flag.Duration("duration", 60*time.Second, "how long the clients run")
	clients := flag.Int("clients", 20, "clients (half with sessions, half sessionless)")
	flag.Parse()
	if err := run(*duration, *clients); err != nil {
		fmt.Fprintln(os.Stderr, "tasksoak:", err)
		os.Exit(1)
	}
}

const (
	ttl      = time.Second     // a finished task is kept this long
	inputTTL = 2 * time.Second // a task waiting for input expires after this long
)

func run(duration time.Duration, nclients int) error {
	ctx := context.Background()
	began := time.Now()
	dir, err := os.MkdirTemp("", "mcpwasm-tasksoak")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	root, err := bench.ModuleRoot()
	if err != nil {
		return err
	}
	wasmPath := filepath.Join(dir, "conformance.wasm")
	build := exec.CommandContext(ctx, "go", "build", "-buildmode=c-shared", "-trimpath", "-o", wasmPath, "./testdata/guests/conformance")
	build.Dir, build.Env = root, append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the conformance guest: %v\n%s", err, out)
	}
	built := time.Now()
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		return err
	}
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: filepath.Join(dir, "cache"), IdleTimeout: time.Second})
	if err != nil {
		return err
	}
	defer h.Close(context.Background())
	var grants runtime.Grants
	grants.Clock, grants.Elicitation = true, true
	g, err := h.Load(ctx, wasm, &runtime.GuestConfig{Grants: grants, Isolation: "shared", Limits: runtime.Limits{Instances: 2 * nclients}})
	if err != nil {
		return err
	}
	srv, err := mcpserver.NewServer([]*runtime.Guest{g}, &mcpserver.Options{Name: "mcpwasm", Version: "tasksoak",
		Tasks: mcpserver.TaskOptions{TTL: ttl, InputTTL: inputTTL, PollInterval: 20 * time.Millisecond}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mcpserver.NewHTTPHandler(srv, &mcpserver.HTTPOptions{JSONResponse: true, SessionIdleTimeout: 5 * time.Second}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	url := "http://" + ln.Addr().String() + "/mcp"

	settle := func() (int64, int) {
		goruntime.GC()
		debug.FreeOSMemory()
		pr, _ := bench.ReadProc(os.Getpid())
		return pr.RSS, goruntime.NumGoroutine()
	}
	rss0, g0 := settle()
	var peakRSS, peakTasks, peakBytes atomic.Int64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			pr, _ := bench.ReadProc(os.Getpid())
			st := mcpserver.TaskStatsOf(srv)
			for _, p := range []struct {
				peak *atomic.Int64
				v    int64
			}{{&peakRSS, pr.RSS}, {&peakTasks, int64(st.Tasks)}, {&peakBytes, st.Bytes}} {
				if p.v > p.peak.Load() {
					p.peak.Store(p.v)
				}
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})

	deadline := time.Now().Add(duration)
	served := make([]map[string]int, nclients)
	errs := make([]error, nclients)
	var wg sync.WaitGroup
	for i := range nclients {
		wg.Go(func() {
			c := &client{url: url, http: &http.Client{Timeout: 30 * time.Second}, sessionless: i%2 == 1, rng: rand.New(rand.NewPCG(uint64(i), 1))}
			served[i], errs[i] = c.run(deadline)
			c.close()
			c.http.CloseIdleConnections()
		})
	}
	wg.Wait()
	loadedRSS, loadedG := settle()
	loaded := mcpserver.TaskStatsOf(srv)
	// Past both TTLs (and the expiry of input requests abandoned last): nothing may be left.
	var after mcpserver.TaskStats
	for wait := time.Now().Add(ttl + inputTTL + 5*time.Second); ; {
		if after = mcpserver.TaskStatsOf(srv); after == (mcpserver.TaskStats{}) || time.Now().After(wait) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	hs.Close()
	stopErr := mcpserver.StopTasks(ctx, srv)
	close(stop)
	sampler.Wait()
	var rss1 int64
	var g1 int
	for wait := time.Now().Add(5 * time.Second); ; {
		if rss1, g1 = settle(); g1 <= g0+2 || time.Now().After(wait) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}

	total := map[string]int{}
	for _, m := range served {
		for k, v := range m {
			total[k] += v
		}
	}
	fmt.Printf("## Tasks soak: %d clients (%d with sessions, %d sessionless) for %v; TTL %v, input TTL %v\n\n", nclients, (nclients+1)/2, nclients/2, duration, ttl, inputTTL)
	fmt.Printf("Actions served: %v; guest built in %.1f s, soak and checks %.1f s\n\n", total, built.Sub(began).Seconds(), time.Since(built).Seconds())
	fmt.Println("| moment | RSS | goroutines | tasks | task bytes |")
	fmt.Println("|---|--:|--:|--:|--:|")
	fmt.Printf("| start | %.1f MB | %d | 0 | 0 |\n", float64(rss0)/1e6, g0)
	fmt.Printf("| peak (sampled every 50 ms) | %.1f MB | | %d | %d |\n", float64(peakRSS.Load())/1e6, peakTasks.Load(), peakBytes.Load())
	fmt.Printf("| clients done | %.1f MB | %d | %d | %d |\n", float64(loadedRSS)/1e6, loadedG, loaded.Tasks, loaded.Bytes)
	fmt.Printf("| after both TTLs, server closed | %.1f MB | %d | %d | %d |\n", float64(rss1)/1e6, g1, after.Tasks, after.Bytes)

	var problems []string
	for i, err := range errs {
		if err != nil {
			problems = append(problems, fmt.Sprintf("client %d: %v", i, err))
		} else if served[i]["completed"] == 0 {
			problems = append(problems, fmt.Sprintf("client %d: no task completed (%v)", i, served[i]))
		}
	}
	if after != (mcpserver.TaskStats{}) {
		problems = append(problems, fmt.Sprintf("after both TTLs the server holds %+v, want nothing", after))
	}
	if stopErr != nil {
		problems = append(problems, "StopTasks: "+stopErr.Error())
	}
	if g1 > g0+2 {
		problems = append(problems, fmt.Sprintf("%d goroutines at the end, %d at the start", g1, g0))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	fmt.Println("\ntasksoak: ok")
	return nil
}

// client is one MCP client over Streamable HTTP: a 2025-11-25 session, or sessionless
// 2026-07-28 requests (per-request _meta and the Mcp-Method / Mcp-Name headers).
type client struct {
	url         string
	http        *http.Client
	sessionless bool
	rng         *rand.Rand
	sid         string
	id          int
}

var caps = map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{mcpserver.TasksExtension: map[string]any{}}}

type rpcErr struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *rpcErr) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// call sends one request and returns its result.
func (c *client) call(method, name string, params map[string]any) (map[string]json.RawMessage, error) {
	c.id++
	hdr := map[string]string{}
	if c.sessionless {
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientInfo": map[string]any{"name": "soak", "version": "0"}, "io.modelcontextprotocol/clientCapabilities": caps}
		hdr["MCP-Protocol-Version"], hdr["Mcp-Method"], hdr["Mcp-Name"] = "2026-07-28", method, name
	} else {
		hdr["MCP-Protocol-Version"] = "2025-11-25"
		if c.sid != "" {
			hdr["Mcp-Session-Id"] = c.sid
		}
	}
	var out struct {
		Result map[string]json.RawMessage `json:"result"`
		Error  *rpcErr                    `json:"error"`
	}
	resp, err := c.post(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params}, hdr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if c.sid == "" && !c.sessionless {
		c.sid = resp.Header.Get("Mcp-Session-Id")
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: HTTP %d %q: %w", method, resp.StatusCode, b, err)
	}
	if out.Error != nil {
		return nil, fmt.Errorf("%s: %w", method, out.Error)
	}
	return out.Result, nil
}

func (c *client) post(body any, hdr map[string]string) (*http.Response, error) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return c.http.Do(req)
}

func (c *client) init() error {
	if c.sessionless {
		return nil
	}
	if _, err := c.call("initialize", "", map[string]any{"protocolVersion": "2025-11-25", "capabilities": caps,
		"clientInfo": map[string]any{"name": "soak", "version": "0"}}); err != nil {
		return err
	}
	resp, err := c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"},
		map[string]string{"Mcp-Session-Id": c.sid, "MCP-Protocol-Version": "2025-11-25"})
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// close ends the session (DELETE); a sessionless client has nothing to end.
func (c *client) close() {
	if c.sid == "" {
		return
	}
	req, _ := http.NewRequest(http.MethodDelete, c.url, nil)
	req.Header.Set("Mcp-Session-Id", c.sid)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if resp, err := c.http.Do(req); err == nil {
		resp.Body.Close()
	}
}

func str(m map[string]json.RawMessage, k string) string {
	var s string
	_ = json.Unmarshal(m[k], &s)
	return s
}

// start calls tool; the task id, or "" when the call was answered in its request (no room
// for a task: the tools are "optional").
func (c *client) start(tool string, args map[string]any) (string, error) {
	r, err := c.call("tools/call", tool, map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return "", err
	}
	if str(r, "resultType") == "task" {
		return str(r, "taskId"), nil
	}
	return "", nil
}

// poll asks tasks/get until the task's status is one of want; its last answer.
func (c *client) poll(id string, want ...string) (map[string]json.RawMessage, error) {
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		r, err := c.call("tasks/get", id, map[string]any{"taskId": id})
		if err != nil {
			return nil, err
		}
		st := str(r, "status")
		for _, w := range want {
			if st == w {
				return r, nil
			}
		}
		switch st {
		case mcpserver.TaskWorking, mcpserver.TaskInputRequired:
		default:
			return nil, fmt.Errorf("task %s ended %s (%s), want %v", id, st, r["error"], want)
		}
	}
	return nil, fmt.Errorf("task %s: still running after 20 s", id)
}

// run does random actions until deadline; counts by outcome.
func (c *client) run(deadline time.Time) (map[string]int, error) {
	n := map[string]int{}
	if err := c.init(); err != nil {
		return n, err
	}
	for time.Now().Before(deadline) {
		switch c.rng.IntN(5) {
		case 0: // a short computation, polled to its result
			id, err := c.start("slow_compute", map[string]any{"seconds": 0.02, "label": "x"})
			if err != nil {
				return n, err
			}
			if id == "" {
				n["in request"]++
				continue
			}
			r, err := c.poll(id, mcpserver.TaskCompleted)
			if err != nil {
				return n, err
			}
			if !strings.Contains(string(r["result"]), "Computed x") {
				return n, fmt.Errorf("task %s: result %s", id, r["result"])
			}
			n["completed"]++
		case 1: // a question, answered
			id, err := c.start("confirm_delete", map[string]any{"filename": "f.txt"})
			if err != nil {
				return n, err
			}
			if id == "" {
				n["in request"]++
				continue
			}
			// A session without a GET stream cannot be asked in-band (the guest sees the
			// elicitation fail and completes); a sessionless task asks through the task.
			r, err := c.poll(id, mcpserver.TaskInputRequired, mcpserver.TaskCompleted)
			if err != nil {
				return n, err
			}
			if str(r, "status") == mcpserver.TaskCompleted {
				n["completed"]++
				continue
			}
			var asked map[string]json.RawMessage
			_ = json.Unmarshal(r["inputRequests"], &asked)
			answers := map[string]any{}
			for k := range asked {
				answers[k] = map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}
			}
			if _, err := c.call("tasks/update", id, map[string]any{"taskId": id, "inputResponses": answers}); err != nil {
				return n, err
			}
			if _, err := c.poll(id, mcpserver.TaskCompleted); err != nil {
				return n, err
			}
			n["completed"]++
		case 2: // a long computation, cancelled
			id, err := c.start("slow_compute", map[string]any{"seconds": 1}) // in the request when there is no room
			if err != nil {
				return n, err
			}
			if id == "" {
				n["in request"]++
				continue
			}
			if _, err := c.call("tasks/cancel", id, map[string]any{"taskId": id}); err != nil {
				return n, err
			}
			if _, err := c.poll(id, mcpserver.TaskCancelled); err != nil {
				return n, err
			}
			n["cancelled"]++
		case 3: // a question, abandoned: it expires after the input TTL
			if _, err := c.start("confirm_delete", map[string]any{"filename": "g.txt"}); err != nil {
				return n, err
			}
			n["abandoned question"]++
		case 4: // a result never fetched: dropped after the TTL
			if _, err := c.start("slow_compute", map[string]any{"seconds": 0.01}); err != nil {
				return n, err
			}
			n["abandoned result"]++
		}
	}
	return n, nil
}
