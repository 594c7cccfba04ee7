package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Under the default isolation ("", session), a second MCP session cannot read what the first
// left in the guest's memory, nor the first what the second left; under "shared", which the
// operator must choose, it can. With one instance, sessions take it from one another: under
// session and call it is reset in place to its state after the start and reused
// (GuestStats.Resets), not replaced.
func TestSessionIsolation(t *testing.T) {
	for _, tc := range []struct {
		iso          string
		wantB, wantA string
		resets       uint64
	}{
		{"", `{}`, `{}`, 2},
		{"session", `{}`, `{}`, 2},
		{"call", `{}`, `{}`, 2},
		{"shared", `{"secret":"from A"}`, `{"secret":"from B"}`, 0},
	} {
		t.Run("isolation="+tc.iso, func(t *testing.T) {
			h := newHost(t)
			g, err := h.Load(context.Background(), wat.State, &runtime.GuestConfig{Isolation: tc.iso, Limits: runtime.Limits{Instances: 1}})
			if err != nil {
				t.Fatal(err)
			}
			s, err := mcpserver.NewServer([]*runtime.Guest{g}, nil)
			if err != nil {
				t.Fatal(err)
			}
			connect := func() *mcp.ClientSession {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := s.Connect(context.Background(), st, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ss.Close() })
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cs.Close() })
				return cs
			}
			remember := func(cs *mcp.ClientSession, args string) string {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "remember", Arguments: json.RawMessage(args)})
				if err != nil || res.IsError {
					t.Fatalf("remember: %v %+v", err, res)
				}
				b, _ := json.Marshal(res.StructuredContent)
				return string(b)
			}
			a, b := connect(), connect()
			remember(a, `{"secret":"from A"}`)
			if got := remember(b, `{"secret":"from B"}`); got != tc.wantB {
				t.Errorf("session B read %s; want %s", got, tc.wantB)
			}
			if got := remember(a, `{}`); got != tc.wantA {
				t.Errorf("session A then read %s; want %s", got, tc.wantA)
			}
			if st := h.Stats(); len(st) != 1 || st[0].Resets != tc.resets {
				t.Errorf("Stats: %+v; want Resets %d", st, tc.resets)
			}
		})
	}
}
