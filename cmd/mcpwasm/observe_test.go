package main

import (
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// get fetches url with header (a "Host" entry sets the Host header) and returns the status
// code and body.
func get(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
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
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metricLines returns the sample lines of body that start with one of prefixes, sorted.
func metricLines(body string, prefixes ...string) []string {
	var out []string
	for line := range strings.Lines(body) {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				out = append(out, strings.TrimSpace(line))
			}
		}
	}
	slices.Sort(out)
	return out
}

// /metrics on the --http server: behind the bearer token, the Host check and the Origin check
// like MCP requests; with the token it shows the loaded guest.
func TestHTTPMetricsEndpoint(t *testing.T) {
	t.Setenv("MCPWASM_HTTP_TOKEN", "s3cret")
	base, _ := startHTTP(t, fixturePath)
	auth := map[string]string{"Authorization": "Bearer s3cret"}
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong host", map[string]string{"Authorization": "Bearer s3cret", "Host": "evil.example"}, http.StatusForbidden},
		{"other origin", map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://evil.example"}, http.StatusForbidden},
		{"token", auth, http.StatusOK},
	} {
		if code, _ := get(t, base+"/metrics", tc.header); code != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, code, tc.want)
		}
	}
	_, body := get(t, base+"/metrics", auth)
	got := metricLines(body, "mcpwasm_instances{", "mcpwasm_stopped ", "mcpwasm_sessions_open ")
	want := []string{
		`mcpwasm_instances{guest="fixture",state="busy"} 0`,
		`mcpwasm_instances{guest="fixture",state="idle"} 0`,
		`mcpwasm_sessions_open 0`,
		`mcpwasm_stopped 0`,
	}
	if !slices.Equal(want, got) {
		t.Errorf("scrape:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// --metrics-addr serves /metrics beside a stdio server; calls over stdio are counted there.
func TestStdioMetricsAddr(t *testing.T) {
	s := startServer(t, "--metrics-addr", "127.0.0.1:0", fixturePath)
	re := regexp.MustCompile(`"serving metrics" addr=(\S+)`)
	var addr string
	waitOutput(t, s.stderr, "the metrics listener", func(out string) bool {
		if m := re.FindStringSubmatch(out); m != nil {
			addr = m[1]
		}
		return addr != ""
	})
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":"two"}}}`)
	s.recv()
	s.recv()
	code, body := get(t, "http://"+addr+"/metrics", nil)
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	got := metricLines(body, "mcpwasm_tool_calls_total{", "mcpwasm_sessions_open ", "mcpwasm_instances{")
	want := []string{
		`mcpwasm_instances{guest="fixture",state="busy"} 0`,
		`mcpwasm_instances{guest="fixture",state="idle"} 1`,
		`mcpwasm_sessions_open 1`,
		`mcpwasm_tool_calls_total{guest="fixture",outcome="invalid_arguments",tool="add"} 1`,
		`mcpwasm_tool_calls_total{guest="fixture",outcome="ok",tool="echo"} 1`,
	}
	if !slices.Equal(want, got) {
		t.Errorf("scrape:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
