package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// askWasm builds guests/ask once per test binary.
func askWasm(t testing.TB) []byte { return guestWasm(t, "guests/ask") }

type hookClient struct {
	kinds  []string
	answer []byte
	err    error
}

func (c *hookClient) Request(_ context.Context, kind string, params []byte) ([]byte, error) {
	c.kinds = append(c.kinds, kind)
	return c.answer, c.err
}

// CallHooks.Client serves a guest's client requests once the sandbox granted them; a Client
// error ErrInputRequired stops the guest, Guest.Call's error wraps it, and the discarded
// instance does not hurt the next call.
func TestCallHooksClient(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, askWasm(t), &runtime.GuestConfig{Grants: runtime.Grants{Sampling: true}})
	c := &hookClient{answer: []byte(`{"role":"assistant","content":{"type":"text","text":"brief"},"model":"m"}`)}
	ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{Client: c})
	out, err := g.Call(ctx, "summarize", []byte(`{"text":"long"}`))
	if want := `{"content":[{"type":"text","text":"summary (m): brief"}]}`; err != nil || string(out) != want {
		t.Errorf("summarize = %s, %v; want %s", out, err, want)
	}
	out, err = g.Call(ctx, "confirm", []byte(`{"question":"?"}`))
	if want := `{"content":[{"type":"text","text":"elicitation: DENIED: elicitation: not granted to guest \"ask\""}],"isError":true}`; err != nil || string(out) != want {
		t.Errorf("confirm = %s, %v; want %s", out, err, want)
	}
	if len(c.kinds) != 1 || c.kinds[0] != "sampling" {
		t.Errorf("client saw %v, want [sampling]", c.kinds)
	}

	c.err = fmt.Errorf("round 2: %w", peer.ErrInputRequired)
	out, err = g.Call(ctx, "summarize", []byte(`{"text":"long"}`))
	var ce *runtime.CallError
	if !errors.Is(err, peer.ErrInputRequired) || !errors.As(err, &ce) || ce.Name != "summarize" || out != nil {
		t.Errorf("input required: %s, %v", out, err)
	}
	c.err = nil
	if out, err := g.Call(ctx, "summarize", []byte(`{"text":"x"}`)); err != nil || string(out) != `{"content":[{"type":"text","text":"summary (m): brief"}]}` {
		t.Errorf("after input required: %s, %v", out, err)
	}
	// No Client in the hooks: UNAVAILABLE.
	out, err = g.Call(context.Background(), "summarize", []byte(`{"text":"x"}`))
	if want := `{"content":[{"type":"text","text":"sampling: UNAVAILABLE: sampling: client unavailable: the call has no MCP client session"}],"isError":true}`; err != nil || string(out) != want {
		t.Errorf("no client = %s, %v; want %s", out, err, want)
	}
}
