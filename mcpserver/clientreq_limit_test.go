package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The requests one 2026-07-28 call asks add up to at most the guest's output limit
// (reproducer deferred-requests-amplify: 16 deferred sampling requests of 15 MiB made one
// 240 MiB input-required result at a 16 MiB limit). The request that would go over is
// refused to the guest, naming the limit, and is not kept; the result is built from the
// others and stays under the limit.
func TestDeferredRequestsBoundedByOutputLimit(t *testing.T) {
	const limit = 1 << 20
	b := &clientBridge{rounds: true, outputLimit: limit, caps: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}}
	text := strings.Repeat("A", 300<<10) // 300 KiB: the fourth request would pass 1 MiB
	var refused error
	for i := range 16 {
		params := fmt.Sprintf(`{"mcpwasm":{"key":"k%d","defer":true},"maxTokens":1,"messages":[{"role":"user","content":{"type":"text","text":%q}}]}`, i, text)
		_, err := b.Request(context.Background(), "sampling", []byte(params))
		switch {
		case i < 3 && !errors.Is(err, peer.ErrClientUnavailable):
			t.Fatalf("request %d: %v, want deferred (UNAVAILABLE)", i, err)
		case i >= 3 && !errors.Is(err, peer.ErrClientFailed):
			t.Fatalf("request %d: %v, want refused", i, err)
		case i == 3:
			refused = err
		}
	}
	if want := `sampling "k3" (307280 bytes) would take the call's input-required result to`; !strings.Contains(refused.Error(), want) ||
		!strings.HasSuffix(refused.Error(), "over the output limit of 1 MiB") {
		t.Errorf("refusal %q, want it to name the request and the output limit", refused)
	}
	if len(b.asked) != 3 {
		t.Errorf("%d requests kept, want 3", len(b.asked))
	}
	irs, state, err := b.inputRequired(make([]byte, 32), "t", "h")
	if err != nil {
		t.Fatal(err)
	}
	res, err := json.Marshal(&mcp.CallToolResult{InputRequests: irs, RequestState: state})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) > limit {
		t.Errorf("input-required result of %d bytes, over the %d-byte limit", len(res), limit)
	}
}

// A character JSON escapes ("<" becomes \u003c) counts as the result will hold it: the
// size is the request as sent, not as the guest wrote it.
func TestDeferredRequestsCountEscapedSize(t *testing.T) {
	b := &clientBridge{rounds: true, outputLimit: 1 << 20, caps: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}}
	text := strings.Repeat("<", 200<<10) // 200 KiB written, 1.2 MiB sent
	params := fmt.Sprintf(`{"mcpwasm":{"defer":true},"maxTokens":1,"messages":[{"role":"user","content":{"type":"text","text":%q}}]}`, text)
	if _, err := b.Request(context.Background(), "sampling", []byte(params)); !errors.Is(err, peer.ErrClientFailed) ||
		!strings.HasSuffix(err.Error(), "over the output limit of 1 MiB") {
		t.Errorf("a request that escapes to 1.2 MiB at a 1 MiB limit: %v, want refused", err)
	}
}
