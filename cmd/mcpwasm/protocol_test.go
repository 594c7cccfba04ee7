package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// initialize negotiates each known revision by echoing it; an unknown one gets 2025-11-25
// (MCP "Lifecycle › Version Negotiation").
func TestInitializeNegotiation(t *testing.T) {
	for _, tc := range []struct{ offered, want string }{
		{"2024-11-05", "2024-11-05"},
		{"2025-03-26", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"1999-01-01", "2025-11-25"},
	} {
		t.Run(tc.offered, func(t *testing.T) {
			s := startServer(t, fixturePath)
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`, tc.offered))
			l := s.recv()
			if !strings.Contains(l, fmt.Sprintf(`"protocolVersion":%q`, tc.want)) {
				t.Errorf("offered %s: %s; want protocolVersion %s", tc.offered, l, tc.want)
			}
		})
	}
}

// The go-sdk client probes server/discover and then speaks 2026-07-28 with per-request
// _meta: over stdio…
func TestProtocol20260728Stdio(t *testing.T) {
	ctx := testContext(t)
	cmd := exec.Command(binPath, "serve", "--cache-dir", cacheDir)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	checkModernSession(ctx, t, cs)
}

// …and over stateless Streamable HTTP.
func TestProtocol20260728StatelessHTTP(t *testing.T) {
	base, _ := startHTTP(t, "--stateless")
	ctx := testContext(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	checkModernSession(ctx, t, cs)
}

func checkModernSession(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Errorf("negotiated %s, want 2026-07-28", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "calc", Arguments: map[string]any{"expression": "1+2"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"value": 3.0}, res.StructuredContent); diff != "" {
		t.Errorf("calc (-want +got):\n%s", diff)
	}
}

// startHTTP runs `serve --http 127.0.0.1:0` and returns its base URL.
func startHTTP(t *testing.T, args ...string) (string, *server) {
	t.Helper()
	s := startServer(t, append([]string{"--http", "127.0.0.1:0"}, args...)...)
	re := regexp.MustCompile(`transport=http addr=(\S+)`)
	var addr string
	waitOutput(t, s.stderr, "the HTTP server to listen", func(out string) bool {
		if m := re.FindStringSubmatch(out); m != nil {
			addr = m[1]
		}
		return addr != ""
	})
	return "http://" + addr, s
}

func post(t *testing.T, url string, header map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// DNS rebinding and cross-origin requests are refused before any session exists.
func TestHTTPHostAndOrigin(t *testing.T) {
	base, _ := startHTTP(t, fixturePath)
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"wrong Host", map[string]string{"Host": "evil.example"}, http.StatusForbidden},
		{"cross-site Origin", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"no Origin", nil, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, base+"/mcp", tc.header, initLine)
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if sid := resp.Header.Get("Mcp-Session-Id"); (sid != "") != (tc.want == http.StatusOK) {
				t.Errorf("Mcp-Session-Id %q with status %d", sid, resp.StatusCode)
			}
		})
	}
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok\n" {
		t.Errorf("/healthz: %d %q", resp.StatusCode, b)
	}
}

// With a token configured, a missing or wrong bearer token is 401.
func TestHTTPBearerToken(t *testing.T) {
	t.Setenv("MCPWASM_HTTP_TOKEN", "s3cret")
	base, _ := startHTTP(t, fixturePath)
	os.Unsetenv("MCPWASM_HTTP_TOKEN")
	for _, tc := range []struct {
		auth string
		want int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Bearer s3cret", http.StatusOK},
		{"bearer s3cret", http.StatusOK}, // the scheme is case-insensitive (RFC 9110 §11.1)
	} {
		h := map[string]string{}
		if tc.auth != "" {
			h["Authorization"] = tc.auth
		}
		resp := post(t, base+"/mcp", h, initLine)
		if resp.StatusCode != tc.want {
			t.Errorf("Authorization %q: status %d, want %d", tc.auth, resp.StatusCode, tc.want)
		}
		if tc.want == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") != `Bearer realm="mcpwasm"` {
			t.Errorf("WWW-Authenticate = %q", resp.Header.Get("WWW-Authenticate"))
		}
	}
}

// --max-line-bytes caps a message over HTTP too: a 5 MiB request passes the default (64 MiB),
// which the SDK's own 4 MiB body cap would have refused.
func TestHTTPLargeRequest(t *testing.T) {
	base, _ := startHTTP(t, "--stateless", "--json-response")
	text := strings.Repeat("x", 5<<20)
	resp := post(t, base+"/mcp", nil, callLine(2, "echo", fmt.Sprintf(`{"text":%q}`, text)))
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %.200s", resp.StatusCode, b)
	}
	if isErr, got := toolResult(t, string(b)); isErr || got != text {
		t.Errorf("echo of 5 MiB over HTTP: isError=%v, %d bytes back", isErr, len(got))
	}
}
