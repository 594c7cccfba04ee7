package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mirrorServer is a server of testdata/wat/mirror.wasm (tool mirror returns its arguments as
// its result).
func mirrorServer(t *testing.T) *mcp.Server {
	t.Helper()
	return mirrorServerLog(t, nil)
}

// mirrorServerLog is mirrorServer logging to logger (nil: slog.Default()).
func mirrorServerLog(t *testing.T, logger *slog.Logger) *mcp.Server {
	t.Helper()
	g := loadGuest(t, newHost(t), wat.Mirror, "mirror")
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, &mcpserver.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stdioPeer is a raw client of s over the stdio transport (newline-delimited JSON-RPC): it
// writes lines and reads the server's lines as they are.
type stdioPeer struct {
	t   *testing.T
	in  io.Writer
	out *bufio.Scanner
}

func newStdioPeer(t *testing.T, s *mcp.Server) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := s.Connect(context.Background(), &mcp.IOTransport{Reader: inR, Writer: outW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close(); ss.Close(); outR.Close() })
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	return &stdioPeer{t: t, in: inW, out: sc}
}

// ask sends line, a request with id 1 to 9, and returns the server's answer to it (other
// lines, notifications, are skipped).
func (p *stdioPeer) ask(id, line string) string {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
	for p.out.Scan() {
		if got := p.out.Text(); strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`+id+`,`) {
			return got
		}
	}
	p.t.Fatalf("no answer to %s: %v", line, p.out.Err())
	return ""
}

func (p *stdioPeer) tell(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func initLine(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
}

// mirrorCall is a tools/call of mirror (id 2) whose result is res; meta, if not "", is the
// request's _meta.
func mirrorCall(id, res, meta string) string {
	params := `"name":"mirror","arguments":` + res
	if meta != "" {
		params = `"_meta":` + meta + `,` + params
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + params + `}}`
}

const (
	// nonObjectResult has a structuredContent that only 2026-07-28 requests may get.
	nonObjectResult = `{"content":[{"type":"text","text":"x"}],"structuredContent":[1,2]}`
	meta26          = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	mirrorCaps      = `"capabilities":{"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}}`
)

// TestStdioNegotiatedRevision (fresh eyes 5): over stdio, initialize answers a revision of
// the handshake (2026-07-28 has no initialize), and the session's results are those of the
// revision answered, not the one asked for: a client that asked for 2026-07-28 and was
// answered 2025-11-25 gets no resultType and no non-object structuredContent, exactly as a
// client that asked for 2025-11-25. Before the fix it got both.
func TestStdioNegotiatedRevision(t *testing.T) {
	for _, tc := range []struct{ asked, answered string }{
		{"2026-07-28", "2025-11-25"},
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2099-01-01", "2025-11-25"},
	} {
		t.Run(tc.asked, func(t *testing.T) {
			p := newStdioPeer(t, mirrorServer(t))
			want := `{"jsonrpc":"2.0","id":1,"result":{` + mirrorCaps + `,"protocolVersion":"` + tc.answered + `","serverInfo":{"name":"mcpwasm","version":"dev"}}}`
			if got := p.ask("1", initLine(tc.asked)); got != want {
				t.Fatalf("initialize:\n got %s\nwant %s", got, want)
			}
			p.tell(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			want = `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}]}}`
			if got := p.ask("2", mirrorCall("2", nonObjectResult, "")); got != want {
				t.Errorf("tools/call:\n got %s\nwant %s", got, want)
			}
			// The session's revision rules: a request naming 2026-07-28 in its _meta is refused,
			// not answered as a 2026-07-28 request inside a 2025 session.
			want = `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"invalid request: this session negotiated protocol ` + tc.answered +
				` at initialize; its requests cannot name 2026-07-28 in _meta[\"io.modelcontextprotocol/protocolVersion\"]"}}`
			if got := p.ask("3", mirrorCall("3", nonObjectResult, meta26)); got != want {
				t.Errorf("tools/call with a 2026-07-28 _meta:\n got %s\nwant %s", got, want)
			}
			// The session still serves.
			want = `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"y"}],"structuredContent":{"a":1}}}`
			if got := p.ask("4", mirrorCall("4", `{"content":[{"type":"text","text":"y"}],"structuredContent":{"a":1}}`, "")); got != want {
				t.Errorf("tools/call after:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestStdioSessionlessRevision: a stdio connection that never sends initialize speaks the
// 2026-07-28 generation, each request naming its revision in _meta: it gets resultType, a
// non-object structuredContent, and the host's serverInfo.
func TestStdioSessionlessRevision(t *testing.T) {
	p := newStdioPeer(t, mirrorServer(t))
	want := `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpwasm","version":"dev"}},` +
		`"content":[{"type":"text","text":"x"}],"structuredContent":[1,2],"resultType":"complete"}}`
	if got := p.ask("1", mirrorCall("1", nonObjectResult, meta26)); got != want {
		t.Errorf("tools/call:\n got %s\nwant %s", got, want)
	}
}

// httpAsk posts body to url/mcp with the headers and returns the one JSON-RPC message of the
// answer (a JSON body or the data of an SSE message), and the Mcp-Session-Id it set.
func httpAsk(t *testing.T, url string, hdr map[string]string, body string) (msg, session string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	msg = strings.TrimSpace(string(raw))
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg = ""
		for _, line := range strings.Split(string(raw), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && strings.HasPrefix(d, `{"jsonrpc":"2.0","id":`) {
				msg = d
			}
		}
	}
	if !json.Valid([]byte(msg)) {
		t.Fatalf("%s: answer %s %q", body, resp.Status, raw)
	}
	return msg, resp.Header.Get("Mcp-Session-Id")
}

// TestHTTPNegotiatedRevision (fresh eyes 5, over Streamable HTTP): initialize asking for
// 2026-07-28 makes a 2025-11-25 session whose results are 2025-11-25's; a sessionless
// 2026-07-28 request on the same endpoint gets 2026-07-28's (resultType, non-object
// structuredContent, the host's serverInfo).
func TestHTTPNegotiatedRevision(t *testing.T) {
	ts := httptest.NewServer(mcpserver.NewHTTPHandler(mirrorServer(t), nil))
	t.Cleanup(ts.Close)

	got, sid := httpAsk(t, ts.URL, nil, initLine("2026-07-28"))
	want := `{"jsonrpc":"2.0","id":1,"result":{` + mirrorCaps + `,"protocolVersion":"2025-11-25","serverInfo":{"name":"mcpwasm","version":"dev"}}}`
	if got != want || sid == "" {
		t.Fatalf("initialize: session %q\n got %s\nwant %s", sid, got, want)
	}
	inSession := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	httpAsk(t, ts.URL, inSession, `{"jsonrpc":"2.0","id":9,"method":"ping"}`) // (initialized is a notification: no answer to read)
	got, _ = httpAsk(t, ts.URL, inSession, mirrorCall("2", nonObjectResult, ""))
	if want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}]}}`; got != want {
		t.Errorf("tools/call in the session:\n got %s\nwant %s", got, want)
	}

	got, sid = httpAsk(t, ts.URL, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "mirror"},
		mirrorCall("3", nonObjectResult, meta26))
	want = `{"jsonrpc":"2.0","id":3,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpwasm","version":"dev"}},` +
		`"content":[{"type":"text","text":"x"}],"structuredContent":[1,2],"resultType":"complete"}}`
	if got != want || sid != "" {
		t.Errorf("sessionless tools/call: session %q\n got %s\nwant %s", sid, got, want)
	}
}

// TestGuestReservedMeta (fresh eyes 6): _meta keys of MCP's reserved namespace in a guest's
// result are dropped with a warning naming them, on every revision, so the serverInfo a
// 2026-07-28 client reads is the host's; the guest's other keys pass. Read and prompt
// answers are treated the same way. Before the fix the guest's serverInfo replaced the host's.
func TestGuestReservedMeta(t *testing.T) {
	logs := &syncBuf{}
	s := mirrorServerLog(t, slog.New(slog.NewTextHandler(logs, nil)))
	ts := httptest.NewServer(mcpserver.NewHTTPHandler(s, nil))
	t.Cleanup(ts.Close)
	h26 := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "mirror"}
	spoof := `{"content":[{"type":"text","text":"x"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"evil","version":"6.6.6"},"k":1}}`
	got, _ := httpAsk(t, ts.URL, h26, mirrorCall("1", spoof, meta26))
	want := `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpwasm","version":"dev"},"k":1},` +
		`"content":[{"type":"text","text":"x"}],"resultType":"complete"}}`
	if got != want {
		t.Errorf("2026-07-28 tools/call:\n got %s\nwant %s", got, want)
	}
	// Over stdio at 2025-11-25 too; unreserved keys (com.example.mcp/, a plain name, a
	// reserved-looking key nested in a value) pass.
	p := newStdioPeer(t, s)
	p.ask("1", initLine("2025-11-25"))
	p.tell(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	got = p.ask("2", mirrorCall("2", `{"content":[{"type":"text","text":"x"}],"_meta":{"org.modelcontextprotocol.api/b":1,"dev.MCP/a":2,"com.example.mcp/c":3,"mcp":4,"k":{"io.modelcontextprotocol/x":5}}}`, ""))
	want = `{"jsonrpc":"2.0","id":2,"result":{"_meta":{"com.example.mcp/c":3,"k":{"io.modelcontextprotocol/x":5},"mcp":4},"content":[{"type":"text","text":"x"}]}}`
	if got != want {
		t.Errorf("2025-11-25 tools/call:\n got %s\nwant %s", got, want)
	}
	// A result whose only keys are reserved has no _meta left.
	got = p.ask("3", mirrorCall("3", `{"content":[{"type":"text","text":"x"}],"_meta":{"io.mcp/a":1}}`, ""))
	if want := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"x"}]}}`; got != want {
		t.Errorf("only reserved keys:\n got %s\nwant %s", got, want)
	}
	got = p.ask("4", `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"mirror://meta"}}`)
	if want := `{"jsonrpc":"2.0","id":4,"result":{"ttlMs":0,"cacheScope":"public","contents":[{"uri":"mirror://meta","text":"x"}]}}`; got != want {
		t.Errorf("resources/read:\n got %s\nwant %s", got, want)
	}
	got = p.ask("5", `{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"meta"}}`)
	if want := `{"jsonrpc":"2.0","id":5,"result":{"messages":[{"content":{"type":"text","text":"x"},"role":"user"}]}}`; got != want {
		t.Errorf("prompts/get:\n got %s\nwant %s", got, want)
	}
	for _, want := range []string{
		`msg="result _meta keys in MCP's reserved namespace dropped" guest=mirror tool=mirror keys=[io.modelcontextprotocol/serverInfo]`,
		`msg="result _meta keys in MCP's reserved namespace dropped" guest=mirror tool=mirror keys="[dev.MCP/a org.modelcontextprotocol.api/b]"`,
		`msg="result _meta keys in MCP's reserved namespace dropped" guest=mirror resource=mirror://meta keys=[io.modelcontextprotocol/serverInfo]`,
		`msg="result _meta keys in MCP's reserved namespace dropped" guest=mirror prompt=meta keys=[dev.mcp/x]`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
}

// TestReservedMetaKey: the reserved _meta namespace of MCP "Basic › General fields › _meta" —
// second label modelcontextprotocol or mcp (2025-11-25 on), or any label but the last
// (2025-06-18) — and nothing else.
func TestReservedMetaKey(t *testing.T) {
	for key, want := range map[string]bool{
		"io.modelcontextprotocol/serverInfo":    true,
		"io.modelcontextprotocol/related-task":  true,
		"dev.mcp/x":                             true,
		"org.modelcontextprotocol.api/x":        true,
		"com.mcp.tools/x":                       true,
		"IO.ModelContextProtocol/x":             true,
		"modelcontextprotocol.io/x":             true, // 2025-06-18's rule
		"tools.mcp.com/x":                       true, // 2025-06-18's rule
		"mcp.dev/":                              true,
		"com.example.mcp/x":                     false,
		"com.example/x":                         false,
		"mcp/x":                                 false, // one label: neither rule
		"modelcontextprotocol/x":                false,
		"io.modelcontextprotocol":               false, // no prefix: a plain name
		"serverInfo":                            false,
		"com.example/io.modelcontextprotocol/x": false,
		"":                                      false,
	} {
		if got := mcpserver.ReservedMetaKey(key); got != want {
			t.Errorf("reservedMetaKey(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestGatewayReservedMeta: an upstream's result carries reserved _meta keys for its own hop
// (its serverInfo at 2026-07-28); the gateway drops them, so the client reads this server's
// serverInfo, and keeps the upstream's other keys.
func TestGatewayReservedMeta(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	up.AddTool(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		meta := mcp.Meta{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "up", "version": "1"}, "k": 1}
		if strings.Contains(string(req.Params.Arguments), "extra") {
			meta["dev.mcp/x"] = 1
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, Meta: meta}, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	if _, err := up.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	ups, err := mcp.NewClient(&mcp.Implementation{Name: "gw", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ups.Close() })
	s, err := mcpserver.NewServer(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuf{}
	if _, err := mcpserver.Expose(context.Background(), s, "up", ups, &mcpserver.ExposeOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))}); err != nil {
		t.Fatal(err)
	}
	p := newStdioPeer(t, s)
	got := p.ask("1", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":`+meta26+`,"name":"up__t","arguments":{}}}`)
	want := `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpwasm","version":"dev"},"k":1},` +
		`"content":[{"type":"text","text":"x"}],"resultType":"complete"}}`
	if got != want {
		t.Errorf("tools/call:\n got %s\nwant %s", got, want)
	}
	// The serverInfo the upstream's SDK writes on every 2026-07-28 result is dropped without a
	// warning (examples/run.sh printed one for every gateway call: issue 45 item 9); another
	// reserved key still warns.
	if strings.Contains(logs.String(), "WARN") {
		t.Errorf("a warning for the upstream SDK's own serverInfo:\n%s", logs)
	}
	got = p.ask("2", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":`+meta26+`,"name":"up__t","arguments":{"extra":true}}}`)
	if !strings.Contains(got, `"k":1`) || strings.Contains(got, "dev.mcp/x") {
		t.Errorf("tools/call with an extra reserved key: %s", got)
	}
	if want := `level=WARN msg="result _meta keys in MCP's reserved namespace dropped" upstream=up tool=t keys=[dev.mcp/x]`; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %s:\n%s", want, logs)
	}
}

// TestStdioNegotiatedClientRequests: a stdio client that asked for 2026-07-28 and was
// answered 2025-11-25 gets a guest's elicitation as a server→client request while the guest
// waits (the 2025 mechanism), not an input-required result it cannot read — go-sdk had
// refused the request and mcpserver chose rounds from the revision the client asked for.
func TestStdioNegotiatedClientRequests(t *testing.T) {
	p := newStdioPeer(t, askServer(t, allClientGrants, nil))
	p.ask("1", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`)
	p.tell(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.tell(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{"question":"Proceed?"}}}`)
	for p.out.Scan() {
		line := p.out.Text()
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch {
		case m.Method == "elicitation/create":
			p.tell(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"action":"accept","content":{"ok":true}}}`)
		case string(m.ID) == "2":
			if want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"yes"}]}}`; line != want {
				t.Errorf("tools/call confirm:\n got %s\nwant %s", line, want)
			}
			return
		}
	}
	t.Fatalf("no answer to tools/call: %v", p.out.Err())
}
