package sandbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// clientFunc is a Client that answers with a function and records what reached it.
type clientFunc struct {
	calls []string
	fn    func(ctx context.Context, kind string, params []byte) ([]byte, error)
}

func (c *clientFunc) Request(ctx context.Context, kind string, params []byte) ([]byte, error) {
	c.calls = append(c.calls, kind+" "+string(params))
	return c.fn(ctx, kind, params)
}

func newTool(t *testing.T, granted policy.Grants, perTool bool, requested abi.Requests) *Tool {
	t.Helper()
	tl, err := NewTool("g", "t", granted, perTool, requested, Env{})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// The sandbox owns the grant check of the client kinds: nothing by default, granted ∩
// requested, narrowed per tool; every status of ABI.md §6.7 maps from the Client's error.
func TestClientRequestStatuses(t *testing.T) {
	all := abi.Requests{Sampling: true, Elicitation: true, Roots: true}
	answer := []byte(`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`)
	var clientErr error
	c := &clientFunc{fn: func(context.Context, string, []byte) ([]byte, error) {
		if clientErr != nil {
			return nil, clientErr
		}
		return answer, nil
	}}
	ctx := WithClient(context.Background(), c)
	for _, tc := range []struct {
		name      string
		granted   policy.Grants
		perTool   bool
		requested abi.Requests
		kind      string
		body      string
		clientErr error
		ctx       context.Context
		status    abi.Status
		resp      string
	}{
		{"nothing granted", policy.Grants{}, false, all, abi.KindSampling, `{}`, nil, ctx, abi.StatusDenied, `{"error":"sampling: not granted to guest \"g\""}`},
		{"granted, not requested", policy.Grants{Sampling: true}, false, abi.Requests{}, abi.KindSampling, `{}`, nil, ctx, abi.StatusDenied, `{"error":"sampling: not granted to guest \"g\""}`},
		{"narrowed per tool", policy.Grants{Elicitation: true}, true, all, abi.KindRoots, `{}`, nil, ctx, abi.StatusDenied, `{"error":"roots: not granted to tool \"t\" of guest \"g\""}`},
		{"granted", policy.Grants{Sampling: true}, false, all, abi.KindSampling, `{"maxTokens":5,"messages":[]}`, nil, ctx, abi.StatusOK, string(answer)},
		{"empty body is {}", policy.Grants{Roots: true}, false, all, abi.KindRoots, ``, nil, ctx, abi.StatusOK, string(answer)},
		{"not JSON", policy.Grants{Sampling: true}, false, all, abi.KindSampling, `{`, nil, ctx, abi.StatusInvalid, `{"error":"sampling: request is not valid JSON"}`},
		{"not an object", policy.Grants{Sampling: true}, false, all, abi.KindSampling, `[1]`, nil, ctx, abi.StatusInvalid, `{"error":"sampling: request must be a JSON object"}`},
		{"no client", policy.Grants{Sampling: true}, false, all, abi.KindSampling, `{}`, nil, context.Background(), abi.StatusUnavailable, `{"error":"sampling: client unavailable: the call has no MCP client session"}`},
		{"capability missing", policy.Grants{Elicitation: true}, false, all, abi.KindElicitation, `{}`,
			fmt.Errorf("%w: the client did not declare the elicitation capability", peer.ErrClientUnavailable), ctx, abi.StatusUnavailable,
			`{"error":"elicitation: client unavailable: the client did not declare the elicitation capability"}`},
		{"client error", policy.Grants{Sampling: true}, false, all, abi.KindSampling, `{}`,
			fmt.Errorf("%w: the client answered: user rejected", peer.ErrClientFailed), ctx, abi.StatusFailed,
			`{"error":"sampling: client request failed: the client answered: user rejected"}`},
		{"time limit", policy.Grants{Sampling: true}, false, all, abi.KindSampling, `{}`, context.DeadlineExceeded, ctx, abi.StatusTimeout, `{"error":"sampling: time limit exceeded"}`},
		{"cancelled", policy.Grants{Sampling: true}, false, all, abi.KindSampling, `{}`, context.Canceled, ctx, abi.StatusCancelled, `{"error":"sampling: cancelled"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.calls, clientErr = nil, tc.clientErr
			st, resp := newTool(t, tc.granted, tc.perTool, tc.requested).Request(tc.ctx, tc.kind, []byte(tc.body))
			if st != tc.status || string(resp) != tc.resp {
				t.Errorf("= %v %s, want %v %s", st, resp, tc.status, tc.resp)
			}
			if st == abi.StatusDenied && len(c.calls) != 0 {
				t.Errorf("a denied request reached the client: %v", c.calls)
			}
		})
	}

	// An answer over the cap is TOO_LARGE; peer.ErrInputRequired is the one UNAVAILABLE with no body.
	answer = []byte(`"` + strings.Repeat("x", maxClientResponseBytes) + `"`)
	clientErr = nil
	if st, resp := newTool(t, policy.Grants{Sampling: true}, false, all).Request(ctx, abi.KindSampling, []byte(`{}`)); st != abi.StatusTooLarge ||
		string(resp) != fmt.Sprintf(`{"error":"sampling: answer of %d bytes is over the %d-byte cap"}`, len(answer), maxClientResponseBytes) {
		t.Errorf("oversized answer: %v %.100s", st, resp)
	}
	clientErr = peer.ErrInputRequired
	st, resp := newTool(t, policy.Grants{Sampling: true}, false, all).Request(ctx, abi.KindSampling, []byte(`{}`))
	if !IsInputRequired(st, resp) {
		t.Errorf("input required: %v %s", st, resp)
	}
	if IsInputRequired(abi.StatusUnavailable, ErrorBody("x")) {
		t.Error("an UNAVAILABLE with a body is not input-required")
	}
}

func TestClientGrantsNarrowAndUngranted(t *testing.T) {
	guest := policy.Grants{Sampling: true, Roots: true}
	if _, err := guest.Narrow(policy.Grants{Elicitation: true}); err == nil || err.Error() != "elicitation is not granted to the guest" {
		t.Errorf("narrow to an ungranted kind: %v", err)
	}
	got, err := guest.Narrow(policy.Grants{Roots: true})
	if err != nil || got.Sampling || !got.Roots || got.Elicitation {
		t.Errorf("narrow to roots: %+v, %v", got, err)
	}
	tl := newTool(t, policy.Grants{Sampling: true}, false, abi.Requests{Sampling: true, Elicitation: true, Roots: true})
	if got := tl.Ungranted(); !slices.Equal(got, []string{"elicitation", "roots"}) {
		t.Errorf("ungranted = %q", got)
	}
	if eff := tl.Effective(); !eff.Sampling || eff.Elicitation || eff.Roots {
		t.Errorf("effective = %+v", eff)
	}
}
