package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallExactNumbers: `mcpwasm call` sends its JSON arguments verbatim and prints the
// server's result with its digits, with --json and without (reproducer N07, client side),
// through the echo guest (testdata/wat/echo.wasm), whose result carries its arguments.
func TestCallExactNumbers(t *testing.T) {
	echo, err := filepath.Abs("../../testdata/wat/echo.wasm")
	if err != nil {
		t.Fatal(err)
	}
	server := []string{"--", binPath, "serve", "--cache-dir", cacheDir, echo}
	args := `{"n": 9007199254740993, "e": 1e400, "big": -12345678901234567890}`
	out, code := runClient(t, append([]string{"call", "--json", "echo", args}, server...)...)
	for _, want := range []string{`"n": 9007199254740993`, `"e": 1e400`, `"big": -12345678901234567890`} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("call --json: exit %d, output lacks %s:\n%s", code, want, out)
		}
	}
	out, code = runClient(t, append([]string{"call", "echo", args}, server...)...)
	if want := `{"n":9007199254740993,"e":1e400,"big":-12345678901234567890}` + "\n"; code != 0 || out != want {
		t.Errorf("call: exit %d, output %q, want %q", code, out, want)
	}
}

// TestCallShowsProgress: `mcpwasm call` sends a progress token; the fixture's steps tool
// reports progress, which is printed on stderr as lines when stderr is not a terminal.
func TestCallShowsProgress(t *testing.T) {
	cmd := exec.Command(binPath, "call", "steps", "--", binPath, "serve", "--cache-dir", cacheDir, fixturePath)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("call steps: %v\n%s", err, stderr.String())
	}
	if n := strings.Count(stderr.String(), "progress: "); n == 0 {
		t.Errorf("no progress lines on stderr:\n%s\n(stdout %q)", stderr.String(), out)
	}
	if strings.Contains(stderr.String(), "\r") || strings.Contains(stderr.String(), "\x1b[") {
		t.Errorf("terminal control sequences on a non-terminal stderr: %q", stderr.String())
	}
}

// TestGatewayExactNumbers: a tool exposed from an upstream (the gateway) returns the
// upstream's numbers exactly; the upstream here is mcpwasm serving the echo guest
// (reproducer N07, the gateway path).
func TestGatewayExactNumbers(t *testing.T) {
	echo, err := filepath.Abs("../../testdata/wat/echo.wasm")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"upstreams": map[string]any{"up": map[string]any{
		"command": []string{binPath, "serve", "--cache-dir", cacheDir, "--log-level", "warn", echo}, "expose": true}}})
	p := filepath.Join(t.TempDir(), "mcpwasm.json")
	if err := os.WriteFile(p, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runClient(t, "call", "up__echo", `{"n":9007199254740993,"e":1e400}`, "--", binPath, "serve", "--cache-dir", cacheDir, "--config", p)
	if want := `{"n":9007199254740993,"e":1e400}` + "\n"; code != 0 || out != want {
		t.Errorf("up__echo: exit %d, output %q, want %q", code, out, want)
	}
}
