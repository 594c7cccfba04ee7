package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Interop: the TypeScript SDK's client (@modelcontextprotocol/sdk, pinned in
// testdata/interop) drives `mcpwasm serve` over stdio; the guest's tool samples through the
// client's sampling handler, and the tool result carries the handler's fixed text.
func TestClientRequestsInteropTypeScript(t *testing.T) {
	conf := writeConfig(t, `{"guests": [{"path": "`+askWasm(t)+`", "grants": {"sampling": true}}]}`)
	res, stderr := runSamplingClient(t, "summarize", conf)
	want := "summary (ts-model): answer from the TypeScript client (1 message)"
	if res.IsError || len(res.Content) != 1 || res.Content[0].Text != want {
		t.Errorf("result = %+v, want one text block %q\nstderr:\n%s", res, want, stderr)
	}
}

// interopResult is the CallToolResult the interop client prints.
type interopResult struct {
	Content []struct{ Type, Text string }
	IsError bool
}

// runSamplingClient runs testdata/interop/sampling-client.mjs (the TypeScript SDK's client,
// its sampling handler answering a fixed text) in mode against `mcpwasm serve --config conf`
// over stdio, and returns the tool result it printed and its stderr.
func runSamplingClient(t *testing.T, mode, conf string) (interopResult, string) {
	t.Helper()
	var res interopResult
	stderr := runInteropClient(t, &res, "testdata/interop/sampling-client.mjs", mode,
		binPath, "serve", "--cache-dir", cacheDir, "--config", conf)
	return res, stderr
}

// runInteropClient runs node with args (a client script under testdata/interop, built on the
// TypeScript SDK of testdata/interop/node_modules), decodes the one JSON value it prints into
// out and returns its stderr; a failed run or output that is not JSON fails the test.
func runInteropClient(t *testing.T, out any, args ...string) string {
	t.Helper()
	sdkIndex := npmTool(t, "@modelcontextprotocol/sdk/dist/esm/client/index.js")
	modules := strings.TrimSuffix(sdkIndex, filepath.FromSlash("/@modelcontextprotocol/sdk/dist/esm/client/index.js"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Env = append(os.Environ(), "MCPWASM_INTEROP_MODULES="+modules)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s\n%s", err, b, stderr.String())
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("client output is not JSON: %v\n%s", err, b)
	}
	return stderr.String()
}

// inspect --config shows the client request kinds as requested, granted and effective, and
// names the tools that lack them.
func TestInspectClientRequestGrants(t *testing.T) {
	ask := askWasm(t)
	conf := writeConfig(t, `{"guests": [{"path": "`+ask+`", "grants": {"sampling": true, "roots": true},
		"tools": {"summarize": {"grants": {"sampling": true}}}}]}`)
	out, err := exec.Command(binPath, "inspect", "--cache-dir", cacheDir, "--config", conf, ask).CombinedOutput()
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	for _, want := range []string{
		"requests: sampling; elicitation; roots\n",
		"not granted: elicitation, roots (all 4 tools); sampling (tools confirm, draft, roots)\n",
		"  summarize — Summarize\n",
		"    granted:   sampling\n    effective: sampling\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
}
