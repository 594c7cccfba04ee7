package main

import (
	"encoding/json"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// npmTool returns the absolute path of a file of an npm package installed by
// `npm ci --prefix testdata/interop` (done by .ci/run), e.g.
// "@modelcontextprotocol/inspector-cli/build/index.js". Outside CI a missing install (or a
// missing node) skips the test; under CI it fails it.
func npmTool(t *testing.T, rel string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("../../testdata/interop/node_modules", rel))
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat(path)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		testenv.Skip(t, "%s not installed (run: npm ci --prefix testdata/interop): %v %v", rel, statErr, nodeErr)
	}
	return path
}

// inspectorCLI returns the MCP Inspector CLI entry point.
func inspectorCLI(t *testing.T) string {
	return npmTool(t, "@modelcontextprotocol/inspector-cli/build/index.js")
}

// runInspector runs the Inspector CLI against `mcpwasm serve` over stdio and decodes its JSON.
func runInspector(t *testing.T, out any, args ...string) {
	t.Helper()
	inspectorJSON(t, out, append([]string{binPath, "serve", "--cache-dir", cacheDir}, args...)...)
}

// inspectorJSON runs the Inspector CLI with args (its target, then its flags) and decodes the
// JSON it prints. It runs in the CLI's build directory: inspector-cli 1.0.3 resolves its own
// package.json relative to the working directory.
func inspectorJSON(t *testing.T, out any, args ...string) {
	t.Helper()
	index := inspectorCLI(t)
	cmd := exec.CommandContext(testContext(t), "node", append([]string{index}, args...)...)
	cmd.Dir = filepath.Dir(index)
	b, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("inspector %v: %v\n%s\n%s", args, err, b, stderr)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("inspector output is not JSON: %v\n%s", err, b)
	}
}

func TestInspectorListsAndCallsTools(t *testing.T) {
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	runInspector(t, &list, "--method", "tools/list")
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	want := []string{"base64_decode", "base64_encode", "calc", "count", "echo", "json_query", "regex_match", "sha256"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	var res struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		StructuredContent map[string]float64 `json:"structuredContent"`
		IsError           bool               `json:"isError"`
	}
	runInspector(t, &res, "--method", "tools/call", "--tool-name", "calc", "--tool-arg", "expression=2*(3+4)^2")
	if res.IsError || res.StructuredContent["value"] != 98 || len(res.Content) != 1 || res.Content[0].Text != `{"value":98}` {
		t.Errorf("calc via Inspector: %+v", res)
	}

	var sha struct {
		StructuredContent map[string]string `json:"structuredContent"`
	}
	runInspector(t, &sha, "--method", "tools/call", "--tool-name", "sha256", "--tool-arg", "text=abc")
	if got, want := sha.StructuredContent["hex"], "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Errorf("sha256 via Inspector = %q, want %q", got, want)
	}
}
