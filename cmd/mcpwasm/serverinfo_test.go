package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With one guest served, initialize reports the guest's own name and version, as the same
// server under Node reports its McpServer's (issue 45 item 5); with several it stays mcpwasm.
func TestServeServerInfoOfOneGuest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{fixturePath}, `"serverInfo":{"name":"fixture","version":"1.0.0"}`},
		{[]string{fixturePath, "--status"}, `"serverInfo":{"name":"mcpwasm","version":"`},
		// An Extism plugin declares no name or version of its own: its guest name.
		{[]string{filepath.Join(extismTestdata, "v1.wasm")}, `"serverInfo":{"name":"v1","version":"`},
		{nil, `"serverInfo":{"name":"mcpwasm","version":"`}, // the bundled guests
	} {
		s := startServer(t, tc.args...)
		s.send(initLine)
		if l := s.recv(); !strings.Contains(l, tc.want) {
			t.Errorf("serve %v: initialize = %s; want %s", tc.args, l, tc.want)
		}
	}
}

// A script written as for Node — new McpServer({name, version}) and the SDK's usual
// console.error banner before connect() — served alone: serverInfo is the script's own name
// and version (issue 45 item 5), and the banner is an INFO line, not an ERROR (item 4).
func TestServeScriptServerInfoAndBanner(t *testing.T) {
	dir := t.TempDir()
	entry := filepath.Join(dir, "team.ts")
	script := `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
const server = new McpServer({ name: "Team Tools", version: "1.2.0" });
server.registerTool("ping", { description: "Answers pong" }, async () => ({ content: [{ type: "text", text: "pong" }] }));
console.error("Team Tools MCP server running on stdio");
await server.connect(new StdioServerTransport());
`
	if err := os.WriteFile(entry, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, buildScriptGuest(t, entry, dir))
	s.send(initLine)
	if l, want := s.recv(), `"serverInfo":{"name":"Team Tools","version":"1.2.0"}`; !strings.Contains(l, want) {
		t.Errorf("initialize = %s; want %s", l, want)
	}
	s.closeAndWait(waitLimit(t))
	logs := s.stderr.String()
	if want := `level=INFO msg="guest log" guest=team-tools tool="" level=error msg="Team Tools MCP server running on stdio"`; !strings.Contains(logs, want) {
		t.Errorf("stderr lacks %s:\n%s", want, logs)
	}
	if strings.Contains(logs, "level=ERROR") {
		t.Errorf("an ERROR line:\n%s", logs)
	}
}
