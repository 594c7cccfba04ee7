package engine

// The kind suite: the spectest of this house. One table of behaviours every guest kind must
// have (the cases), one column per registered kind (suiteKinds) giving a fixture for each case
// it applies to. A case a kind does not give a fixture for is an error, unless the kind says
// why it does not apply (notApplicable) or which test covers it outside the suite (elsewhere):
// both are logged, never skipped silently. A new kind adds its column here.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// suiteFixture is one kind's module and tool for a case.
type suiteFixture struct {
	wasm func(t *testing.T) []byte
	tool string
	args string
	// want is the exact result of the call case; entered, for the cases that end a running
	// call, is the message the tool logs before it runs forever (the event the test waits
	// for); limits are the guest's limits the case loads it with.
	want    string
	entered string
	limits  Limits
	// check, for the reset case, checks one result of tool in an instance of its own; for the
	// oversized argument case, the result and the log lines the call delivered.
	check     func(out string) error
	checkLogs func(out string, logs []string) error
	// checkErr, for a kind that ends the call at an oversized argument, checks its error.
	checkErr func(err error, logs []string) error
}

// suiteKind is one kind's column: a fixture per case, or why there is none.
type suiteKind struct {
	name     string
	fixtures map[string]suiteFixture
	// notApplicable names the cases that do not apply to the kind, and why.
	notApplicable map[string]string
	// elsewhere names the cases tested for the kind outside the suite, and by which test.
	elsewhere map[string]string
}

// suiteCase is one behaviour.
type suiteCase struct {
	name string
	run  func(t *testing.T, k suiteKind, f suiteFixture)
}

func extismFixture(name string) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		b, err := os.ReadFile(filepath.Join("..", "kind", "extism", "testdata", name+".wasm"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// goProbe is the bundled Go guest testdata/guests/probe (tools env, clock, random, http, …),
// built once per test binary.
func goProbe(t *testing.T) []byte {
	t.Helper()
	goProbeBuilt.Lock()
	defer goProbeBuilt.Unlock()
	if goProbeBuilt.wasm == nil {
		out := filepath.Join(t.TempDir(), "probe.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "./testdata/guests/probe")
		cmd.Dir = "../../.."
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building the probe guest: %v\n%s", err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		goProbeBuilt.wasm = b
	}
	return goProbeBuilt.wasm
}

var goProbeBuilt struct {
	sync.Mutex
	wasm []byte
}

func watFixture(b []byte) func(*testing.T) []byte { return func(*testing.T) []byte { return b } }

// jsFixture builds guests/typescript/testdata/file with the example's build script, once per
// test binary.
func jsFixture(file string) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		t.Helper()
		jsBuilt.Lock()
		defer jsBuilt.Unlock()
		if b, ok := jsBuilt.m[file]; ok {
			return b
		}
		b := testenv.BuildJS(t, "../../..", file)
		jsBuilt.m[file] = b
		return b
	}
}

var jsBuilt = struct {
	sync.Mutex
	m map[string][]byte
}{m: map[string][]byte{}}

// suiteKinds are the columns, one per registered kind (TestKindSuiteCoversEveryKind).
var suiteKinds = []suiteKind{
	{
		name: "mcpwasm",
		fixtures: map[string]suiteFixture{
			"load and list":       {wasm: watFixture(wat.Fixture), tool: "echo"},
			"call":                {wasm: watFixture(wat.Fixture), tool: "echo", args: `{"text":"hi"}`, want: `{"content":[],"structuredContent":{"text":"hi"}}`},
			"time limit":          {wasm: watFixture(wat.Fixture), tool: "spin"},
			"memory limit":        {wasm: watFixture(wat.Fixture), tool: "oom", limits: Limits{MemoryBytes: 16 << 20}},
			"output limit":        {wasm: watFixture(wat.Fixture), tool: "echo"},
			"cancel":              {wasm: watFixture(wat.Interrupt), tool: "spin", entered: "entered"},
			"close during a call": {wasm: watFixture(wat.Interrupt), tool: "spin", entered: "entered"},
			"kill switch":         {wasm: watFixture(wat.Interrupt), tool: "spin", entered: "entered"},
			"reset in place and isolation": {wasm: watFixture(wat.State), tool: "remember", args: `{"n":1}`,
				check: wantExact(`{"content":[],"structuredContent":{}}`)},
			"snapshot":                 {wasm: watFixture(wat.Fixture), tool: "echo"},
			"one admission per report": {wasm: watFixture(wat.Updated), tool: "flood"},
			"grants in tools":          {wasm: goProbe, tool: "http", args: `{"url":"URL"}`},
			// A request body whose stated size is over kind.MaxRequestBody (and outside linear
			// memory): TOO_LARGE, status 4, before a byte is read.
			"oversized host-call argument": {wasm: watFixture(wat.Hardening), tool: "body", checkLogs: func(out string, _ []string) error {
				return wantToolText("status 4")(out)
			}},
		},
		elsewhere: map[string]string{
			"grants in start, resources, prompts": "TestPerToolNarrowing, TestWASIGrants (runtime/grants_test.go)",
		},
	},
	{
		name: "extism",
		fixtures: map[string]suiteFixture{
			"load and list":       {wasm: extismFixture("v1"), tool: "echo"},
			"call":                {wasm: extismFixture("v1"), tool: "echo", args: `{"text":"hi"}`, want: `{"content":[{"type":"text","text":"hi"}]}`},
			"time limit":          {wasm: extismFixture("v1"), tool: "loop"},
			"memory limit":        {wasm: extismFixture("v1"), tool: "grow", limits: Limits{MemoryBytes: 32 << 20}},
			"output limit":        {wasm: extismFixture("v1"), tool: "echo"},
			"cancel":              {wasm: extismFixture("v1"), tool: "loop", entered: "looping"},
			"close during a call": {wasm: extismFixture("v1"), tool: "loop", entered: "looping"},
			"kill switch":         {wasm: extismFixture("v1"), tool: "loop", entered: "looping"},
			"reset in place and isolation": {wasm: extismFixture("v1"), tool: "vars",
				check: wantToolText("count=1 tmp deleted")},
			"snapshot":                 {wasm: extismFixture("v1"), tool: "echo"},
			"one admission per report": {wasm: extismFixture("dyn"), tool: "touch"},
			"grants in tools":          {wasm: extismFixture("v1"), tool: "http", args: `{"url":"URL"}`},
			// A notify_logging_message block of 400,000 bytes, over kind.MaxReportJSON: the call
			// ends naming the cap, nothing of it reaches the log.
			"oversized host-call argument": {wasm: extismFixture("argcap"), tool: "biglog", checkErr: func(err error, logs []string) error {
				if want := `guest "g" tool "biglog": extism:host notify_logging_message: logging message of 400000 bytes is over the cap of 385 KiB`; err == nil || !errors.Is(err, kind.ErrArgTooLarge) || err.Error() != want || len(logs) != 0 {
					return fmt.Errorf("err %v, logs %.100q; want %s and no log", err, logs, want)
				}
				return nil
			}},
		},
		elsewhere: map[string]string{
			"grants in start, resources, prompts": "TestExtismResourceReadHasGuestGrants (runtime/extism_test.go)",
		},
	},
	{
		name: "javascript",
		fixtures: map[string]suiteFixture{
			"load and list":       {wasm: jsFixture("limits.js"), tool: "echo"},
			"call":                {wasm: jsFixture("limits.js"), tool: "echo", args: `{"text":"hi"}`, want: `{"content":[{"type":"text","text":"hi"}]}`},
			"time limit":          {wasm: jsFixture("limits.js"), tool: "spin"},
			"memory limit":        {wasm: jsFixture("limits.js"), tool: "hog", limits: Limits{MemoryBytes: 64 << 20}},
			"output limit":        {wasm: jsFixture("limits.js"), tool: "echo"},
			"cancel":              {wasm: jsFixture("abort.js"), tool: "ignore", entered: "waiting"},
			"close during a call": {wasm: jsFixture("abort.js"), tool: "ignore", entered: "waiting"},
			"kill switch":         {wasm: jsFixture("abort.js"), tool: "ignore", entered: "waiting"},
			"reset in place and isolation": {wasm: jsFixture("state.js"), tool: "state", check: func(out string) error {
				var r struct{ Content []struct{ Text string } }
				var s struct{ Calls int }
				if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Content) != 1 {
					return fmt.Errorf("result %s: %v", out, err)
				}
				if err := json.Unmarshal([]byte(r.Content[0].Text), &s); err != nil || s.Calls != 1 {
					return fmt.Errorf("calls %d in %s, want 1 (%v)", s.Calls, r.Content[0].Text, err)
				}
				return nil
			}},
			"snapshot":                 {wasm: jsFixture("state.js"), tool: "state"},
			"one admission per report": {wasm: jsFixture("updated.js"), tool: "touch"},
			"grants in tools":          {wasm: jsFixture("limits.js"), tool: "fetch", args: `{"url":"URL"}`},
			// A console.log of 1 MiB, over kind.MaxReportJSON: dropped with a warning naming the
			// cap; the small line after it is delivered.
			"oversized host-call argument": {wasm: jsFixture("argcap.js"), tool: "biglog", checkLogs: func(out string, logs []string) error {
				if err := wantToolText("logged")(out); err != nil {
					return err
				}
				if len(logs) != 2 || !strings.HasPrefix(logs[0], "log dropped: log payload of ") || !strings.HasSuffix(logs[0], " bytes is over the cap of 385 KiB") || logs[1] != "small" {
					return fmt.Errorf("logs %.200q; want the drop naming the cap, then small", logs)
				}
				return nil
			}},
		},
		elsewhere: map[string]string{
			"grants in start, resources, prompts": "TestJavaScriptHandlersHaveGuestGrants, TestJavaScriptSnapshotNotCachedWithEnv (guests/typescript_test.go)",
		},
	},
}

func wantExact(want string) func(string) error {
	return func(out string) error {
		if out != want {
			return fmt.Errorf("got %s, want %s", out, want)
		}
		return nil
	}
}

func wantToolText(want string) func(string) error {
	return wantExact(`{"content":[{"type":"text","text":` + fmt.Sprintf("%q", want) + `}]}`)
}

// suiteLog is a log sink safe for the host's concurrent writes.
type suiteLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *suiteLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *suiteLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// suiteHost is a host for one case, logging at debug level into the returned sink.
func suiteHost(t *testing.T) (*Host, *suiteLog) {
	t.Helper()
	logs := &suiteLog{}
	h, err := NewHost(context.Background(), &Options{NoDiskCache: true,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, logs
}

func suiteLoad(t *testing.T, h *Host, k suiteKind, f suiteFixture, cfg *GuestConfig) *Guest {
	t.Helper()
	if cfg == nil {
		cfg = &GuestConfig{}
	}
	cfg.Name = "g"
	if cfg.Limits == (Limits{}) {
		cfg.Limits = f.limits
	}
	g, err := h.Load(context.Background(), f.wasm(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if g.Kind() != k.name {
		t.Fatalf("loaded as kind %q, want %q", g.Kind(), k.name)
	}
	return g
}

// echoArgs are arguments every kind's echo tool takes.
const echoArgs = `{"text":"alive"}`

// stillServes checks that g answers its echo tool after a call ended badly.
func stillServes(t *testing.T, g *Guest, k suiteKind) {
	t.Helper()
	echo, ok := k.fixtures["call"]
	if !ok || g.lists().tools[echo.tool] == nil {
		return // the fixture has no echo tool: the case's own checks stand
	}
	if _, err := g.Call(context.Background(), echo.tool, []byte(echoArgs)); err != nil {
		t.Errorf("the next call failed: %v", err)
	}
}

// endRunning runs f.tool, waits until it logged f.entered, ends it with end and returns the
// call's error.
func endRunning(t *testing.T, g *Guest, f suiteFixture, ctx context.Context, end func()) error {
	t.Helper()
	entered := make(chan struct{})
	var once sync.Once
	ctx = WithCallHooks(ctx, &CallHooks{Log: func(_ abi.Level, msg string) {
		if msg == f.entered {
			once.Do(func() { close(entered) })
		}
	}})
	done := make(chan error, 1)
	go func() { _, err := g.Call(ctx, f.tool, []byte(`{}`)); done <- err }()
	select {
	case <-entered:
	case err := <-done:
		t.Fatalf("the call ended before it logged %q: %v", f.entered, err)
	}
	end()
	return <-done
}

var suiteCases = []suiteCase{
	{"load and list", func(t *testing.T, k suiteKind, f suiteFixture) {
		h, _ := suiteHost(t)
		g := suiteLoad(t, h, k, f, nil)
		st := h.Stats()
		if len(st) != 1 || st[0].Kind != k.name || !contains(st[0].Tools, f.tool) {
			t.Errorf("stats %+v, want one guest of kind %s listing %s", st, k.name, f.tool)
		}
		_ = g
	}},
	{"call", func(t *testing.T, k suiteKind, f suiteFixture) {
		h, _ := suiteHost(t)
		g := suiteLoad(t, h, k, f, nil)
		out, err := g.Call(context.Background(), f.tool, []byte(f.args))
		if err != nil || string(out) != f.want {
			t.Errorf("Call(%s, %s) = %s, %v; want %s", f.tool, f.args, out, err, f.want)
		}
	}},
	{"time limit", func(t *testing.T, k suiteKind, f suiteFixture) {
		h, _ := suiteHost(t)
		const limit = 300 * time.Millisecond
		g := suiteLoad(t, h, k, f, &GuestConfig{Limits: Limits{Timeout: limit, Instances: 1}})
		start := time.Now()
		_, err := g.Call(context.Background(), f.tool, []byte(`{}`))
		if want := fmt.Sprintf(`guest "g" tool %q: time limit exceeded (300ms)`, f.tool); !errors.Is(err, ErrTimeLimit) || err.Error() != want {
			t.Errorf("err = %v; want %s", err, want)
		}
		if took := time.Since(start); took < limit {
			t.Errorf("stopped after %v, before the limit", took)
		}
		stillServes(t, g, k)
	}},
	{"memory limit", func(t *testing.T, k suiteKind, f suiteFixture) {
		h, _ := suiteHost(t)
		g := suiteLoad(t, h, k, f, nil)
		if _, err := g.Call(context.Background(), f.tool, []byte(`{}`)); !errors.Is(err, ErrMemoryLimit) {
			t.Errorf("err = %v; want ErrMemoryLimit", err)
		}
		stillServes(t, g, k)
	}},
	{"output limit", func(t *testing.T, k suiteKind, f suiteFixture) {
		h, _ := suiteHost(t)
		g := suiteLoad(t, h, k, f, &GuestConfig{ToolLimits: map[string]Limits{f.tool: {OutputBytes: 4096}}})
		args := `{"text":"` + strings.Repeat("x", 10_000) + `"}`
		_, err := g.Call(context.Background(), f.tool, []byte(args))
		if !errors.Is(err, ErrOutputLimit) {
			t.Errorf("err = %v; want ErrOutputLimit", err)
		}
		if out, err := g.Call(context.Background(), f.tool, []byte(echoArgs)); err != nil {
			t.Errorf("a small result after: %s, %v", out, err)
		}
	}},
	{"cancel", func(t *testing.T, k suiteKind, f suiteFixture) {
		h, _ := suiteHost(t)
		g := suiteLoad(t, h, k, f, nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := endRunning(t, g, f, ctx, cancel); !errors.Is(err, ErrCancelled) || !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v; want ErrCancelled and context.Canceled", err)
		}
	}},
	{"close during a call", func(t *testing.T, k suiteKind, f suiteFixture) {
		h, _ := suiteHost(t)
		g := suiteLoad(t, h, k, f, nil)
		err := endRunning(t, g, f, context.Background(), func() {
			if err := g.Close(context.Background()); err != nil {
				t.Error(err)
			}
		})
		if !errors.Is(err, ErrClosed) {
			t.Errorf("err = %v; want ErrClosed", err)
		}
		if _, err := g.Call(context.Background(), f.tool, nil); !errors.Is(err, ErrClosed) {
			t.Errorf("a call after Close: %v; want ErrClosed", err)
		}
		if err := g.Close(context.Background()); err != nil {
			t.Errorf("second Close: %v", err)
		}
	}},
	{"kill switch", func(t *testing.T, k suiteKind, f suiteFixture) {
		h, _ := suiteHost(t)
		g := suiteLoad(t, h, k, f, nil)
		err := endRunning(t, g, f, context.Background(), h.Stop)
		if want := fmt.Sprintf(`guest "g" tool %q: calls are stopped by the operator`, f.tool); !errors.Is(err, ErrStopped) || err.Error() != want {
			t.Errorf("running call: %v; want %s", err, want)
		}
		if _, err := g.Call(context.Background(), f.tool, nil); !errors.Is(err, ErrStopped) {
			t.Errorf("a call while stopped: %v; want ErrStopped", err)
		}
		h.Resume()
		stillServes(t, g, k)
	}},
	{"reset in place and isolation", func(t *testing.T, k suiteKind, f suiteFixture) {
		h, _ := suiteHost(t)
		g := suiteLoad(t, h, k, f, &GuestConfig{Isolation: "call", Limits: Limits{Instances: 1}})
		for i := range 3 {
			out, err := g.Call(context.Background(), f.tool, []byte(f.args))
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			if err := f.check(string(out)); err != nil {
				t.Errorf("call %d saw another call's state: %v", i, err)
			}
		}
		if st := h.Stats(); len(st) != 1 || st[0].Resets < 2 {
			t.Errorf("stats %+v: want the one instance reset in place after each call (Resets ≥ 2)", st)
		}
	}},
	{"snapshot", func(t *testing.T, k suiteKind, f suiteFixture) {
		h, logs := suiteHost(t)
		g := suiteLoad(t, h, k, f, &GuestConfig{Isolation: "call"})
		for range 2 {
			if _, err := g.Call(context.Background(), f.tool, []byte(echoArgs)); err != nil {
				t.Fatal(err)
			}
		}
		l := logs.String()
		if !strings.Contains(l, `msg="instances start from a snapshot" guest=g`) {
			why := "no snapshot logged"
			for _, line := range strings.Split(l, "\n") {
				if strings.Contains(line, "not from a snapshot") {
					why = line
				}
			}
			t.Errorf("instances do not start from a snapshot: %s", why)
		}
	}},
	{"one admission per report", func(t *testing.T, k suiteKind, f suiteFixture) {
		// Each resource.updated that reaches the client is one report of the call's budget
		// (kind.Budget.Messages), never two (an Extism notify_resource_updated was admitted
		// by the plugin's host function and again by the seam's resource.updated).
		h, _ := suiteHost(t)
		g := suiteLoad(t, h, k, f, nil)
		var delivered atomic.Int64
		cctx := WithCallHooks(context.Background(), &CallHooks{ResourceUpdated: func(string) { delivered.Add(1) }})
		tl := g.lists().tools[f.tool]
		inst, err := tl.pool.acquire(cctx, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = inst.enter(cctx, kind.EntryTool, f.tool, []byte(`{}`), tl.limits, tl.sandbox)
		b := inst.budget.Take()
		tl.pool.release(inst, err == nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if delivered.Load() == 0 || delivered.Load() != int64(b.Messages) {
			t.Errorf("%d resource.updated delivered, %d admissions; want as many admissions as deliveries", delivered.Load(), b.Messages)
		}
	}},
	{"grants in tools", func(t *testing.T, k suiteKind, f suiteFixture) {
		// A tool reaches the network only through its grant: refused, naming the grant,
		// without one; served with the granted host.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "pong") }))
		defer srv.Close()
		u, _ := url.Parse(srv.URL)
		args := []byte(strings.Replace(f.args, "URL", srv.URL+"/x", 1))
		h, _ := suiteHost(t)
		bare := suiteLoad(t, h, k, f, nil)
		out, err := bare.Call(context.Background(), f.tool, args)
		want := `net: no hosts are granted to guest "g"` // in a Go error, or in a tool error's JSON
		if got := fmt.Sprint(string(out), err); !strings.Contains(got, want) && !strings.Contains(got, strings.ReplaceAll(want, `"`, `\"`)) {
			t.Errorf("without a grant: %s; want a refusal saying %s", got, want)
		}
		h2, _ := suiteHost(t)
		granted := suiteLoad(t, h2, k, f, &GuestConfig{Grants: Grants{Net: []string{u.Host}}})
		out, err = granted.Call(context.Background(), f.tool, args)
		if err != nil || !strings.Contains(string(out), "pong") || strings.Contains(string(out), `"isError":true`) {
			t.Errorf("with the grant: %s, %v; want the server's pong", out, err)
		}
	}},
	{"oversized host-call argument", func(t *testing.T, k suiteKind, f suiteFixture) {
		// An argument over its cap (kind.CheckArg) is refused before it is copied, the refusal
		// names the cap, and the guest goes on serving (the same call again).
		h, _ := suiteHost(t)
		g := suiteLoad(t, h, k, f, nil)
		for i := range 2 {
			var mu sync.Mutex
			var logs []string
			ctx := WithCallHooks(context.Background(), &CallHooks{Log: func(_ abi.Level, msg string) {
				mu.Lock()
				logs = append(logs, msg)
				mu.Unlock()
			}})
			out, err := g.Call(ctx, f.tool, []byte(`{}`))
			mu.Lock()
			if f.checkErr != nil {
				err = f.checkErr(err, logs)
			} else if err == nil {
				err = f.checkLogs(string(out), logs)
			}
			mu.Unlock()
			if err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		}
	}},
	{"grants in start, resources, prompts", nil},
}

// TestKindSuite runs every case over every kind.
func TestKindSuite(t *testing.T) {
	for _, c := range suiteCases {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range suiteKinds {
				t.Run(k.name, func(t *testing.T) {
					if why, ok := k.notApplicable[c.name]; ok {
						t.Logf("not applicable to %s: %s", k.name, why)
						return
					}
					if where, ok := k.elsewhere[c.name]; ok {
						t.Logf("tested for %s outside the suite: %s", k.name, where)
						return
					}
					f, ok := k.fixtures[c.name]
					if !ok || c.run == nil {
						t.Fatalf("kind %s gives no fixture for case %q (give one, or say why it does not apply)", k.name, c.name)
					}
					c.run(t, k, f)
				})
			}
		})
	}
}

// TestKindSuiteCoversEveryKind: a registered kind without a column fails here, and so does a
// column that names a case the suite does not have.
func TestKindSuiteCoversEveryKind(t *testing.T) {
	cases := map[string]bool{}
	for _, c := range suiteCases {
		cases[c.name] = true
	}
	for _, reg := range kinds {
		found := false
		for _, k := range suiteKinds {
			found = found || k.name == reg.Name()
		}
		if !found {
			t.Errorf("kind %s has no column in the kind suite", reg.Name())
		}
	}
	for _, k := range suiteKinds {
		for _, m := range []map[string]string{k.notApplicable, k.elsewhere} {
			for name := range m {
				if !cases[name] {
					t.Errorf("kind %s names case %q, which the suite does not have", k.name, name)
				}
			}
		}
		for name := range k.fixtures {
			if !cases[name] {
				t.Errorf("kind %s gives a fixture for case %q, which the suite does not have", k.name, name)
			}
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
