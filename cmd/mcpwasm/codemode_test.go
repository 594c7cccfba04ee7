package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve --code-mode over stdio, through the Go SDK's client: run_code's description declares
// the bundled guests' tools grouped by guest, and a program calls calc and text and returns
// what it computed.
func TestServeCodeModeStdio(t *testing.T) {
	ctx := testContext(t)
	cmd := exec.Command(binPath, "serve", "--cache-dir", cacheDir, "--code-mode")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var desc string
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tl.Name == "run_code" {
			desc = tl.Description
		}
	}
	for _, want := range []string{"  calc: {\n    calc(args: { expression: string })", "  text: {\n", "    sha256(args: { text: string })"} {
		if !strings.Contains(desc, want) {
			t.Errorf("run_code's description lacks %q:\n%s", want, desc)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": `
const ids: number[] = [1, 2, 3, 4, 5, 6];
const even = ids.filter((i) => i % 2 === 0);
const r = await tools.calc.calc({ expression: even.join(" + ") });
const n = await tools.text.count({ text: "a b c" });
console.log("even", even.length);
return { sum: r.value, words: n.words };`}})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || got != "{\"sum\":12,\"words\":3}\nlogs:\neven 3" {
		t.Errorf("run_code: %q (isError %v)", got, res.IsError)
	}
}
