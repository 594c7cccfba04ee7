package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Replicas behind a load balancer (docs/operations.md "Three replicas behind a load balancer"):
// three `serve --http --stateless` processes behind testdata/lbproxy, a round-robin reverse
// proxy that routes only to backends whose GET /readyz is 200, as a Kubernetes Service does.

var (
	lbproxyOnce sync.Once
	lbproxyPath string
	lbproxyErr  error
)

// buildLBProxy builds testdata/lbproxy once, next to the test's mcpwasm binary.
func buildLBProxy(t *testing.T) string {
	t.Helper()
	lbproxyOnce.Do(func() {
		lbproxyPath = filepath.Join(filepath.Dir(binPath), "lbproxy")
		out, err := exec.Command("go", "build", "-o", lbproxyPath, "../../testdata/lbproxy").CombinedOutput()
		if err != nil {
			lbproxyErr = fmt.Errorf("building lbproxy: %w\n%s", err, out)
		}
	})
	if lbproxyErr != nil {
		t.Fatal(lbproxyErr)
	}
	return lbproxyPath
}

// gate is an upstream MCP server (Streamable HTTP) whose tool "wait" blocks until release is
// closed, then answers {"id": ID, "replica": R}: R is the X-Replica header of the replica that
// called it (each replica's config sets its own). arrived gets one entry per call it accepted.
type gate struct {
	url     string
	arrived chan gateCall
	release chan struct{}
}

type gateCall struct {
	ID      int    `json:"id"`
	Replica string `json:"replica"`
}

func newGate(t *testing.T) *gate {
	g := &gate{arrived: make(chan gateCall, 64), release: make(chan struct{})}
	s := mcp.NewServer(&mcp.Implementation{Name: "gate", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		ID int `json:"id"`
	}) (*mcp.CallToolResult, gateCall, error) {
		c := gateCall{ID: in.ID, Replica: req.Extra.Header.Get("X-Replica")}
		g.arrived <- c
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, gateCall{}, ctx.Err()
		}
		return nil, c, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-g.release:
		default:
			close(g.release)
		}
	})
	g.url = srv.URL
	return g
}

// replicaConfig writes replica i's config file: the bundled calc and relay.wasm (a tool that
// forwards its arguments as an mcp.call to upstream "gate"), with gate's URL.
func replicaConfig(t *testing.T, dir string, i int, gateURL string) string {
	t.Helper()
	calc, err := filepath.Abs("../../guests/calc.wasm")
	if err != nil {
		t.Fatal(err)
	}
	relay, err := filepath.Abs("testdata/relay.wasm")
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{
		"guests": []any{
			map[string]any{"name": "calc", "path": calc},
			map[string]any{"name": "relay", "path": relay, "grants": map[string]any{"mcp": []string{"gate"}}},
		},
		"upstreams": map[string]any{"gate": map[string]any{"url": gateURL, "headers": map[string]string{"X-Replica": fmt.Sprint(i)}}},
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fmt.Sprintf("replica%d.json", i))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// cluster is n replicas behind lbproxy.
type cluster struct {
	replicas []*server
	urls     []string // base URLs of the replicas
	proxy    string   // the proxy's base URL
	proxyLog *lockedBuffer
}

func startCluster(t *testing.T, n int, gateURL string) *cluster {
	t.Helper()
	lb := buildLBProxy(t)
	dir := t.TempDir()
	c := &cluster{proxyLog: &lockedBuffer{}}
	for i := range n {
		url, s := startHTTP(t, "--stateless", "--config", replicaConfig(t, dir, i, gateURL),
			"--drain-delay", "300ms", "--drain-timeout", "10m")
		c.replicas = append(c.replicas, s)
		c.urls = append(c.urls, url)
	}
	// A readiness check that times out marks a replica not ready, and the proxy then skips it:
	// the exact round-robin counts below would depend on how fast a loaded machine answers
	// GET /readyz. The check's timeout is a time, not an event, so it is generous (a replica
	// that answers 503, as a draining one does, is still seen within one check interval).
	args := []string{"-check-interval", "50ms", "-check-timeout", "1m"}
	for _, u := range c.urls {
		args = append(args, "-backend", u)
	}
	cmd := exec.Command(lb, args...)
	cmd.Stderr = c.proxyLog
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("lbproxy stderr:\n%s", c.proxyLog)
		}
	})
	re := regexp.MustCompile(`listening on (http://\S+)`)
	waitOutput(t, c.proxyLog, "lbproxy to listen and see every replica ready", func(out string) bool {
		if m := re.FindStringSubmatch(out); m != nil {
			c.proxy = m[1]
		}
		for _, u := range c.urls {
			if !strings.Contains(out, "backend "+u+" ready") {
				return false
			}
		}
		return c.proxy != ""
	})
	return c
}

type backendState struct {
	URL    string `json:"url"`
	Ready  bool   `json:"ready"`
	Routed int64  `json:"routed"`
}

// state is the proxy's GET /lbz, by backend URL.
func (c *cluster) state(t *testing.T) map[string]backendState {
	t.Helper()
	resp, err := http.Get(c.proxy + "/lbz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []backendState
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	m := map[string]backendState{}
	for _, b := range list {
		m[b.URL] = b
	}
	return m
}

func connectSDK(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "replicas-test", Version: "0"}, nil)
	cs, err := c.Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callCalc(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "calc", Arguments: map[string]any{"expression": "2*(3+4)^2"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"value": 98.0}, res.StructuredContent); res.IsError || diff != "" {
		t.Errorf("calc 2*(3+4)^2: isError=%v, structuredContent (-want +got):\n%s", res.IsError, diff)
	}
}

// TestReplicasBehindProxy: the go-sdk client and the TypeScript SDK's client list tools and
// call calc through the proxy, each request going to a replica in turn; then a replica gets
// SIGTERM while calls it accepted are still running: its /readyz turns 503, the proxy stops
// routing to it, every one of its calls completes with its own result, and it exits 0.
func TestReplicasBehindProxy(t *testing.T) {
	g := newGate(t)
	c := startCluster(t, 3, g.url)

	t.Run("go-sdk client", func(t *testing.T) {
		cs := connectSDK(t, c.proxy+"/mcp")
		tools, err := cs.ListTools(testContext(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range tools.Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		if diff := cmp.Diff([]string{"calc", "relay"}, names); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
		before := c.state(t)
		for range 6 {
			callCalc(t, cs)
		}
		after := c.state(t)
		for _, u := range c.urls { // round robin: two of the six calls each
			if got := after[u].Routed - before[u].Routed; got != 2 || !after[u].Ready {
				t.Errorf("replica %s got %d of 6 calls (ready: %v), want 2", u, got, after[u].Ready)
			}
		}
	})

	t.Run("TypeScript SDK client", func(t *testing.T) {
		npmTool(t, "@modelcontextprotocol/sdk/package.json")
		script, err := filepath.Abs("../../testdata/interop/replicas-client.mjs")
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(testContext(t), "node", script, c.proxy+"/mcp")
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("node replicas-client.mjs: %v\n%s\n%s", err, out, stderr)
		}
		var got struct {
			Tools   []string `json:"tools"`
			Results []struct {
				IsError           bool               `json:"isError"`
				StructuredContent map[string]float64 `json:"structuredContent"`
				Content           []struct{ Type, Text string }
			} `json:"results"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("replicas-client.mjs output: %v\n%s", err, out)
		}
		if diff := cmp.Diff([]string{"calc", "relay"}, got.Tools); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
		if len(got.Results) != 3 {
			t.Fatalf("%d results, want 3: %s", len(got.Results), out)
		}
		for i, r := range got.Results {
			if r.IsError || r.StructuredContent["value"] != 98 || len(r.Content) != 1 || r.Content[0].Text != `{"value":98}` {
				t.Errorf("call %d: %+v", i, r)
			}
		}
	})

	t.Run("SIGTERM drains", func(t *testing.T) {
		victim, victimURL := c.replicas[0], c.urls[0]
		cs := connectSDK(t, c.proxy+"/mcp")
		const calls = 6
		type outcome struct {
			id  int
			res *mcp.CallToolResult
			err error
		}
		done := make(chan outcome, calls)
		for id := range calls {
			go func() {
				res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "relay",
					Arguments: map[string]any{"server": "gate", "tool": "wait", "arguments": map[string]any{"id": id}}})
				done <- outcome{id, res, err}
			}()
		}
		// Every call has reached the gate, i.e. is running in a guest on some replica.
		replicaOf := map[int]string{}
		for range calls {
			select {
			case a := <-g.arrived:
				replicaOf[a.ID] = a.Replica
			case o := <-done:
				t.Fatalf("call %d ended before reaching the gate: %v %+v", o.id, o.err, o.res)
			case <-testContext(t).Done():
				t.Fatalf("only %d of %d calls reached the gate", len(replicaOf), calls)
			}
		}
		accepted := 0
		for _, r := range replicaOf {
			if r == "0" {
				accepted++
			}
		}
		if accepted != 2 {
			t.Fatalf("the victim replica runs %d of the %d calls, want 2 (round robin): %v", accepted, calls, replicaOf)
		}

		if err := victim.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		waitLog(t, c.proxyLog, "backend "+victimURL+" not ready: 503 not ready: draining")
		routed := c.state(t)[victimURL].Routed
		for range 6 {
			callCalc(t, cs)
		}
		if st := c.state(t)[victimURL]; st.Ready || st.Routed != routed {
			t.Errorf("after the victim went unready the proxy still routed to it: %+v (routed before: %d)", st, routed)
		}
		select {
		case <-victim.exited:
			t.Fatalf("the victim exited with calls in flight; stderr:\n%s", victim.stderr)
		default:
		}

		close(g.release)
		for range calls {
			o := <-done
			if o.err != nil {
				t.Errorf("call %d: %v", o.id, o.err)
				continue
			}
			want := map[string]any{"id": float64(o.id), "replica": replicaOf[o.id]}
			if diff := cmp.Diff(want, o.res.StructuredContent); o.res.IsError || diff != "" {
				t.Errorf("call %d: isError=%v, structuredContent (-want +got):\n%s", o.id, o.res.IsError, diff)
			}
		}
		select {
		case <-victim.exited:
		case <-testContext(t).Done():
			t.Fatalf("the victim did not exit after its calls ended; stderr:\n%s", victim.stderr)
		}
		if code := victim.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("victim exit code %d, want 0; stderr:\n%s", code, victim.stderr)
		}
		if out := victim.stderr.String(); !strings.Contains(out, "msg=stopped transport=http") || strings.Contains(out, "drain timeout") {
			t.Errorf("victim log lacks a clean stop:\n%s", out)
		}
	})
}
