package main

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// consensus through an MCP client with a sampling handler: the guest samples through the
// client (MCP sampling, ABI.md §6.7) and not through its configured endpoint; a client that
// cannot sample gets the endpoint's answers.
func TestConsensusThroughClientSampling(t *testing.T) {
	api := newFakeAPI(t, answers("Lyon", "Lyon", "Lyon"))
	grants := configured()
	grants.Sampling = true
	g := load(t, api, grants)
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		sampling bool
		want     string
	}{{"client samples", true, "Paris"}, {"client cannot sample", false, "Lyon"}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var samples atomic.Int32
			opts := &mcp.ClientOptions{}
			if tc.sampling {
				opts.CreateMessageHandler = func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					samples.Add(1)
					return &mcp.CreateMessageResult{Role: "assistant", Model: "client-model", Content: &mcp.TextContent{Text: "Paris"}}, nil
				}
			}
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "consensus", Arguments: map[string]any{"prompt": "Capital of France?", "n": 3}})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res.StructuredContent)
			var out ConsensusOut
			if err := json.Unmarshal(b, &out); err != nil || res.IsError {
				t.Fatalf("result %s (isError %v): %v", b, res.IsError, err)
			}
			if out.Answer != tc.want || out.Votes != 3 || out.N != 3 || out.Agreement != 1 {
				t.Errorf("consensus = %+v, want %s 3/3", out, tc.want)
			}
			if want := map[bool]int32{true: 3, false: 0}[tc.sampling]; samples.Load() != want {
				t.Errorf("client sampled %d times, want %d", samples.Load(), want)
			}
		})
	}
}
