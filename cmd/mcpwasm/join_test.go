package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
