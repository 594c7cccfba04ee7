package main

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serve --http: a call still running at the drain timeout is ended and answered — a tool
// error naming the shutdown — before its connection closes (reproducer http-drain-drop: the
// client got no response at all).
func TestHTTPDrainTimeoutAnswersInFlight(t *testing.T) {
	base, s := startHTTP(t, "--stateless", "--status", "--timeout", "10m", "--drain-timeout", "200ms", fixturePath)
	call := func(id int, tool string) (string, error) {
		body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.Status + " " + string(b), err
	}
	answered := make(chan string, 1)
	go func() {
		got, err := call(7, "spin")
		if err != nil {
			got = "no answer: " + err.Error()
		}
		answered <- got
	}()
	// Wait until the spin call runs (the status tool shows a busy instance).
	for {
		got, err := call(8, "mcpwasm_status")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(got, `\"busy\":1`) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var got string
	select {
	case got = <-answered:
	case <-time.After(waitLimit(t)):
		t.Fatalf("no answer after SIGTERM; stderr:\n%s", s.stderr)
	}
	want := `guest \"fixture\" tool \"spin\": closed: the server is shutting down`
	if !strings.HasPrefix(got, "200 OK") || !strings.Contains(got, `"isError":true`) || !strings.Contains(got, want) {
		t.Errorf("the call running at the drain timeout got %q; want a tool error %s", got, want)
	}
	select {
	case <-s.exited:
	case <-time.After(waitLimit(t)):
		t.Fatalf("still running after the drain; stderr:\n%s", s.stderr)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}
