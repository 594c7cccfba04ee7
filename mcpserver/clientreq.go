package mcpserver

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A guest's requests to the client of the current tools/call (request kinds sampling,
// elicitation, roots; ABI.md §6.7) reach the client in one of two ways:
//
//  1. The request was made on a protocol revision before 2026-07-28 (stdio, stateful HTTP):
//     the session can carry a server→client request, so clientBridge.Request sends it
//     (ServerSession.CreateMessageWithTools, Elicit, ListRoots) and blocks until the client
//     answers or the call's deadline or cancellation ends it.
//  2. The request was made on 2026-07-28 or later (MCP SEP-2322 multi round-trip): the
//     server cannot send a request mid-call. A client request is keyed by the guest's
//     "mcpwasm.key" or, without one, "r<n>" for the n-th request of the call; a request the
//     current tools/call has no answer for stops the guest (or, with "mcpwasm.defer", is
//     UNAVAILABLE to it and collected), and the call is answered with an input-required
//     result: inputRequests holds the requests asked and requestState the answers so far,
//     authenticated with HMAC-SHA256 (sealState). The client retries the call with
//     inputResponses and the state; the guest runs again from the start and its requests
//     are answered from them (replay).
//
// A request for a capability the client did not declare is UNAVAILABLE to the guest, but
// at 2026-07-28 a request without "mcpwasm.optional" ends the call with the JSON-RPC error
// -32021 MissingRequiredClientCapability (SEP-2575 "Missing Required Capabilities"), whose
// data names the capability: there the client can fix it by declaring it and retrying.

// Caps of multi round-trip calls.
const (
	// MaxClientRequests caps the client requests of one tool call (so its rounds).
	MaxClientRequests = 16
	// MaxRequestStateBytes caps an encoded requestState, in bytes.
	MaxRequestStateBytes = 1 << 20
	// RequestStateTTL is how long a requestState is accepted after it was issued.
	RequestStateTTL = time.Hour
	// RequestStateKeyEnv names the environment variable cmd/mcpwasm reads a hex key from.
	RequestStateKeyEnv = "MCPWASM_REQUEST_STATE_KEY"
)

// ParseRequestStateKey decodes a hex HMAC key for requestState (Options.RequestStateKey): at
// least 32 bytes.
func ParseRequestStateKey(s string) ([]byte, error) {
	k, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("request state key: %w", err)
	}
	if len(k) < 32 {
		return nil, fmt.Errorf("request state key: %d bytes, need at least 32", len(k))
	}
	return k, nil
}

var processKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // never fails (crypto/rand)
	return k
})

var warnProcessKey sync.Once

// stateKey returns key, or the random per-process key (logging once that its states do
// not survive a restart or reach another replica).
func stateKey(key []byte, logger *slog.Logger) []byte {
	if len(key) > 0 {
		return key
	}
	warnProcessKey.Do(func() {
		logger.Info("request states use a random per-process key: they do not survive a restart or another replica (set request_state_key or " + RequestStateKeyEnv + ")")
	})
	return processKey()
}

// answer is a client's answer to the client request of a call with key Key.
type answer struct {
	Key    string          `json:"key"`
	Kind   string          `json:"kind"`
	Result json.RawMessage `json:"result"`
}

// pending is a client request asked in an input-required result and not answered yet.
type pending struct {
	Key  string `json:"key"`
	Kind string `json:"kind"`
}

// requestState is what an input-required result carries to the client's retry.
type requestState struct {
	Tool    string    `json:"tool"`
	Args    string    `json:"args"` // hex SHA-256 of the compacted arguments JSON
	Issued  int64     `json:"iat"`  // Unix seconds
	Answers []answer  `json:"answers"`
	Pending []pending `json:"pending,omitempty"` // requests asked and not answered
}

// sealState encodes st as base64url(JSON) "." base64url(HMAC-SHA256(key, JSON)).
func sealState(key []byte, st *requestState) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	s := base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	if len(s) > MaxRequestStateBytes {
		return "", fmt.Errorf("request state of %d bytes is over the %d-byte cap", len(s), MaxRequestStateBytes)
	}
	return s, nil
}

// openState verifies and decodes a requestState for tool and args hash, issued no longer
// than RequestStateTTL before now.
func openState(key []byte, s, tool, args string, now time.Time) (*requestState, error) {
	if len(s) > MaxRequestStateBytes {
		return nil, fmt.Errorf("requestState of %d bytes is over the %d-byte cap", len(s), MaxRequestStateBytes)
	}
	body, sig, ok := strings.Cut(s, ".")
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err1 != nil || err2 != nil {
		return nil, errors.New("requestState is malformed")
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	if !hmac.Equal(mac, m.Sum(nil)) {
		return nil, errors.New("requestState is not authentic (tampered, or issued by a server with another key)")
	}
	var st requestState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("requestState: %w", err)
	}
	switch issued := time.Unix(st.Issued, 0); {
	case st.Tool != tool:
		return nil, fmt.Errorf("requestState was issued for tool %q, not %q", st.Tool, tool)
	case st.Args != args:
		return nil, errors.New("requestState was issued for other arguments")
	case now.Sub(issued) > RequestStateTTL:
		return nil, fmt.Errorf("requestState expired (issued %s ago, accepted for %s)", now.Sub(issued).Round(time.Second), RequestStateTTL)
	}
	return &st, nil
}

func argsHash(args json.RawMessage) string {
	var buf bytes.Buffer
	if len(bytes.TrimSpace(args)) == 0 || json.Compact(&buf, args) != nil {
		buf.Reset()
		buf.WriteString("{}")
	}
	if buf.String() == "null" {
		buf.Reset()
		buf.WriteString("{}")
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])
}

// clientBridge is the peer.Client of one tools/call.
type clientBridge struct {
	ss     *mcp.ServerSession
	caps   *mcp.ClientCapabilities
	rounds bool // mechanism 2: answers come in later rounds
	// outputLimit caps the input-required result: the requests asked (askedBytes, as JSON)
	// add up to at most the guest's output limit (Limits.OutputBytes), like any result.
	outputLimit int

	mu         sync.Mutex
	n          int                          // client requests made so far in this run of the guest
	answers    []answer                     // rounds: answers so far, in the order they came
	fresh      map[string]mcp.InputResponse // rounds: inputResponses of a call without requestState
	asked      []askedRequest               // rounds: requests this run asked and has no answer for
	askedBytes int                          // rounds: the JSON size of asked, counted before it is kept
	missing    *mcp.ClientCapabilities      // rounds: a required capability the client lacks
}

// askedRequest is the client request that stopped the guest (rounds only).
type askedRequest struct {
	key, kind string
	params    mcp.InputRequest
}

type bridgeKey struct{}

// clientOf returns the Client withClientRequests put in ctx, or nil.
func clientOf(ctx context.Context) peer.Client {
	if b, ok := ctx.Value(bridgeKey{}).(*clientBridge); ok {
		return b
	}
	return nil
}

// withClientRequests wraps the tools/call handler of one guest tool so the guest can ask the
// calling client (see the comment at the top of this file). key authenticates request states.
func withClientRequests(tool string, key []byte, outputLimit int, logger *slog.Logger, next mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b := &clientBridge{ss: req.Session, caps: req.ClientCapabilities(), rounds: ProtocolAtLeast(revisionOf(req), roundsVersion), outputLimit: outputLimit}
		// The arguments' hash binds a request state; it is computed only when a state is
		// opened or issued, not on every call (a 1 MiB argument would cost a pass each time).
		hash := sync.OnceValue(func() string { return argsHash(req.Params.Arguments) })
		if b.rounds {
			if err := b.load(stateKey(key, logger), req.Params.RequestState, req.Params.InputResponses, tool, hash); err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + err.Error()}
			}
		}
		res, err := next(context.WithValue(ctx, bridgeKey{}, b), req)
		if b.missing != nil {
			return nil, missingCapability("tool "+strconv.Quote(tool), b.missing)
		}
		if err != nil || len(b.asked) == 0 {
			return res, err
		}
		irs, s, err := b.inputRequired(stateKey(key, logger), tool, hash())
		if err != nil {
			return toolError(fmt.Errorf("tool %q: %w", tool, err)), nil
		}
		return &mcp.CallToolResult{InputRequests: irs, RequestState: s}, nil
	}
}

// withPromptClientRequests is withClientRequests for the prompts/get handler of one guest
// prompt: the same two mechanisms (ABI.md §6.7), with a requestState bound to the prompt
// ("prompt:NAME") and its arguments.
func withPromptClientRequests(prompt string, key []byte, outputLimit int, logger *slog.Logger, next mcp.PromptHandler) mcp.PromptHandler {
	subject := "prompt:" + prompt
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		b := &clientBridge{ss: req.Session, caps: req.ClientCapabilities(), rounds: ProtocolAtLeast(revisionOf(req), roundsVersion), outputLimit: outputLimit}
		hash := sync.OnceValue(func() string {
			args, _ := json.Marshal(req.Params.Arguments)
			return argsHash(args)
		})
		if b.rounds {
			if err := b.load(stateKey(key, logger), req.Params.RequestState, req.Params.InputResponses, subject, hash); err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + err.Error()}
			}
		}
		res, err := next(context.WithValue(ctx, bridgeKey{}, b), req)
		if b.missing != nil {
			return nil, missingCapability("prompt "+strconv.Quote(prompt), b.missing)
		}
		if len(b.asked) == 0 {
			return res, err
		}
		irs, s, err := b.inputRequired(stateKey(key, logger), subject, hash())
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("prompt %q: %v", prompt, err)}
		}
		return &mcp.GetPromptResult{InputRequests: irs, RequestState: s}, nil
	}
}

// inputRequired is the input-required answer of a round that asked b.asked: the requests by
// key and the sealed state for the retry.
func (b *clientBridge) inputRequired(key []byte, subject, hash string) (mcp.InputRequestMap, string, error) {
	st := &requestState{Tool: subject, Args: hash, Issued: time.Now().Unix(), Answers: b.answers}
	irs := make(mcp.InputRequestMap, len(b.asked))
	for _, a := range b.asked {
		st.Pending = append(st.Pending, pending{Key: a.key, Kind: a.kind})
		irs[a.key] = a.params
	}
	s, err := sealState(key, st)
	return irs, s, err
}

// missingCapability is the JSON-RPC error -32021 MissingRequiredClientCapability (SEP-2575
// "Missing Required Capabilities"): data is {"requiredCapabilities": caps}, a
// ClientCapabilities object keyed by what is missing (e.g. {"sampling": {}}).
func missingCapability(subject string, caps *mcp.ClientCapabilities) error {
	// Built by hand: mcp.ClientCapabilities always marshals a "roots" member.
	req := map[string]any{}
	var names []string
	if caps.Sampling != nil {
		req["sampling"], names = caps.Sampling, append(names, "sampling")
	}
	if caps.Elicitation != nil {
		req["elicitation"], names = caps.Elicitation, append(names, "elicitation")
	}
	if caps.RootsV2 != nil {
		req["roots"], names = caps.RootsV2, append(names, "roots")
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": req})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data,
		Message: fmt.Sprintf("%s needs the client capability %s, which the request's clientCapabilities do not declare", subject, strings.Join(names, ", "))}
}

// load takes the answers of earlier rounds from the verified request state and this
// round's inputResponses for the requests the state says were asked; other keys are
// ignored (SEP-2322: a server ignores responses it did not ask for), and a response of
// the wrong kind leaves its request unanswered, so it is asked again. Without a state
// (the first round) the inputResponses answer the guest's requests by key and kind.
func (b *clientBridge) load(key []byte, state string, responses mcp.InputResponseMap, tool string, hash func() string) error {
	if state == "" {
		b.fresh = responses
		return nil
	}
	st, err := openState(key, state, tool, hash(), time.Now())
	if err != nil {
		return err
	}
	b.answers = st.Answers
	for _, q := range st.Pending {
		resp, ok := responses[q.Key]
		if !ok || !answers(q.Kind, resp) {
			continue // asked again when the guest gets there
		}
		raw, err := json.Marshal(resp)
		if err != nil {
			return fmt.Errorf("inputResponses[%q]: %w", q.Key, err)
		}
		b.answers = append(b.answers, answer{Key: q.Key, Kind: q.Kind, Result: raw})
	}
	return nil
}

// answers reports whether resp is a result of the client request kind.
func answers(kind string, resp mcp.InputResponse) bool {
	switch resp.(type) {
	case *mcp.CreateMessageResult, *mcp.CreateMessageWithToolsResult:
		return kind == abi.KindSampling
	case *mcp.ElicitResult:
		return kind == abi.KindElicitation
	case *mcp.ListRootsResult:
		return kind == abi.KindRoots
	}
	return false
}

// requestOptions are the host's members of a client request body, under "mcpwasm" (ABI.md
// §6.7); they are not sent to the client.
type requestOptions struct {
	Key      string `json:"key"`      // the inputRequests key (2026-07-28); default "r<n>"
	Defer    bool   `json:"defer"`    // unanswered: UNAVAILABLE to the guest, asked with the others at the end
	Optional bool   `json:"optional"` // a missing client capability is UNAVAILABLE, never -32021
}

// Request implements peer.Client.
func (b *clientBridge) Request(ctx context.Context, kind string, params []byte) ([]byte, error) {
	b.mu.Lock()
	i := b.n
	b.n++
	b.mu.Unlock()
	if i >= MaxClientRequests {
		return nil, fmt.Errorf("%w: over %d client requests in one tool call", peer.ErrClientFailed, MaxClientRequests)
	}
	var opt struct {
		O requestOptions `json:"mcpwasm"`
	}
	if err := json.Unmarshal(params, &opt); err != nil {
		return nil, fmt.Errorf("%w: %s: mcpwasm options: %v", peer.ErrClientFailed, kind, err)
	}
	o := opt.O
	if o.Key == "" {
		o.Key = fmt.Sprintf("r%d", i)
	}
	if err := b.capable(kind, params); err != nil {
		if b.rounds && !o.Optional {
			b.mu.Lock()
			b.missing = requiredCapability(kind, params)
			b.mu.Unlock()
			return nil, peer.ErrInputRequired // stops the guest; the call ends with -32021
		}
		return nil, err
	}
	ir, err := inputRequest(kind, params)
	if err != nil {
		return nil, err
	}
	if b.rounds {
		return b.replay(o, kind, ir)
	}
	if b.ss == nil {
		return nil, fmt.Errorf("%w: the call has no session to send a request on", peer.ErrClientUnavailable)
	}
	var res any
	send := func() {
		switch p := ir.(type) {
		case *mcp.CreateMessageWithToolsParams:
			res, err = b.ss.CreateMessageWithTools(ctx, p)
		case *mcp.ElicitParams:
			res, err = b.ss.Elicit(ctx, p)
		case *mcp.ListRootsParams:
			res, err = b.ss.ListRoots(ctx, p)
		}
	}
	send()
	// Streamable HTTP with JSON responses (serve --json-response) sends a server→client
	// request on the session's standalone GET stream, which the client opens after
	// initialize; a call made at once may find it not yet connected. Retry with backoff
	// for up to StandaloneStreamWait (bounded by the call's own deadline).
	start := time.Now()
	for wait := 10 * time.Millisecond; err != nil && standaloneNotConnected(err) && time.Since(start) < StandaloneStreamWait; wait = min(2*wait, 200*time.Millisecond) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		send()
	}
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
		return json.Marshal(res)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &rpcErr):
		return nil, fmt.Errorf("%w: the client answered: %s", peer.ErrClientFailed, rpcErr.Message)
	}
	// Not an answer of the client: the session could not carry the request (a stateless
	// HTTP session, a closed connection).
	return nil, fmt.Errorf("%w: the session cannot carry a server-to-client request: %v", peer.ErrClientUnavailable, err)
}

// StandaloneStreamWait is how long a server→client request waits for the client to connect
// the session's standalone GET stream (JSON-response Streamable HTTP) before it is
// UNAVAILABLE.
const StandaloneStreamWait = 5 * time.Second

// standaloneNotConnected reports whether err is the go-sdk's refusal to write to a session
// stream that no GET holds (yet).
func standaloneNotConnected(err error) bool {
	return strings.Contains(err.Error(), "stream not connected")
}

// replay answers a request of a 2026-07-28 call from the answers of earlier rounds or the
// call's own inputResponses, or records it as asked.
func (b *clientBridge) replay(o requestOptions, kind string, ir mcp.InputRequest) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.answers {
		if a.Key != o.Key {
			continue
		}
		if a.Kind != kind {
			return nil, fmt.Errorf("%w: request %q of this call was %s in an earlier round and is %s now: a guest's client requests must be the same for the same arguments", peer.ErrClientFailed, o.Key, a.Kind, kind)
		}
		return a.Result, nil
	}
	if resp, ok := b.fresh[o.Key]; ok && answers(kind, resp) {
		raw, err := json.Marshal(resp)
		if err != nil {
			return nil, fmt.Errorf("%w: inputResponses[%q]: %v", peer.ErrClientFailed, o.Key, err)
		}
		b.answers = append(b.answers, answer{Key: o.Key, Kind: kind, Result: raw})
		return raw, nil
	}
	for _, a := range b.asked {
		if a.key == o.Key {
			return nil, fmt.Errorf("%w: two client requests of this call have the key %q", peer.ErrClientFailed, o.Key)
		}
	}
	// The input-required result holds every request asked: its size is counted as each is
	// asked, and one that would take the result past the output limit is refused before it
	// is kept (a guest could otherwise defer 16 requests of 16 MiB each into one result).
	raw, err := json.Marshal(ir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s params: %v", peer.ErrClientFailed, kind, err)
	}
	n := len(raw) + len(o.Key) + inputRequestOverhead
	if b.outputLimit > 0 && b.askedBytes+n > b.outputLimit {
		return nil, fmt.Errorf("%w: %s %q (%d bytes) would take the call's input-required result to %d bytes, over the output limit of %s",
			peer.ErrClientFailed, kind, o.Key, len(raw), b.askedBytes+n, size.Format(uint64(b.outputLimit)))
	}
	b.askedBytes += n
	b.asked = append(b.asked, askedRequest{key: o.Key, kind: kind, params: ir})
	if o.Defer {
		return nil, fmt.Errorf("%w: %s %q is asked when the guest returns; the answer comes in the next round of the call", peer.ErrClientUnavailable, kind, o.Key)
	}
	return nil, peer.ErrInputRequired
}

// inputRequestOverhead is what an input-required result adds to each request beside its
// params and key: the JSON around them ("method", quotes, separators), counted generously.
const inputRequestOverhead = 64

// requiredCapability is the ClientCapabilities object naming what kind needs.
func requiredCapability(kind string, params []byte) *mcp.ClientCapabilities {
	c := &mcp.ClientCapabilities{}
	switch kind {
	case abi.KindSampling:
		c.Sampling = &mcp.SamplingCapabilities{}
	case abi.KindElicitation:
		var p struct {
			Mode string `json:"mode"`
			URL  string `json:"url"`
		}
		_ = json.Unmarshal(params, &p)
		if p.Mode == "url" || (p.Mode == "" && p.URL != "") {
			c.Elicitation = &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}
		} else {
			c.Elicitation = &mcp.ElicitationCapabilities{}
		}
	case abi.KindRoots:
		c.RootsV2 = &mcp.RootCapabilities{}
	}
	return c
}

// capable checks that the client declared the capability kind needs (MCP "Client
// Features": sampling, elicitation with its form or url mode, roots).
func (b *clientBridge) capable(kind string, params []byte) error {
	c := b.caps
	if c == nil && !b.rounds {
		// No initialize on this session: a stateless HTTP request of a revision before
		// 2026-07-28, where neither a server-to-client request nor a round trip exists.
		return fmt.Errorf("%w: the session cannot carry a server-to-client request (stateless HTTP needs protocol 2026-07-28 or later)", peer.ErrClientUnavailable)
	}
	missing := ""
	switch kind {
	case abi.KindSampling:
		if c == nil || c.Sampling == nil {
			missing = "sampling"
		}
	case abi.KindElicitation:
		var p struct {
			Mode string `json:"mode"`
			URL  string `json:"url"`
		}
		_ = json.Unmarshal(params, &p)
		url := p.Mode == "url" || (p.Mode == "" && p.URL != "")
		switch {
		case c == nil || c.Elicitation == nil:
			missing = "elicitation"
		case url && c.Elicitation.URL == nil:
			missing = "elicitation (url mode)"
		case !url && c.Elicitation.Form == nil && c.Elicitation.URL != nil:
			missing = "elicitation (form mode)"
		}
	case abi.KindRoots:
		if c == nil || c.RootsV2 == nil {
			missing = "roots"
		}
	}
	if missing != "" {
		return fmt.Errorf("%w: the client did not declare the %s capability", peer.ErrClientUnavailable, missing)
	}
	return nil
}

// inputRequest decodes a guest's params JSON into the SDK's params type for kind.
func inputRequest(kind string, params []byte) (mcp.InputRequest, error) {
	var p mcp.InputRequest
	switch kind {
	case abi.KindSampling:
		p = new(mcp.CreateMessageWithToolsParams)
	case abi.KindElicitation:
		p = new(mcp.ElicitParams)
	case abi.KindRoots:
		p = new(mcp.ListRootsParams)
	default:
		return nil, fmt.Errorf("%w: unknown kind %q", peer.ErrClientFailed, kind)
	}
	if err := json.Unmarshal(params, p); err != nil {
		return nil, fmt.Errorf("%w: %s params: %v", peer.ErrClientFailed, kind, err)
	}
	return p, nil
}
