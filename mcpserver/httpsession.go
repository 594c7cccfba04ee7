package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultSessionIdleTimeout is how long an HTTP session may go without a request before it
// is closed, when HTTPOptions.SessionIdleTimeout is zero.
const DefaultSessionIdleTimeout = 10 * time.Minute

// DefaultMaxSessions caps live HTTP sessions when HTTPOptions.MaxSessions is zero.
const DefaultMaxSessions = 1000

// CodeTooManySessions is the JSON-RPC error code (implementation-defined server error range,
// JSON-RPC 2.0 §5.1) in the body of the 503 that refuses a session over the cap.
const CodeTooManySessions = -32000

// negotiate answers what the SDK's Accept check gets wrong for us (reproducer N03). The SDK
// wants "application/json" and "text/event-stream" in every POST's Accept (400 otherwise),
// even with --json-response, where it only ever sends application/json. Here a request is
// served if its Accept allows the media type the answer will have — application/json with
// JSONResponse, else text/event-stream for POST and always for GET — and is 406 Not
// Acceptable (RFC 9110 §15.5.7) if not. No Accept at all means any type (RFC 9110 §12.5.1).
// An acceptable request reaches the SDK with the Accept it expects.
func negotiate(jsonResponse bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var want, sdkAccept string
		switch r.Method {
		case http.MethodPost:
			want, sdkAccept = "text/event-stream", "application/json, text/event-stream"
			if jsonResponse {
				want = "application/json"
			}
		case http.MethodGet:
			want, sdkAccept = "text/event-stream", "text/event-stream"
		default:
			next.ServeHTTP(w, r)
			return
		}
		accept := r.Header.Values("Accept")
		if len(accept) > 0 && !accepts(accept, want) {
			http.Error(w, fmt.Sprintf("Not Acceptable: this server answers %s %s; the Accept header must allow it", r.Method, want), http.StatusNotAcceptable)
			return
		}
		r = r.Clone(r.Context())
		r.Header.Set("Accept", sdkAccept)
		next.ServeHTTP(w, r)
	})
}

// accepts reports whether the Accept header values allow media type want (RFC 9110 §12.5.1):
// the most specific matching range decides, and q=0 means "not acceptable".
func accepts(values []string, want string) bool {
	wantType, _, _ := strings.Cut(want, "/")
	best, bestQ := -1, 0.0
	for _, v := range values {
		for _, rng := range strings.Split(v, ",") {
			params := strings.Split(rng, ";")
			mt := strings.ToLower(strings.TrimSpace(params[0]))
			spec := -1
			switch {
			case mt == want:
				spec = 2
			case mt == wantType+"/*":
				spec = 1
			case mt == "*/*":
				spec = 0
			}
			if spec < best || spec < 0 {
				continue
			}
			q := 1.0
			for _, p := range params[1:] {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						q = f
					}
				}
			}
			if spec > best {
				best, bestQ = spec, q
			} else {
				bestQ = max(bestQ, q)
			}
		}
	}
	return best >= 0 && bestQ > 0
}

// sessionGate sits before the SDK's stateful handler, on POSTs without Mcp-Session-Id (the
// only requests that create a session):
//
//   - A request other than initialize (or ping) cannot start a session: it gets the error
//     stdio gives, -32600 Invalid Request (the SDK would answer it with code 0), in a 400
//     with a JSON-RPC body, and no session is created.
//   - At the cap of live sessions, a new session is refused: 503 Service Unavailable with
//     Retry-After and a JSON-RPC error body (CodeTooManySessions). Existing sessions are never
//     evicted to make room: their clients would lose state without being told.
type sessionGate struct {
	server  *mcp.Server
	max     int // <= 0: no cap
	maxBody int64
	next    http.Handler

	// perIdentity caps the live sessions of one identity (IdentityFrom); <= 0: no cap.
	perIdentity int

	mu        sync.Mutex
	pending   int               // session-creating POSTs in flight (not yet in server.Sessions)
	owners    map[string]string // session id -> Identity.Key of its creator (perIdentity > 0)
	pendingBy map[string]int    // pending, by Identity.Key
}

func (g *sessionGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
		g.next.ServeHTTP(w, r)
		return
	}
	limit := g.maxBody
	switch {
	case limit == 0:
		limit = mcp.DefaultMaxRequestBodyBytes
	case limit < 0:
		limit = math.MaxInt64 - 1 // no limit (as for the SDK)
	}
	// At most limit+1 bytes: a longer body still fails the SDK's own limit (413).
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body.Close()
	if err != nil {
		http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body)) // the SDK reads it again (and applies the limit)
	sessionless := false
	if int64(len(body)) <= limit {
		if id, method, ok := preInitializeRequest(body); ok {
			writeJSONRPCError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("method %q is invalid during session initialization", method))
			return
		}
		sessionless = sessionlessRequest(body)
	}
	// The cap counts sessions a client can come back to (they have an id); a sessionless
	// request (2026-07-28, SEP-2575) gets a session only for itself, which the SDK ends with
	// the request, so it neither counts nor is counted (the HTTP server's own limits bound
	// requests in flight).
	if g.max > 0 && !sessionless {
		g.mu.Lock()
		live := 0
		for ss := range g.server.Sessions() {
			if ss.ID() != "" {
				live++
			}
		}
		if live+g.pending >= g.max {
			g.mu.Unlock()
			w.Header().Set("Retry-After", "10")
			id, _, _ := requestID(body)
			writeJSONRPCError(w, http.StatusServiceUnavailable, id, CodeTooManySessions,
				fmt.Sprintf("too many sessions (%d): retry later, or end unused sessions with DELETE", g.max))
			return
		}
		g.pending++
		g.mu.Unlock()
		defer func() {
			g.mu.Lock()
			g.pending--
			g.mu.Unlock()
		}()
	}
	if id := IdentityFrom(r.Context()); g.perIdentity > 0 && id != nil && !sessionless {
		key := id.Key()
		if !g.reserve(key) {
			w.Header().Set("Retry-After", "10")
			reqID, _, _ := requestID(body)
			writeJSONRPCError(w, http.StatusServiceUnavailable, reqID, CodeTooManySessions,
				fmt.Sprintf("too many sessions for subject %q (%d, the per-identity session quota): end unused sessions with DELETE", id.Subject, g.perIdentity))
			return
		}
		rec := &sessionIDRecorder{ResponseWriter: w}
		defer func() {
			g.mu.Lock()
			g.pendingBy[key]--
			if rec.id != "" {
				g.owners[rec.id] = key
			}
			g.mu.Unlock()
		}()
		w = rec
	}
	g.next.ServeHTTP(w, r)
}

// reserve counts a session-creating request of identity key against perIdentity: false if the
// identity is at its quota. Owners of sessions no longer live are forgotten on the way.
func (g *sessionGate) reserve(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.owners == nil {
		g.owners, g.pendingBy = map[string]string{}, map[string]int{}
	}
	live := map[string]bool{}
	for ss := range g.server.Sessions() {
		if ss.ID() != "" {
			live[ss.ID()] = true
		}
	}
	n := g.pendingBy[key]
	for sid, owner := range g.owners {
		switch {
		case !live[sid]:
			delete(g.owners, sid)
		case owner == key:
			n++
		}
	}
	if n >= g.perIdentity {
		return false
	}
	g.pendingBy[key]++
	return true
}

// sessionIDRecorder notes the Mcp-Session-Id the SDK gives a new session.
type sessionIDRecorder struct {
	http.ResponseWriter
	id string
}

func (s *sessionIDRecorder) WriteHeader(code int) {
	if s.id == "" {
		s.id = s.Header().Get("Mcp-Session-Id")
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *sessionIDRecorder) Write(p []byte) (int, error) {
	if s.id == "" {
		s.id = s.Header().Get("Mcp-Session-Id")
	}
	return s.ResponseWriter.Write(p)
}

func (s *sessionIDRecorder) Flush() { _ = http.NewResponseController(s.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection.
func (s *sessionIDRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// preInitializeRequest reports a single request (not a notification, not a batch) that the
// SDK would refuse before initialize: anything but initialize, ping and server/discover,
// unless it follows the sessionless protocol (SEP-2575: a protocolVersion in its _meta).
func preInitializeRequest(body []byte) (id json.RawMessage, method string, ok bool) {
	id, method, ok = requestID(body)
	if !ok || id == nil {
		return nil, "", false
	}
	switch method {
	case "initialize", "ping", "server/discover":
		return nil, "", false
	}
	if sessionlessRequest(body) {
		return nil, "", false
	}
	return id, method, true
}

// sessionlessRequest reports a request of the sessionless protocol (SEP-2575): a
// protocolVersion in its _meta.
func sessionlessRequest(body []byte) bool {
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	_, ok := m.Params.Meta["io.modelcontextprotocol/protocolVersion"]
	return ok
}

// requestID returns the id (nil for a notification) and method of a single JSON-RPC
// message; ok is false for anything else (a batch, invalid JSON, a response).
func requestID(body []byte) (id json.RawMessage, method string, ok bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method == "" {
		return nil, "", false
	}
	if string(m.ID) == "null" {
		m.ID = nil
	}
	return m.ID, m.Method, true
}

// writeJSONRPCError writes an HTTP error whose body is a JSON-RPC error response (id null
// when unknown).
func writeJSONRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: code, Message: msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
