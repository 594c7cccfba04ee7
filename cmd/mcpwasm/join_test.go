package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// serve joins every goroutine it starts (kill-switch watchers, --watch, the gateway's
// retries) before it returns: none of them is left running afterwards.
func TestServeJoinsItsGoroutines(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	var stdout, stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), []string{"serve", "--cache-dir", cacheDir, "--watch",
			"--stop-file", filepath.Join(t.TempDir(), "stop"), fixturePath}, stdinR, &stdout, &stderr)
	}()
	initLine := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n"
	if _, err := io.WriteString(stdinW, initLine); err != nil {
		t.Fatal(err)
	}
	stdinW.Close()
	if code := <-done; code != ExitOK {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr.String())
	}
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for _, fn := range []string{"main.watchStopFile", "main.watchGuests", "main.watchStopSignals", "main.exposeUpstreams"} {
		if strings.Contains(stacks, fn) {
			t.Errorf("%s still running after serve returned:\n%s", fn, stacks)
		}
	}
	if !strings.Contains(stdout.String(), `"id":1,"result"`) {
		t.Errorf("no initialize result: %s", stdout.String())
	}
}

// A stop signal (the context run gets) ends a stdio serve with a call running within the
// drain grace, not at the call's time limit. (The SDK writes nothing once its run is
// cancelled, so the interrupted call gets no answer; the client is going away.)
func TestServeSignalStopsRunningCall(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	stdout := &lockedBuffer{}
	var stderr bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve", "--cache-dir", cacheDir, "--timeout", "10m", fixturePath}, stdinR, stdout, &stderr)
	}()
	lines := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"spin","arguments":{}}}` + "\n"
	if _, err := io.WriteString(stdinW, lines); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, stdout, "the initialize result", func(s string) bool { return strings.Contains(s, `"id":1,"result"`) })
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("exit code %d; want %d", code, ExitOK)
		}
	case <-time.After(time.Minute): // a failure bound: the grace is 1 s, the call's limit 10 min
		t.Fatal("serve did not return after the stop signal")
	}
}
