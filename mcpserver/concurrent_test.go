package mcpserver_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioCallsOverlap: two tools/call requests a client keeps in flight on one stdio
// session are inside the guest at the same time. Each call of guests/ask "confirm" asks the
// client (elicitation) and waits for the answer; the client answers neither before both
// questions have arrived. Anything on the path that ran one call at a time (the transport,
// the SDK's request queue, our middlewares, the pool) would hold the second call until the
// first had its answer, which it never gets: the first question then gives up (at the test's
// deadline, a bound for failing, never for passing) and the calls are not both "yes".
func TestStdioCallsOverlap(t *testing.T) {
	s := askServer(t, allClientGrants, nil)

	giveUp := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		giveUp, cancel = context.WithDeadline(giveUp, d.Add(-10*time.Second))
		defer cancel()
	}
	var (
		asked atomic.Int32
		both  = make(chan struct{})
	)
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if asked.Add(1) == 2 {
				close(both)
			}
			select {
			case <-both:
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-giveUp.Done():
				return nil, errors.New("the other call's question never came while this one waited")
			}
		},
	})

	// Two pipes, as a client process and a server process would have: the server reads what
	// the client writes and the other way round.
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ss, err := s.Connect(context.Background(), stdio.NewTransport(toServer, fromServer, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := c.Connect(context.Background(), stdio.NewTransport(toClient, fromClient, &stdio.Options{Peer: true}),
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	var wg sync.WaitGroup
	got := make([]string, 2)
	for i := range got {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm",
				Arguments: map[string]any{"question": "Proceed?"}})
			switch {
			case err != nil:
				got[i] = "error: " + err.Error()
			case res.IsError || len(res.Content) != 1:
				got[i] = "tool error"
				if len(res.Content) > 0 {
					if tc, ok := res.Content[0].(*mcp.TextContent); ok {
						got[i] += ": " + tc.Text
					}
				}
			default:
				got[i] = res.Content[0].(*mcp.TextContent).Text
			}
		})
	}
	wg.Wait()
	for i, g := range got {
		if g != "yes" {
			t.Errorf("call %d = %q, want %q (the two calls did not run at once)", i, g, "yes")
		}
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("the client was asked %d questions, want 2", n)
	}
}
