package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpwasm/mcpwasm/internal/exactjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK decodes a CallToolResult's structuredContent into `any`, which rounds integers
// above 2^53 and refuses numbers beyond float64 (1e400). CallToolExact returns the result as
// the server sent it: each tools/call carries a progress token of ours; the stdio connection
// (rawConn) or, over HTTP, the RoundTripper (headerTransport) notes the JSON-RPC id of the
// request with that token and keeps the raw result of the response with that id (from the
// message, or from the response body: httpRecorder) until CallToolExact takes it.

// tokenPrefix marks the progress tokens CallToolExact puts on its calls.
const tokenPrefix = "mcpwasm-call-"

var tokenSeq atomic.Uint64

// rawResults is the per-session table of raw tools/call results.
type rawResults struct {
	mu      sync.Mutex
	byID    map[string]string          // JSON-RPC id (its JSON) → token
	results map[string]json.RawMessage // token → raw result
	waiting map[string]bool            // tokens of calls in flight
	// progress holds the progress callbacks of calls in flight, by token. They run in the
	// read loop, so a call's progress is shown before its result (the SDK hands
	// notifications to its handler asynchronously, possibly after the response).
	progress map[string]func(*mcp.ProgressNotificationParams)
	// asTask holds the tokens of tools/calls sent with the SEP-1686 "task" param (tasks.go).
	asTask map[string]bool
}

func newRawResults() *rawResults {
	return &rawResults{byID: map[string]string{}, results: map[string]json.RawMessage{}, waiting: map[string]bool{},
		progress: map[string]func(*mcp.ProgressNotificationParams){}, asTask: map[string]bool{}}
}

func (r *rawResults) expect(token string, progress func(*mcp.ProgressNotificationParams)) {
	r.mu.Lock()
	r.waiting[token] = true
	if progress != nil {
		r.progress[token] = progress
	}
	r.mu.Unlock()
}

// notified passes a notifications/progress for a call in flight to its callback.
func (r *rawResults) notified(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.IsCall() || req.Method != "notifications/progress" {
		return
	}
	var p mcp.ProgressNotificationParams
	if json.Unmarshal(req.Params, &p) != nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	r.mu.Lock()
	f := r.progress[token]
	r.mu.Unlock()
	if f != nil {
		f(&p)
	}
}

// take returns and forgets token's raw result (nil if none arrived).
func (r *rawResults) take(token string) json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := r.results[token]
	delete(r.results, token)
	delete(r.waiting, token)
	delete(r.progress, token)
	delete(r.asTask, token)
	for id, t := range r.byID {
		if t == token {
			delete(r.byID, id)
		}
	}
	return res
}

// sent notes an outgoing tools/call request that carries a token we are waiting for, and
// returns its id's JSON ("" if it is not such a request).
func (r *rawResults) sent(msg jsonrpc.Message) string {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || (req.Method != "tools/call" && req.Method != "tools/list") || !req.IsCall() {
		return ""
	}
	var p struct {
		Meta struct {
			ProgressToken any `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return ""
	}
	token, ok := p.Meta.ProgressToken.(string)
	if !ok {
		return ""
	}
	id, err := json.Marshal(req.ID.Raw())
	if err != nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.waiting[token] {
		return ""
	}
	r.byID[string(id)] = token
	return string(id)
}

// record keeps the raw result of a response to a noted request, and reports whether it did.
func (r *rawResults) record(msg jsonrpc.Message) bool {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil {
		return false
	}
	id, err := json.Marshal(resp.ID.Raw())
	if err != nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	token, ok := r.byID[string(id)]
	if ok {
		delete(r.byID, string(id))
		r.results[token] = append(json.RawMessage(nil), resp.Result...)
	}
	return ok
}

// received records msg (see record) on a stdio connection, and hands the SDK the result
// without structuredContent and any _meta (CallToolExact decodes the recorded result exactly),
// since the SDK's decoding of those refuses numbers beyond float64.
func (r *rawResults) received(msg jsonrpc.Message) {
	r.notified(msg)
	if !r.record(msg) {
		return
	}
	resp := msg.(*jsonrpc.Response)
	if rest, _, err := exactjson.Split(resp.Result); err == nil {
		resp.Result = rest
	}
}

// wrap returns t with its connections feeding r — for our stdio transports only (a spawned
// command's, and a server in this process's: a whole-server guest). The SDK's
// Streamable HTTP client connection has an unexported method (sessionUpdated) through which
// the session tells it the negotiated version and session state, which a wrapper cannot
// forward; over HTTP the results are recorded from the response bodies instead
// (headerTransport, httpRecorder), and the SDK sees them unchanged, so CallToolExact decodes
// a result the SDK could not (1e400) itself.
func (r *rawResults) wrap(t mcp.Transport) mcp.Transport {
	switch t.(type) {
	case *commandTransport, *processTransport:
		return &rawTransport{Transport: t, raw: r}
	}
	return t
}

// rawTransport wraps a transport so that its connections feed raw.
type rawTransport struct {
	mcp.Transport
	raw *rawResults
}

func (t *rawTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &rawConn{Connection: c, raw: t.raw}, nil
}

type rawConn struct {
	mcp.Connection
	raw *rawResults
}

func (c *rawConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.raw.received(msg)
	}
	return msg, err
}

func (c *rawConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	msg, _ = c.raw.augment(msg)
	_ = c.raw.sent(msg)
	return c.Connection.Write(ctx, msg)
}

// ExactResult is a tools/call result with the server's JSON kept verbatim.
type ExactResult struct {
	// The decoded result; StructuredContent is a json.RawMessage and the values of Meta are
	// json.RawMessage, exactly as sent.
	*mcp.CallToolResult
	Raw []byte // the result as the server sent it
	// Token is the progress token the call carried; progress notifications for the call
	// carry it too.
	Token string
}

// NewProgressToken returns a fresh progress token for CallToolExact.
func NewProgressToken() string {
	return tokenPrefix + strconv.FormatUint(tokenSeq.Add(1), 10)
}

// CallToolExact calls a tool like CallTool and also returns the result's JSON exactly as the
// server sent it; the decoded result's StructuredContent and Meta values are that JSON too.
// (A result that reaches the SDK some other way than the request's own response — on a
// resumed HTTP stream — is the SDK's decoding.) args is sent verbatim (nil means {}). The
// call carries progress token token (NewProgressToken if empty), so the server may send
// progress for it; progress (if not nil) receives each notifications/progress for it that
// arrives on the call's own stream, in order and before the call returns.
func (s *Session) CallToolExact(ctx context.Context, name string, args json.RawMessage, token string, progress func(*mcp.ProgressNotificationParams)) (*ExactResult, error) {
	return s.callToolExact(ctx, name, args, token, progress, false)
}

// callToolExact is CallToolExact; asTask sends the call with the SEP-1686 "task" param.
func (s *Session) callToolExact(ctx context.Context, name string, args json.RawMessage, token string, progress func(*mcp.ProgressNotificationParams), asTask bool) (*ExactResult, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if token == "" {
		token = NewProgressToken()
	}
	if s.raw == nil {
		return nil, fmt.Errorf("upstream: session has no raw result table")
	}
	s.raw.expect(token, progress)
	if asTask {
		s.raw.mu.Lock()
		s.raw.asTask[token] = true
		s.raw.mu.Unlock()
	}
	defer s.raw.take(token)
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	p.SetProgressToken(token)
	res, err := s.CallTool(ctx, p)
	raw := s.raw.take(token)
	if err != nil {
		// Over HTTP the SDK saw the result unchanged and may have failed to decode it (a
		// number beyond float64); a recorded result is decoded exactly instead.
		if raw == nil || ctx.Err() != nil {
			return nil, err
		}
		if res, err = exactjson.DecodeToolResult(raw); err != nil {
			return nil, fmt.Errorf("calling \"tools/call\": %w", err)
		}
		return &ExactResult{CallToolResult: res, Raw: raw, Token: token}, nil
	}
	if raw == nil { // not recorded (see CallToolExact): the SDK's decoding
		if raw, err = json.Marshal(res); err != nil {
			return nil, err
		}
		return &ExactResult{CallToolResult: res, Raw: raw, Token: token}, nil
	}
	// The recorded result decoded exactly (every _meta and structuredContent as sent), and
	// refused as a guest's is (exactjson.Check) when it is not a CallToolResult.
	if res, err = exactjson.DecodeToolResult(raw); err != nil {
		return nil, fmt.Errorf("calling \"tools/call\": %w", err)
	}
	return &ExactResult{CallToolResult: res, Raw: raw, Token: token}, nil
}

// httpRecorder is the body of an HTTP response to a tools/call of CallToolExact: as the SDK
// reads it, each complete JSON-RPC message in it (an SSE event's data, or the whole
// application/json body at EOF) is offered to record.
type httpRecorder struct {
	io.ReadCloser
	raw  *rawResults
	sse  bool
	buf  []byte
	done bool
}

func (h *httpRecorder) Read(p []byte) (int, error) {
	n, err := h.ReadCloser.Read(p)
	if h.done {
		return n, err
	}
	h.buf = append(h.buf, p[:n]...)
	if h.sse {
		h.events()
	} else if err == io.EOF {
		h.offer(h.buf)
		h.buf, h.done = nil, true
	}
	return n, err
}

// events offers the data of each complete SSE event in buf and drops it.
func (h *httpRecorder) events() {
	for {
		text := strings.ReplaceAll(string(h.buf), "\r\n", "\n")
		i := strings.Index(text, "\n\n")
		if i < 0 {
			return
		}
		var data []string
		for _, line := range strings.Split(text[:i], "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(d, " "))
			}
		}
		if len(data) > 0 {
			h.offer([]byte(strings.Join(data, "\n")))
		}
		h.buf = []byte(text[i+2:])
	}
}

func (h *httpRecorder) offer(b []byte) {
	if msg, err := jsonrpc.DecodeMessage(b); err == nil {
		h.raw.notified(msg)
		h.raw.record(msg)
	}
}
