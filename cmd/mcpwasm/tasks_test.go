package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskServer serves the conformance guest in process (mcpserver on the go-sdk, default HTTP
// mode) with the clock granted, so its tasks fixtures run: failing_job requires a task,
// slow_compute may run as one. It returns the endpoint and the methods the server answered,
// in order (each recorded after it was answered).
func taskServer(t *testing.T) (string, func() []string) {
	t.Helper()
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	wasm, err := os.ReadFile(conformanceGuest(t))
	if err != nil {
		t.Fatal(err)
	}
	g, err := h.Load(ctx, wasm, &runtime.GuestConfig{Grants: runtime.Grants{Clock: true, Elicitation: true}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mcpserver.StopTasks(context.Background(), s) }) // before the host closes
	var mu sync.Mutex
	var methods []string
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			mu.Lock()
			methods = append(methods, method)
			mu.Unlock()
			return res, err
		}
	})
	hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, nil))
	t.Cleanup(hs.Close)
	return hs.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(methods)
	}
}

var taskLine = regexp.MustCompile(`^task ([0-9a-f]{32}): (.*)$`)

// taskLines are the "task ID: status" lines of stderr, with the id checked to be one.
func taskLines(t *testing.T, stderr string) []string {
	t.Helper()
	var out []string
	id := ""
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		m := taskLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if id != "" && m[1] != id {
			t.Errorf("two task ids in %q", stderr)
		}
		id = m[1]
		out = append(out, m[2])
	}
	return out
}

// mcpwasm call of a tool that requires a task: the client declares the tasks extension, the
// server answers with a task, the client follows it (printing each status) and prints the
// result it fetched with tasks/get; a tool error exits ExitToolError.
func TestCallFollowsTask(t *testing.T) {
	url, methods := taskServer(t)
	var stdout, stderr bytes.Buffer
	code, err := client(testContext(t), "call", []string{"--url", url + "/mcp", "failing_job"}, strings.NewReader(""), &stdout, &stderr)
	if err != nil || code != ExitToolError {
		t.Fatalf("exit %d, %v; stderr:\n%s", code, err, stderr.String())
	}
	if got := stdout.String(); got != "failing_job failed, as it always does\n" {
		t.Errorf("stdout = %q", got)
	}
	if got := taskLines(t, stderr.String()); !slices.Equal(got, []string{"working", "completed"}) {
		t.Errorf("task lines %q, want working then completed; stderr:\n%s", got, stderr.String())
	}
	if m := methods(); !slices.Contains(m, "tasks/get") || slices.Contains(m, "tasks/cancel") {
		t.Errorf("methods %v: want tasks/get and no tasks/cancel", m)
	}
}

// Interrupting mcpwasm call while its task runs (Ctrl-C cancels the command's context)
// cancels the task on the server (tasks/cancel) and says so.
func TestCallCancelsTask(t *testing.T) {
	url, methods := taskServer(t)
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	stderr := &lockedBuffer{}
	go func() { // interrupt once the task is working
		for {
			ch := stderr.changed()
			if strings.Contains(stderr.String(), ": working\n") {
				cancel()
				return
			}
			select {
			case <-ch:
			case <-ctx.Done():
				return
			}
		}
	}()
	var stdout bytes.Buffer
	code, err := client(ctx, "call", []string{"--url", url + "/mcp", "slow_compute", `{"seconds": 600, "label": "long"}`}, strings.NewReader(""), &stdout, stderr)
	if code != ExitError || err == nil || err.Error() != "interrupted; the request was cancelled" {
		t.Fatalf("exit %d, %v; want %d and interrupted; stderr:\n%s", code, err, ExitError, stderr.String())
	}
	if got := taskLines(t, stderr.String()); !slices.Equal(got, []string{"working", "cancelled (tasks/cancel sent)"}) {
		t.Errorf("task lines %q; stderr:\n%s", got, stderr.String())
	}
	if m := methods(); !slices.Contains(m, "tasks/cancel") {
		t.Errorf("methods %v: want tasks/cancel", m)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}
