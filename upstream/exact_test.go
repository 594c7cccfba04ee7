package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fastDiscover: the fake server never answers server/discover; do not wait the default 5 s.
var fastDiscover = &Options{DiscoverTimeout: 200 * time.Millisecond}

// TestCallToolExactKeepsNumbers: integers above 2^53 and 1e400 reach the server and come back
// with their exact digits (reproducer N07, client side); the SDK's decoded result alone would
// round them.
func TestCallToolExactKeepsNumbers(t *testing.T) {
	ctx := t.Context()
	s := dial(t, fake(t), fastDiscover)
	args := `{"n":9007199254740993,"big":12345678901234567890,"e":1e400,"f":1.0000000000000000001}`
	res, err := s.CallToolExact(ctx, "exact", json.RawMessage(args), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		SC json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(res.Raw, &got); err != nil || string(got.SC) != args {
		t.Errorf("structuredContent = %s (%v), want %s", got.SC, err, args)
	}
	if !strings.HasPrefix(res.Token, tokenPrefix) {
		t.Errorf("token %q", res.Token)
	}
	s.raw.mu.Lock()
	left := len(s.raw.byID) + len(s.raw.results) + len(s.raw.waiting)
	s.raw.mu.Unlock()
	if left != 0 {
		t.Errorf("%d raw entries left after the call", left)
	}
}

// TestSpawnedEnvironment: a spawned server sees the minimal environment plus what Spec.Env
// names, not ours (reproducer: issue 12 item 11).
func TestSpawnedEnvironment(t *testing.T) {
	t.Setenv("MCPWASM_TEST_SECRET", "s3cret")
	t.Setenv("MCPWASM_TEST_PASSED", "yes")
	spec := fake(t)
	spec.Env = []string{"MCPWASM_TEST_SET=1", "MCPWASM_TEST_PASSED", "MCPWASM_TEST_UNSET"}
	s := dial(t, spec, fastDiscover)
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "env", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Split(res.Content[0].(*mcp.TextContent).Text, "\n")
	for _, want := range []string{"MCPWASM_TEST_SET=1", "MCPWASM_TEST_PASSED=yes", "PATH=" + os.Getenv("PATH")} {
		if !slices.Contains(env, want) {
			t.Errorf("server environment lacks %s: %q", want, env)
		}
	}
	for _, e := range env {
		if strings.HasPrefix(e, "MCPWASM_TEST_SECRET=") || strings.HasPrefix(e, "MCPWASM_TEST_UNSET=") {
			t.Errorf("server environment has %s", e)
		}
	}
}

func TestChildEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "AWS_SECRET_ACCESS_KEY=x", "FOO=1", "LANG=C", "XDG_CACHE_HOME=/c"}
	got := ChildEnv(environ, []string{"FOO", "BAR=2", "LANG=fr_FR.UTF-8", "MISSING"})
	want := []string{"HOME=/h", "PATH=/bin", "XDG_CACHE_HOME=/c", "FOO=1", "BAR=2", "LANG=fr_FR.UTF-8"}
	if !slices.Equal(got, want) {
		t.Errorf("ChildEnv = %q, want %q", got, want)
	}
	if got := ChildEnv(nil, nil); got == nil {
		t.Error("ChildEnv(nil, nil) is nil: exec.Cmd would inherit our whole environment")
	}
}

// TestUnsupportedServerRequests: roots/list, sampling/createMessage and elicitation/create,
// none of which this client declares, all get -32601, and initialize declares none of them
// (issue 12 item 10).
func TestUnsupportedServerRequests(t *testing.T) {
	ctx := t.Context()
	s := dial(t, fake(t), fastDiscover)
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Content[0].(*mcp.TextContent).Text
	if want := "\"r1\" -32601\n\"r2\" -32601\n\"r3\" -32601"; got != want {
		t.Errorf("answers:\n%s\nwant:\n%s", got, want)
	}
	res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "caps", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var caps map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &caps); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"roots", "sampling", "elicitation"} {
		if _, ok := caps[c]; ok {
			t.Errorf("initialize declares %q, which this client does not answer: %v", c, caps)
		}
	}
}

// TestCallToolExactHTTP: over Streamable HTTP (SSE and JSON responses) the result is read
// off the response body with its digits, including a number the SDK cannot decode (1e400).
func TestCallToolExactHTTP(t *testing.T) {
	const sc = `{"n":9007199254740993,"e":1e400}`
	s := mcp.NewServer(&mcp.Implementation{Name: "http-fake", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "exact", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: json.RawMessage(sc)}, nil
		})
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonResponse), func(t *testing.T) {
			ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
				&mcp.StreamableHTTPOptions{JSONResponse: jsonResponse}))
			t.Cleanup(ts.Close) // after the session's Close (cleanups run last first)
			sess := dial(t, Spec{URL: ts.URL}, nil)
			res, err := sess.CallToolExact(t.Context(), "exact", nil, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := json.Marshal(res.StructuredContent); string(got) != sc || !strings.Contains(string(res.Raw), sc) {
				t.Errorf("structuredContent %s, raw %s; want %s", got, res.Raw, sc)
			}
		})
	}
}

// TestCallToolExactBlockMeta (fresh-eyes 1 and 2, upstream side): a content block's _meta and
// an embedded resource's keep their numbers (above 2^53, 1e400) as the upstream sent them, and
// a result with a duplicate key is refused with its path, as a guest's is.
func TestCallToolExactBlockMeta(t *testing.T) {
	ctx := t.Context()
	s := dial(t, fake(t), fastDiscover)
	args := `{"content":[{"type":"text","text":"a","_meta":{"k":9007199254740993,"e":1e400}},` +
		`{"type":"resource","resource":{"uri":"x://r","text":"t","_meta":{"big":12345678901234567890}}}]}`
	res, err := s.CallToolExact(ctx, "pass", json.RawMessage(args), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(res.CallToolResult)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"_meta":{"e":1e400,"k":9007199254740993}`, `"_meta":{"big":12345678901234567890}`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("decoded result %s lacks %s", out, want)
		}
	}
	_, err = s.CallToolExact(ctx, "pass", json.RawMessage(`{"content":[{"type":"text","text":"A"}],"isError":true,"isError":false}`), "", nil)
	if want := `calling "tools/call": isError: duplicate key "isError"`; err == nil || err.Error() != want {
		t.Errorf("duplicate isError: err = %v, want %s", err, want)
	}
}
