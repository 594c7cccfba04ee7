package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// 2026-07-28 input-required results (SEP-2322) over our HTTP client path: the SDK's client
// middleware answers the server's input requests with our elicitation handler and retries
// with the request state; two concurrent calls each get their own answers and state, and
// CallToolExact returns each call's final result, not the input-required one.
func TestInputRequiredResults(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mrtr", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "greet", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Who string }
		json.Unmarshal(req.Params.Arguments, &in)
		if req.Params.RequestState == "" {
			return &mcp.CallToolResult{RequestState: "state-" + in.Who, InputRequests: mcp.InputRequestMap{
				"q": &mcp.ElicitParams{Mode: "form", Message: "confirm " + in.Who, RequestedSchema: map[string]any{"type": "object"}}}}, nil
		}
		er, _ := req.Params.InputResponses["q"].(*mcp.ElicitResult)
		if req.Params.RequestState != "state-"+in.Who || er == nil {
			return nil, fmt.Errorf("call for %s retried with state %q and response %v", in.Who, req.Params.RequestState, req.Params.InputResponses)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("hello %s (%v)", in.Who, er.Content["answer"])}}}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}) // stateless: serves 2026-07-28
	var mu sync.Mutex
	versions := map[string]bool{} // MCP-Protocol-Version of the POSTs
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		versions[r.Header.Get("Mcp-Protocol-Version")] = true
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()

	answer := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": strings.TrimPrefix(req.Params.Message, "confirm ")}}, nil
	}
	sess, err := Dial(t.Context(), Spec{URL: hs.URL, Elicit: answer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var wg sync.WaitGroup
	for _, who := range []string{"ada", "grace", "linus"} {
		wg.Go(func() {
			res, err := sess.CallToolExact(t.Context(), "greet", json.RawMessage(`{"who":"`+who+`"}`), "", nil)
			if err != nil {
				t.Errorf("%s: %v", who, err)
				return
			}
			want := fmt.Sprintf("hello %s (%s)", who, who)
			if got := res.Content[0].(*mcp.TextContent).Text; got != want || res.IsError {
				t.Errorf("%s: %q (isError %v), want %q", who, got, res.IsError, want)
			}
			if strings.Contains(string(res.Raw), "inputRequests") || !strings.Contains(string(res.Raw), want) {
				t.Errorf("%s: raw result %s is not the final one", who, res.Raw)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if !versions["2026-07-28"] || versions["2025-11-25"] {
		t.Errorf("protocol versions on the wire: %v, want 2026-07-28 only", versions)
	}
}
