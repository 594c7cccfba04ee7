package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpwasm/mcpwasm/internal/jsonwire"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	initLine        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	initReplyPrefix = `{"jsonrpc":"2.0","id":1,"result":{`
	waitTimeout     = 20 * time.Second
)

type echoIn struct {
	Text string `json:"text"`
}

// blockStarted receives one value each time the "block" tool starts; the tool
// then waits until its request is cancelled and reports that on blockCancelled.
type blockHooks struct {
	started   chan struct{}
	cancelled chan struct{}
}

func newServer(h *blockHooks) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo text"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	if h != nil {
		mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "wait for cancellation"},
			func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
				h.started <- struct{}{}
				<-ctx.Done()
				h.cancelled <- struct{}{}
				return nil, nil, ctx.Err()
			})
	}
	return s
}

// session drives a real mcp.Server over io.Pipe through the transport.
type session struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan string // output lines without the trailing '\n'
	mu     sync.Mutex
	raw    bytes.Buffer // every output byte
	runErr chan error
	cancel context.CancelFunc
}

func startSession(t *testing.T, opts *Options, h *blockHooks) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{t: t, in: inW, lines: make(chan string, 1024), runErr: make(chan error, 1), cancel: cancel}
	tr := NewTransport(inR, outW, opts)
	go func() { s.runErr <- newServer(h).Run(ctx, tr) }()
	go func() {
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadBytes('\n')
			s.mu.Lock()
			s.raw.Write(line)
			s.mu.Unlock()
			if len(line) > 0 {
				if line[len(line)-1] != '\n' {
					t.Errorf("output ends without newline: %q", line)
				}
				s.lines <- string(bytes.TrimSuffix(line, []byte("\n")))
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
	})
	return s
}

// send writes raw bytes to the server's stdin.
func (s *session) send(data string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, data); err != nil {
		s.t.Fatalf("writing input: %v", err)
	}
}

// next returns the next output line.
func (s *session) next() string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatal("output ended; wanted another line")
		}
		return l
	case <-time.After(waitTimeout):
		s.t.Fatal("timed out waiting for an output line")
	}
	return ""
}

// expect asserts the exact next output line.
func (s *session) expect(want string) {
	s.t.Helper()
	if diff := cmp.Diff(want, s.next()); diff != "" {
		s.t.Errorf("output line mismatch (-want +got):\n%s", diff)
	}
}

// initialize performs the MCP handshake.
func (s *session) initialize(eol string) {
	s.t.Helper()
	s.send(initLine + eol)
	if got := s.next(); !strings.HasPrefix(got, initReplyPrefix) {
		s.t.Fatalf("initialize reply = %q, want prefix %q", got, initReplyPrefix)
	}
	s.send(initializedLine + eol)
}

// finish closes stdin, returns all remaining output lines and checks that
// server.Run returns promptly.
func (s *session) finish() []string {
	s.t.Helper()
	s.in.Close()
	var rest []string
	timeout := time.After(waitTimeout)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				select {
				case err := <-s.runErr:
					if err != nil {
						s.t.Errorf("server.Run: %v", err)
					}
				case <-time.After(waitTimeout):
					s.t.Fatal("server.Run did not return after EOF")
				}
				return rest
			}
			rest = append(rest, l)
		case <-timeout:
			s.t.Fatal("timed out waiting for output EOF")
		}
	}
}

func (s *session) rawOutput() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.raw.Bytes())
}

func echoCall(id int, text string) string {
	args, _ := json.Marshal(echoIn{Text: text})
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":%s}}`, id, args)
}

// echoText extracts the echoed text from a tools/call reply with the given id.
func echoText(t *testing.T, line string, id int) string {
	t.Helper()
	var resp struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil {
		t.Fatalf("reply is not JSON: %v (%.200s)", err, line)
	}
	if string(resp.ID) != fmt.Sprint(id) || resp.Result.IsError || len(resp.Result.Content) != 1 {
		t.Fatalf("unexpected echo reply: %.300s", line)
	}
	return resp.Result.Content[0].Text
}

func TestBigMessages(t *testing.T) {
	t.Run("default limit", func(t *testing.T) {
		s := startSession(t, nil, nil)
		s.initialize("\n")
		for i, n := range []int{70_000, 1_200_000} {
			text := strings.Repeat("abcdefghij", n/10)
			id := 10 + i
			s.send(echoCall(id, text) + "\n")
			if got := echoText(t, s.next(), id); len(got) != len(text) || got != text {
				t.Errorf("echo of %d bytes came back with %d bytes", len(text), len(got))
			}
		}
		s.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}` + "\n")
		s.expect(`{"jsonrpc":"2.0","id":5,"result":{}}`)
		if rest := s.finish(); len(rest) != 0 {
			t.Errorf("unexpected extra output: %q", rest)
		}
	})
	t.Run("over small limit", func(t *testing.T) {
		s := startSession(t, &Options{MaxLineBytes: 4096}, nil)
		s.initialize("\n")
		s.send(echoCall(2, strings.Repeat("x", 10_000)) + "\n")
		s.expect(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: message exceeds 4096 bytes"}}`)
		s.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}` + "\n")
		s.expect(`{"jsonrpc":"2.0","id":6,"result":{}}`)
		// Just under the limit still works.
		under := echoCall(3, "")
		under = echoCall(3, strings.Repeat("y", 4096-len(under)))
		if len(under) != 4096 {
			t.Fatalf("bad test setup: len %d", len(under))
		}
		s.send(under + "\r\n")
		if got := echoText(t, s.next(), 3); len(got) != 4096-len(echoCall(3, "")) {
			t.Errorf("echo at the limit returned %d bytes", len(got))
		}
		if rest := s.finish(); len(rest) != 0 {
			t.Errorf("unexpected extra output: %q", rest)
		}
	})
}

func TestIDsEchoedExactly(t *testing.T) {
	s := startSession(t, nil, nil)
	s.initialize("\n")
	ids := []string{
		`0`, `42`, `"req-abc"`, `""`, `9007199254740993`, `1.5`, `-7`,
		`"1"`, `1`, `1e2`, `-0`, `1.0`, `9007199254740992`, `-9007199254740992`,
		`-9007199254740993`, `12345678901234567890123`, `"a\/b"`, `"\u00e9"`, `"é"`,
		`"\u0000mcpwasm:1"`,
	}
	for _, id := range ids {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n")
		s.expect(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
	}
	// Errors produced by the SDK echo the id exactly too.
	s.send(`{"jsonrpc":"2.0","id":1.5,"method":"no/such/method"}` + "\n")
	got := s.next()
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1.5,"error":{"code":-32601,`) {
		t.Errorf("method-not-found reply = %q", got)
	}
	if rest := s.finish(); len(rest) != 0 {
		t.Errorf("unexpected extra output: %q", rest)
	}
}

func TestCancelSurrogateID(t *testing.T) {
	h := &blockHooks{started: make(chan struct{}, 1), cancelled: make(chan struct{}, 1)}
	s := startSession(t, nil, h)
	s.initialize("\n")
	s.send(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"block","arguments":{"text":""}}}` + "\n")
	select {
	case <-h.started:
	case <-time.After(waitTimeout):
		t.Fatal("block tool did not start")
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5,"reason":"x"}}` + "\n")
	select {
	case <-h.cancelled:
	case <-time.After(waitTimeout):
		t.Fatal("cancellation by original id did not reach the handler")
	}
	s.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}` + "\n")
	// Whatever the SDK sends for the cancelled call must carry the original id.
	for _, l := range append([]string{s.next()}, s.finish()...) {
		t.Logf("after cancel: %s", l)
		if l == `{"jsonrpc":"2.0","id":5,"result":{}}` {
			continue
		}
		if !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":1.5,`) {
			t.Errorf("unexpected line %q", l)
		}
	}
}

func TestSloppyFraming(t *testing.T) {
	s := startSession(t, nil, nil)
	s.send("\xEF\xBB\xBF" + initLine + "\r\n")
	if got := s.next(); !strings.HasPrefix(got, initReplyPrefix) {
		t.Fatalf("initialize reply = %q", got)
	}
	s.send(initializedLine + "\r\n")
	s.send("\r\n")
	s.send("\n")
	s.send(" \t  \r\n")
	s.send("not json\r\n")
	s.expect(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character 'o' in literal null (expecting 'u')"}}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"pi` + "\r\n")
	s.expect(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected end of JSON input"}}`)
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\r\n")
	s.expect(`{"jsonrpc":"2.0","id":3,"result":{}}`)
	if rest := s.finish(); len(rest) != 0 {
		t.Errorf("unexpected extra output: %q", rest)
	}
	raw := s.rawOutput()
	if bytes.ContainsRune(raw, '\r') || bytes.Contains(raw, utf8BOM) {
		t.Errorf("output contains \\r or a BOM: %q", raw)
	}
}

func TestNotificationsGetNoReply(t *testing.T) {
	s := startSession(t, nil, nil)
	s.initialize("\n")
	s.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}` + "\n")
	s.send(`{"jsonrpc":"2.0","method":"notifications/some_future_thing","params":{"x":1}}` + "\n")
	s.send(`{"jsonrpc":"2.0","method":"no/such/method"}` + "\n")
	s.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n")
	got := s.finish()
	if diff := cmp.Diff([]string{`{"jsonrpc":"2.0","id":7,"result":{}}`}, got); diff != "" {
		t.Errorf("output mismatch (-want +got):\n%s", diff)
	}
}

func TestRequestBeforeInitialize(t *testing.T) {
	// Documents SDK behaviour: a request other than ping/initialize before
	// the handshake is answered with an error (code 0), and the session
	// survives.
	s := startSession(t, nil, nil)
	s.send(`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}` + "\n")
	got := s.next()
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1.5,"error":{`) {
		t.Errorf("pre-initialize reply = %q", got)
	}
	t.Logf("pre-initialize tools/list reply: %s", got)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
	s.expect(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	s.initialize("\n")
	if rest := s.finish(); len(rest) != 0 {
		t.Errorf("unexpected extra output: %q", rest)
	}
}

func TestEOFEndsRun(t *testing.T) {
	s := startSession(t, nil, nil)
	s.initialize("\n")
	// Last line without a trailing newline is still processed.
	s.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	start := time.Now()
	got := s.finish()
	if diff := cmp.Diff([]string{`{"jsonrpc":"2.0","id":9,"result":{}}`}, got); diff != "" {
		t.Errorf("output mismatch (-want +got):\n%s", diff)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("server.Run took %v to return after EOF", d)
	}
}

// readAll connects a transport over input, reads every message until EOF and
// returns the encoded messages and the output lines.
func readAll(t testing.TB, input string, opts *Options) (msgs, out []string, c *conn) {
	t.Helper()
	var buf bytes.Buffer
	mc, err := NewTransport(strings.NewReader(input), &buf, opts).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mc.(*conn).drainTimeout = 0 // nobody answers the requests here
	for {
		msg, err := mc.Read(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatalf("EncodeMessage: %v", err)
		}
		msgs = append(msgs, string(data))
	}
	if s := buf.String(); s != "" {
		out = strings.SplitAfter(s, "\n")
		if last := out[len(out)-1]; last != "" {
			t.Errorf("output does not end with a newline: %q", last)
		} else {
			out = out[:len(out)-1]
		}
		for i := range out {
			out[i] = strings.TrimSuffix(out[i], "\n")
		}
	}
	return msgs, out, mc.(*conn)
}

func errLine(id string, code int, msg string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, msg)
}

func TestReadPath(t *testing.T) {
	const ir = "Invalid Request: "
	tests := []struct {
		name  string
		input string
		opts  *Options
		msgs  []string
		out   []string
	}{
		{
			name:  "blank lines and BOMs",
			input: "\xEF\xBB\xBF\n \t\r\n\r\n\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n",
			msgs:  []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		},
		{
			name:  "last line without newline",
			input: `{"jsonrpc":"2.0","method":"a"}` + "\n" + `{"jsonrpc":"2.0","method":"b","params":{"k":[1, 2]}}`,
			msgs:  []string{`{"jsonrpc":"2.0","method":"a"}`, `{"jsonrpc":"2.0","method":"b","params":{"k":[1,2]}}`},
		},
		{
			name:  "params null is treated as absent",
			input: `{"jsonrpc":"2.0","id":"x","method":"ping","params":null}`,
			msgs:  []string{`{"jsonrpc":"2.0","id":"x","method":"ping"}`},
		},
		{
			name:  "surrogate ids",
			input: `{"jsonrpc":"2.0","id":1.5,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":"a\/b","method":"b"}`,
			msgs: []string{
				`{"jsonrpc":"2.0","id":"\u0000mcpwasm:1","method":"a"}`,
				`{"jsonrpc":"2.0","id":"\u0000mcpwasm:2","method":"b"}`,
			},
		},
		{
			name: "cancel translated",
			input: `{"jsonrpc":"2.0","id":1e2,"method":"a"}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"r","requestId": 1e2 }}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":100}}`,
			msgs: []string{
				`{"jsonrpc":"2.0","id":"\u0000mcpwasm:1","method":"a"}`,
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"r","requestId":"\u0000mcpwasm:1"}}`,
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":100}}`,
			},
		},
		{
			name: "responses",
			input: `{"jsonrpc":"2.0","id":3,"result":{"a":1}}` + "\n" +
				`{"jsonrpc":"2.0","id":"s","error":{"code":-1,"message":"m","data":[1]}}` + "\n" +
				`{"jsonrpc":"2.0","id":4.0,"result":{}}` + "\n" +
				`{"jsonrpc":"2.0","id":4.5,"result":{}}` + "\n" + // dropped: no such SDK id
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, // dropped
			msgs: []string{
				`{"jsonrpc":"2.0","id":3,"result":{"a":1}}`,
				`{"jsonrpc":"2.0","id":"s","error":{"code":-1,"message":"m","data":[1]}}`,
				`{"jsonrpc":"2.0","id":4,"result":{}}`,
			},
		},
		{
			name: "parse errors",
			input: "not json\n" + `{"jsonrpc":"2.0","id":2,"method":"pi` + "\n" + "{}}\n" +
				`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
			msgs: []string{`{"jsonrpc":"2.0","id":3,"method":"ping"}`},
			out: []string{
				errLine("null", -32700, "Parse error: invalid character 'o' in literal null (expecting 'u')"),
				errLine("null", -32700, "Parse error: unexpected end of JSON input"),
				errLine("null", -32700, "Parse error: invalid character '}' after top-level value"),
			},
		},
		{
			name: "invalid requests",
			input: strings.Join([]string{
				`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
				`42`,
				`"str"`,
				`{"jsonrpc":"2.0","id":8}`,
				`{"jsonrpc":"1.0","id":"a","method":"ping"}`,
				`{"id":9.5,"method":"ping"}`,
				`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`,
				`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
				`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
				`{"jsonrpc":"2.0","id":10,"method":7}`,
				`{"jsonrpc":"2.0","id":11,"method":"ping","params":"p"}`,
				`{"jsonrpc":"2.0","id":12,"result":{},"error":{"code":1,"message":"m"}}`,
				`{"jsonrpc":"2.0","id":13,"error":{"code":"x","message":"m"}}`,
				`{"jsonrpc":"2.0","result":{}}`,
				`{"jsonrpc":"2.0","id":null,"result":{}}`,
				`{"JSONRPC":"2.0","id":14,"method":"ping"}`,
			}, "\n"),
			out: []string{
				errLine("null", -32600, ir+"JSON-RPC batch arrays are not supported (batching was removed in MCP 2025-06-18)"),
				errLine("null", -32600, ir+"message must be a JSON object"),
				errLine("null", -32600, ir+"message must be a JSON object"),
				errLine("8", -32600, ir+`message has neither "method" nor "result"/"error"`),
				errLine(`"a"`, -32600, ir+`"jsonrpc" must be exactly "2.0"`),
				errLine("9.5", -32600, ir+`"jsonrpc" must be exactly "2.0"`),
				errLine("null", -32600, ir+`"id" must be a string or a number`),
				errLine("null", -32600, ir+`"id" must be a string or a number`),
				errLine("null", -32600, ir+`"id" must not be null`),
				errLine("10", -32600, ir+`"method" must be a string`),
				errLine("11", -32600, ir+`"params" must be an object or an array`),
				errLine("12", -32600, ir+`response must not contain both "result" and "error"`),
				errLine("13", -32600, ir+`"error" must be an object with an integer "code" and a string "message"`),
				errLine("null", -32600, ir+`response is missing "id"`),
				errLine("null", -32600, ir+`response "id" must not be null`),
				errLine("14", -32600, ir+`"jsonrpc" must be exactly "2.0"`),
			},
		},
		{
			name: "over-long lines",
			opts: &Options{MaxLineBytes: 40},
			input: `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r\n" + // exactly 40 bytes + CRLF
				`{"jsonrpc":"2.0","id":22,"method":"ping"}` + "\n" + // 41 bytes
				strings.Repeat(" ", 100) + "\n" +
				`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n" +
				strings.Repeat("x", 200), // over-long at EOF
			msgs: []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"method":"ping"}`},
			out: []string{
				errLine("null", -32600, ir+"message exceeds 40 bytes"),
				errLine("null", -32600, ir+"message exceeds 40 bytes"),
				errLine("null", -32600, ir+"message exceeds 40 bytes"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, out, _ := readAll(t, tt.input, tt.opts)
			if diff := cmp.Diff(tt.msgs, msgs); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.out, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteRestoresOriginalID(t *testing.T) {
	ids := []string{`1.5`, `1e2`, `-0`, `9007199254740993`, `"a\/b"`, `"\u2028"`, `"\u0000mcpwasm:1"`, `7`, `"x"`}
	var in strings.Builder
	for _, id := range ids {
		in.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"m"}` + "\n")
	}
	var out bytes.Buffer
	mc, err := NewTransport(strings.NewReader(in.String()), &out, nil).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var want []string
	for _, id := range ids {
		msg, err := mc.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		req := msg.(*jsonrpc.Request)
		// Answer twice: the second answer no longer maps (mapping forgotten).
		if err := mc.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"ok":true}`)}); err != nil {
			t.Fatal(err)
		}
		if err := mc.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -1, Message: "m"}}); err != nil {
			t.Fatal(err)
		}
		want = append(want, `{"jsonrpc":"2.0","id":`+id+`,"result":{"ok":true}}`)
		again, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -1, Message: "m"}})
		want = append(want, string(again))
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	c := mc.(*conn)
	if len(c.originals) != 0 || len(c.byLiteral) != 0 {
		t.Errorf("id mappings leaked: %v %v", c.originals, c.byLiteral)
	}
}

// countingWriter records each Write call.
type countingWriter struct {
	mu    sync.Mutex
	calls []string
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, string(p))
	return len(p), nil
}

func TestConcurrentWrites(t *testing.T) {
	w := &countingWriter{}
	mc, err := NewTransport(strings.NewReader(""), w, nil).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const n = 64
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			params := json.RawMessage(fmt.Sprintf(`{"i":%d,"pad":%q}`, i, strings.Repeat("p", i*100)))
			if err := mc.Write(context.Background(), &jsonrpc.Request{Method: "notifications/x", Params: params}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(w.calls) != n {
		t.Fatalf("got %d Write calls, want %d", len(w.calls), n)
	}
	for _, c := range w.calls {
		if !strings.HasSuffix(c, "}\n") || strings.Count(c, "\n") != 1 || !json.Valid([]byte(c)) {
			t.Errorf("bad line %.80q", c)
		}
	}
}

// blockingReader blocks until closed (if closable) or forever.
type blockingReader struct{ ch chan struct{} }

func (r blockingReader) Read([]byte) (int, error) { <-r.ch; return 0, io.EOF }

func TestCloseAndLifecycle(t *testing.T) {
	for _, closable := range []bool{true, false} {
		t.Run(fmt.Sprint("closable reader=", closable), func(t *testing.T) {
			var r io.Reader = blockingReader{make(chan struct{})}
			if closable {
				pr, pw := io.Pipe()
				defer pw.Close()
				r = pr
			}
			tr := NewTransport(r, io.Discard, nil)
			mc, err := tr.Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tr.Connect(context.Background()); !errors.Is(err, ErrAlreadyConnected) {
				t.Errorf("second Connect error = %v, want ErrAlreadyConnected", err)
			}
			if got := mc.SessionID(); got != "" {
				t.Errorf("SessionID = %q", got)
			}
			// ctx cancellation
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			if _, err := mc.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Read with expiring ctx = %v", err)
			}
			readErr := make(chan error, 1)
			go func() {
				_, err := mc.Read(context.Background())
				readErr <- err
			}()
			time.Sleep(10 * time.Millisecond)
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() { _ = mc.Close() })
			}
			wg.Wait()
			select {
			case err := <-readErr:
				if err != io.EOF {
					t.Errorf("blocked Read after Close = %v, want io.EOF", err)
				}
			case <-time.After(waitTimeout):
				t.Fatal("Close did not unblock Read")
			}
			if err := mc.Write(context.Background(), &jsonrpc.Request{Method: "x"}); !errors.Is(err, ErrClosed) {
				t.Errorf("Write after Close = %v, want ErrClosed", err)
			}
			if _, err := mc.Read(context.Background()); err != io.EOF {
				t.Errorf("Read after Close = %v", err)
			}
		})
	}
}

func TestCloseUnblocksStalledWrite(t *testing.T) {
	pr, pw := io.Pipe() // nobody reads pr: writes block
	defer pr.Close()
	mc, err := NewTransport(strings.NewReader(""), pw, nil).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	writeErr := make(chan error, 1)
	go func() { writeErr <- mc.Write(context.Background(), &jsonrpc.Request{Method: "x"}) }()
	time.Sleep(20 * time.Millisecond)
	closed := make(chan struct{})
	go func() { mc.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(waitTimeout):
		t.Fatal("Close blocked behind a stalled Write")
	}
	if err := <-writeErr; err == nil {
		t.Error("stalled Write succeeded after Close")
	}
}

// patternReader produces n bytes of 'x' followed by tail, without holding
// them in memory.
type patternReader struct {
	n    int
	tail []byte
}

func (r *patternReader) Read(p []byte) (int, error) {
	if r.n > 0 {
		k := min(len(p), r.n)
		for i := range k {
			p[i] = 'x'
		}
		r.n -= k
		return k, nil
	}
	if len(r.tail) == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.tail)
	r.tail = r.tail[k:]
	return k, nil
}

func TestOverlongLineIsStreamed(t *testing.T) {
	const huge = 48 << 20 // 48 MiB, far above the 1 MiB limit
	r := &patternReader{n: huge, tail: []byte("\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")}
	var out bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	mc, _ := NewTransport(r, &out, &Options{MaxLineBytes: 1 << 20}).Connect(context.Background())
	msg, err := mc.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got, _ := jsonrpc.EncodeMessage(msg); string(got) != `{"jsonrpc":"2.0","id":1,"method":"ping"}` {
		t.Errorf("message after over-long line = %s", got)
	}
	if diff := cmp.Diff(errLine("null", -32600, "Invalid Request: message exceeds 1048576 bytes")+"\n", out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("allocated %d bytes while discarding a %d-byte line", alloc, huge)
	}
}

func TestTensOfMegabytesLine(t *testing.T) {
	big := strings.Repeat("z", 20<<20)
	line := `{"jsonrpc":"2.0","id":1,"method":"m","params":{"t":"` + big + `"}}`
	msgs, out, _ := readAll(t, line+"\n", nil)
	if len(out) != 0 || len(msgs) != 1 || len(msgs[0]) != len(line) {
		t.Fatalf("got %d messages, out %q", len(msgs), out)
	}
}

func BenchmarkReadSmallLines(b *testing.B) {
	line := `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}` + "\n"
	input := strings.Repeat(line, 1000)
	b.ReportAllocs()
	for b.Loop() {
		mc, _ := NewTransport(strings.NewReader(input), io.Discard, nil).Connect(context.Background())
		mc.(*conn).drainTimeout = 0
		for {
			if _, err := mc.Read(context.Background()); err != nil {
				break
			}
		}
	}
}

// expectedOutcomes mirrors the framing rules: the number of lines in data that
// must produce exactly one message or one error reply.
func expectedOutcomes(data []byte, maxLine int) int {
	n := 0
	lines := bytes.Split(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(l) > maxLine {
			n++
			continue
		}
		if len(jsonwire.TrimWS(bytes.TrimPrefix(l, utf8BOM))) > 0 {
			n++
		}
	}
	return n
}

func FuzzReadLine(f *testing.F) {
	for _, s := range []string{
		initLine + "\n" + initializedLine + "\r\n",
		"\xEF\xBB\xBF{}\n\n  \nnot json\n[1]\n",
		`{"jsonrpc":"2.0","id":1.5,"method":"x"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":null}`,
		`{"jsonrpc":"2.0","id":"\u0000","method":"\u0041","params":[]}`,
		strings.Repeat("y", 300) + "\n{\"a\":\"\\\"}\"}\r\r\n",
	} {
		f.Add([]byte(s), uint16(64))
		f.Add([]byte(s), uint16(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		maxLine := int(limit)%512 + 1
		msgs, out, c := readAll(t, string(data), &Options{MaxLineBytes: maxLine})
		for _, l := range out {
			var e struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(l), &e); err != nil || e.JSONRPC != "2.0" || e.ID == nil ||
				(e.Error.Code != -32700 && e.Error.Code != -32600) {
				t.Errorf("bad error reply %q (%v)", l, err)
			}
		}
		got := len(msgs) + len(out) + int(c.dropped.Load())
		if want := expectedOutcomes(data, maxLine); got != want {
			t.Errorf("%d messages + %d errors + %d dropped = %d, want %d outcomes for %q",
				len(msgs), len(out), c.dropped.Load(), got, want, data)
		}
	})
}

// A request reusing the id of one still in flight is refused with -32600 (the SDK would
// drop it silently); once answered, the id may be used again.
func TestDuplicateInFlightID(t *testing.T) {
	release := make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		<-release
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go srv.Run(context.Background(), NewTransport(inR, outW, nil))
	lines := bufio.NewReader(outR)
	send := func(l string) { inW.Write([]byte(l + "\n")) }
	recv := func() string {
		l, err := lines.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(l, "\n")
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	recv()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	want := `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: id 5 is already used by a request still in flight"}}`
	if got := recv(); got != want {
		t.Errorf("duplicate id:\n got %s\nwant %s", got, want)
	}
	close(release)
	if got := recv(); !strings.Contains(got, `"id":5,"result":{"content":[{"type":"text","text":"done"}]}`) {
		t.Errorf("first request: %s", got)
	}
	send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if got := recv(); got != `{"jsonrpc":"2.0","id":5,"result":{}}` {
		t.Errorf("id reused after its answer: %s", got)
	}
	inW.Close()
}

// At the end of input with a request still unanswered, Read waits EOFGrace, calls
// StopPending once, and returns io.EOF as soon as the stopped request is answered.
func TestEOFStopsPendingRequests(t *testing.T) {
	var buf bytes.Buffer
	stopped := make(chan struct{})
	var stops atomic.Int32
	tr := NewTransport(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`+"\n"), &buf,
		&Options{EOFGrace: 10 * time.Millisecond, StopPending: func() {
			if stops.Add(1) == 1 {
				close(stopped)
			}
		}})
	mc, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mc.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	req := msg.(*jsonrpc.Request)
	go func() { // the "server": answers only once it is told to stop
		<-stopped
		_ = mc.Write(context.Background(), &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32603, Message: "stopped"}})
	}()
	if _, err := mc.Read(context.Background()); err != io.EOF {
		t.Fatalf("Read = %v; want io.EOF", err)
	}
	if n := stops.Load(); n != 1 {
		t.Errorf("StopPending called %d times; want 1", n)
	}
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"stopped"}}` + "\n"; buf.String() != want {
		t.Errorf("output %q; want %q", buf.String(), want)
	}
}
