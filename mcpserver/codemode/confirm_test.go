package codemode_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A destructive tool (no readOnlyHint) is confirmed through elicitation on every protocol
// revision mcpwasm negotiates: by a server→client request before 2026-07-28, by an
// input-required result and the client's retry from it on (the go-sdk client answers it
// with its ElicitationHandler). Accept runs the tool once; decline and a client without
// elicitation are refused and the tool never runs.
func TestConfirmationEveryRevision(t *testing.T) {
	plain, _ := fixtures(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, v := range mcp.SupportedProtocolVersions() {
		for _, ans := range []string{"accept", "decline", "none"} {
			t.Run(v+"/"+ans, func(t *testing.T) {
				asked := 0
				var opts *mcp.ClientOptions
				if ans != "none" {
					opts = &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked++
						if want := "A code-mode program wants to run tool admin.wipe (wipe), which may change things. Allow it?"; req.Params.Message != want {
							t.Errorf("message = %q, want %q", req.Params.Message, want)
						}
						return &mcp.ElicitResult{Action: ans}, nil
					}}
				}
				ct, st := mcp.NewInMemoryTransports()
				ss, err := plain.srv.Connect(ctx, st, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer ss.Close()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "v", Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: v})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				if got := cs.InitializeResult().ProtocolVersion; got != v {
					t.Fatalf("negotiated %s, want %s", got, v)
				}
				before := plain.wiped.Load()
				// Two calls of the tool: it is confirmed once per run.
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": "await tools.admin.wipe({});\nreturn (await tools.admin.wipe({})).Wiped > 0"}})
				if err != nil {
					t.Fatalf("run_code: %v", err)
				}
				text := res.Content[0].(*mcp.TextContent).Text
				ran := plain.wiped.Load() - before
				switch ans {
				case "accept":
					if res.IsError || text != "true" || asked != 1 {
						t.Errorf("accepted: %q (error %v), asked %d times, want true, asked once", text, res.IsError, asked)
					}
					// 2026-07-28: the run stops at the question and runs again with the
					// answer, so the tool runs twice (the run's two calls), not more.
					if ran != 2 {
						t.Errorf("wipe ran %d times, want 2", ran)
					}
				case "decline":
					want := `code mode: not confirmed: the client answered "decline" for tool admin.wipe (wipe) (line 1)`
					if !res.IsError || !strings.HasSuffix(text, want) || asked != 1 || ran != 0 {
						t.Errorf("declined: %q (error %v), asked %d, ran %d; want an error ending %q, asked once, never ran", text, res.IsError, asked, ran, want)
					}
				case "none":
					want := "code mode: not confirmed: tool admin.wipe (wipe) is not read-only and the client does not support elicitation (allow it in code_mode.unconfirmed)"
					if !res.IsError || !strings.Contains(text, want) || ran != 0 {
						t.Errorf("no elicitation: %q (error %v), ran %d; want an error containing %q, never ran", text, res.IsError, ran, want)
					}
				}
			})
		}
	}
}

// At 2026-07-28 the confirmation is an input-required result keyed "confirm:<served
// name>", and a retry whose answer does not verify is invalid params: the state binds it.
func TestConfirmationInputRequired(t *testing.T) {
	plain, _ := fixtures(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := plain.srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	opts := &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("not called: multi round-trip is off")
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "r", Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	before := plain.wiped.Load()
	args := map[string]any{"code": "return (await tools.admin.wipe({})).Wiped > 0"}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.InputRequests["confirm:wipe"].(*mcp.ElicitParams); !ok || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("result %+v, want one elicitation under confirm:wipe", res)
	}
	if n := plain.wiped.Load() - before; n != 0 {
		t.Fatalf("wipe ran %d times before the answer", n)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: args, RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"confirm:wipe": &mcp.ElicitResult{Action: "accept"}}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "true" || plain.wiped.Load()-before != 1 {
		t.Fatalf("retry with accept: %v %+v, wipe ran %d times", err, res, plain.wiped.Load()-before)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: args, RequestState: "forged.state",
		InputResponses: mcp.InputResponseMap{"confirm:wipe": &mcp.ElicitResult{Action: "accept"}}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("forged state: %v, want invalid params", err)
	}
}

// The same over Streamable HTTP, where 2026-07-28 is sessionless: accept runs the tool,
// decline does not, on the last revision before multi round-trip and on 2026-07-28.
func TestConfirmationOverHTTP(t *testing.T) {
	plain, _ := fixtures(t)
	ts := httptest.NewServer(mcpserver.NewHTTPHandler(plain.srv, nil))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		for _, ans := range []string{"accept", "decline"} {
			t.Run(v+"/"+ans, func(t *testing.T) {
				asked := 0
				opts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked++
					return &mcp.ElicitResult{Action: ans}, nil
				}}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "h", Version: "1"}, opts).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: v})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				before := plain.wiped.Load()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": "return (await tools.admin.wipe({})).Wiped > 0"}})
				if err != nil {
					t.Fatal(err)
				}
				text := res.Content[0].(*mcp.TextContent).Text
				ran := plain.wiped.Load() - before
				if ans == "accept" && (res.IsError || text != "true" || ran != 1 || asked != 1) {
					t.Errorf("accept: %q (error %v), ran %d, asked %d; want true, ran once, asked once", text, res.IsError, ran, asked)
				}
				if ans == "decline" && (!res.IsError || !strings.Contains(text, `the client answered "decline"`) || ran != 0 || asked != 1) {
					t.Errorf("decline: %q (error %v), ran %d, asked %d; want the refusal, never ran, asked once", text, res.IsError, ran, asked)
				}
			})
		}
	}
}
