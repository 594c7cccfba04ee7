package main

import (
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
		{nil, `"serverInfo":{"name":"mcpwasm","version":"`}, // the bundled guests
	} {
		s := startServer(t, tc.args...)
		s.send(initLine)
		if l := s.recv(); !strings.Contains(l, tc.want) {
			t.Errorf("serve %v: initialize = %s; want %s", tc.args, l, tc.want)
		}
	}
}
