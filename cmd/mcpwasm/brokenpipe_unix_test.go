//go:build unix

package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A client that closes serve's stdout and then its stdin while a call runs: serve is not
// killed by SIGPIPE (exit status 141 from a shell, no log line) when it writes that call's
// answer; it logs one line and exits 0, as when only stdin is closed (reproducer: fresh
// eyes, nit d).
func TestServeStdoutClosedMidCall(t *testing.T) {
	cmd := exec.CommandContext(testContext(t), binPath, "serve", "--cache-dir", cacheDir, fixturePath)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = outW, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	send := func(line string) {
		t.Helper()
		if _, err := stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if _, err := bufio.NewReader(outR).ReadString('\n'); err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"spin","arguments":{}}}`)
	// spin loops until the host closes, which follows the end of stdin: its answer is
	// written after both are closed.
	outR.Close()
	stdin.Close()
	err = cmd.Wait()
	if err != nil {
		t.Fatalf("serve: %v (%v), want exit 0\nstderr:\n%s", err, cmd.ProcessState, stderr.String())
	}
	const logged = "the peer closed its input (our output)"
	if n := strings.Count(stderr.String(), logged); n != 1 {
		t.Errorf("stderr has %d lines saying %q, want 1:\n%s", n, logged, stderr.String())
	}
	if strings.Contains(stderr.String(), "level=ERROR") {
		t.Errorf("stderr has an error:\n%s", stderr.String())
	}
}
