// Package stdio implements a robust, line-framed MCP stdio transport on top of
// the public API of github.com/modelcontextprotocol/go-sdk.
//
// The wire format is newline-delimited JSON (NDJSON) as required by the MCP
// specification, "Transports › stdio": every JSON-RPC 2.0 message is one line
// of UTF-8 JSON terminated by "\n", and messages MUST NOT contain embedded
// newlines.
//
// Unlike the SDK's own stdio transport, a malformed or over-long input line
// never ends the session: the offending line is answered with a single
// JSON-RPC error response (JSON-RPC 2.0 §5.1, codes -32700 and -32600) and
// reading continues with the next line.
//
// The transport also guarantees that every response carries byte-for-byte the
// id literal of the request it answers (JSON-RPC 2.0 §5), even for numeric ids
// the SDK would otherwise round through float64.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLineBytes is the maximum size, in bytes, of one incoming line
// (excluding its "\n" or "\r\n" terminator) used when Options.MaxLineBytes is
// zero: 64 MiB.
const DefaultMaxLineBytes = 64 << 20

// Options configures a Transport. The zero value (and a nil *Options) selects
// the defaults.
type Options struct {
	// MaxLineBytes is the maximum number of bytes of one incoming line,
	// excluding the terminating "\n" (and a "\r" immediately before it).
	// 0 selects DefaultMaxLineBytes; a negative value is treated as 0.
	// A longer line is discarded while being streamed (never held in memory
	// as a whole) and answered with one JSON-RPC -32600 Invalid Request error
	// whose id is null (JSON-RPC 2.0 §5.1).
	MaxLineBytes int

	// Logger receives diagnostics about rejected lines and I/O failures.
	// nil discards them.
	Logger *slog.Logger

	// Peer selects client mode, for talking to a server this process
	// connected to: an invalid or over-long line is logged to Logger and
	// skipped, never answered. Answering a server's garbage with error
	// responses could start an error ping-pong, and a client has no request
	// id to attribute it to.
	Peer bool
}

// ErrAlreadyConnected is returned by Transport.Connect when it is called more
// than once; a Transport wraps one stream and supports a single connection
// (see mcp.Transport).
var ErrAlreadyConnected = errors.New("stdio: transport already connected")

// ErrClosed is returned by Connection.Write after Close.
var ErrClosed = errors.New("stdio: connection closed")

// Transport is an mcp.Transport that speaks newline-delimited JSON-RPC 2.0 over
// an io.Reader (the peer's output, e.g. os.Stdin) and an io.Writer (the peer's
// input, e.g. os.Stdout), per MCP spec "Transports › stdio".
type Transport struct {
	r         io.Reader
	w         io.Writer
	opts      Options
	connected atomic.Bool
}

// NewTransport returns a Transport reading messages from r and writing them to
// w. opts is copied; nil selects the defaults. NewTransport does not start any
// I/O: reading begins in Connect.
func NewTransport(r io.Reader, w io.Writer, opts *Options) *Transport {
	t := &Transport{r: r, w: w}
	if opts != nil {
		t.opts = *opts
	}
	if t.opts.MaxLineBytes <= 0 {
		t.opts.MaxLineBytes = DefaultMaxLineBytes
	}
	t.opts.MaxLineBytes = min(t.opts.MaxLineBytes, math.MaxInt-1) // room for a '\r'

	if t.opts.Logger == nil {
		t.opts.Logger = slog.New(slog.DiscardHandler)
	}
	return t
}

// Connect implements mcp.Transport. It starts a goroutine reading lines from
// the input and returns the connection. It may be called once; any further
// call returns ErrAlreadyConnected. ctx is not retained: the connection lives
// until Close or the end of input.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !t.connected.CompareAndSwap(false, true) {
		return nil, ErrAlreadyConnected
	}
	c := &conn{
		r:            t.r,
		w:            t.w,
		max:          t.opts.MaxLineBytes,
		log:          t.opts.Logger,
		peer:         t.opts.Peer,
		incoming:     make(chan jsonrpc.Message),
		done:         make(chan struct{}),
		closed:       make(chan struct{}),
		drainTimeout: eofDrainTimeout,
	}
	go c.readLoop()
	return c, nil
}

// surrogatePrefix starts every substitute id handed to the SDK in place of an
// id literal that would not survive the SDK's decode/encode round trip. It
// begins with NUL, which a peer can only send escaped ("\u0000"); every string
// id containing a backslash is itself replaced by a surrogate, so a peer id
// can never be mistaken for a surrogate.
const surrogatePrefix = "\x00mcpwasm:"

// conn is the mcp.Connection returned by Transport.Connect.
type conn struct {
	r    io.Reader
	w    io.Writer
	max  int
	log  *slog.Logger
	peer bool // Options.Peer: rejected lines are logged, never answered

	// incoming carries decoded messages from readLoop to Read (unbuffered).
	incoming chan jsonrpc.Message
	// done is closed by readLoop after its last message; readErr is then set.
	done    chan struct{}
	readErr error

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error

	isClosed     atomic.Bool // set by Close; later writes fail
	writeMu      sync.Mutex  // serializes writes to w
	writeScratch []byte      // reused buffer for error replies, guarded by writeMu

	idMu      sync.Mutex
	nextID    uint64
	originals map[string][]byte // surrogate -> original id literal
	byLiteral map[string]string // original id literal -> latest surrogate
	cancelled map[string]bool   // ids (as the SDK encodes them) named by notifications/cancelled
	inflight  map[string]bool   // id keys (idKey) of requests not yet answered

	// dropped counts non-blank lines that were consumed without producing a
	// message or an error reply (see decodeResponse). Used by tests.
	dropped atomic.Int64

	// pending counts requests handed to the SDK that it has not answered
	// yet; answered is closed whenever pending drops to zero and replaced
	// when it rises again. Together they let Read delay io.EOF briefly so
	// that requests read just before the end of input still get their
	// responses written (the SDK refuses all writes once Read fails).
	pendingMu    sync.Mutex
	pending      int
	answered     chan struct{}
	drainTimeout time.Duration // eofDrainTimeout; only read by Read
}

// SessionID implements mcp.Connection. The stdio transport has no session id
// (MCP spec "Transports › stdio"), so it always returns "".
func (c *conn) SessionID() string { return "" }

// Read implements mcp.Connection. It returns the next valid JSON-RPC message
// from the input. Invalid lines never surface here: they are answered on the
// output by the reader. Read returns io.EOF once the input is exhausted (after
// the final line, even without a trailing newline, has been processed) or the
// connection is closed, the underlying read error if reading fails, and
// ctx.Err() if ctx is done first.
//
// At the end of input, before returning io.EOF, Read waits up to 2 seconds
// for responses to requests it has already returned, because the SDK stops
// writing anything once Read fails; Close or ctx cancellation end the wait.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case msg := <-c.incoming:
		return msg, nil
	case <-c.done:
		if c.readErr == io.EOF {
			c.drain(ctx)
		}
		return nil, c.readErr
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements mcp.Connection. It writes msg as one line of compact JSON
// followed by a single "\n" using exactly one call to the underlying writer.
// Writes are serialized, so Write may be called concurrently. A response to a
// request whose id was replaced by a surrogate is written with the request's
// original id literal (JSON-RPC 2.0 §5: the id MUST be the same as in the
// request). Write returns ErrClosed after Close, ctx.Err() if ctx is already
// done, an encoding error, or the writer's error.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var (
		data []byte
		err  error
	)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if resp.Error != nil {
			msg = withErrorCode(resp)
			resp = msg.(*jsonrpc.Response)
		}
		if lit := c.takeOriginal(resp.ID); lit != nil {
			c.releaseID(lit)
			data, err = encodeWithID(resp, lit)
		} else {
			c.releaseKey(rawIDKey(resp.ID))
		}
	}
	if data == nil && err == nil {
		data, err = jsonrpc.EncodeMessage(msg)
	}
	if err != nil {
		return fmt.Errorf("stdio: encoding message: %w", err)
	}
	data = append(data, '\n')
	resp, isResp := msg.(*jsonrpc.Response)
	if isResp && c.takeCancelled(resp.ID) {
		data = nil // MCP "Utilities › Cancellation": no response for a cancelled request
	}
	if data != nil {
		err = c.writeLine(data)
	}
	if isResp {
		c.pendingMu.Lock()
		if c.pending > 0 {
			c.pending--
			if c.pending == 0 {
				close(c.answered)
			}
		}
		c.pendingMu.Unlock()
	}
	return err
}

// eofDrainTimeout bounds how long Read, having reached the end of input,
// waits for the SDK to answer requests it has already received before it
// reports io.EOF.
const eofDrainTimeout = 2 * time.Second

// drain waits until every request delivered by Read has been answered, the
// connection is closed, ctx is done, or eofDrainTimeout elapses.
func (c *conn) drain(ctx context.Context) {
	c.pendingMu.Lock()
	pending, answered := c.pending, c.answered
	c.pendingMu.Unlock()
	if pending == 0 || c.drainTimeout <= 0 {
		return
	}
	timer := time.NewTimer(c.drainTimeout)
	defer timer.Stop()
	select {
	case <-answered:
	case <-timer.C:
		c.log.Warn("stdio: input ended with unanswered requests", "pending", pending)
	case <-c.closed:
	case <-ctx.Done():
	}
}

// Close implements mcp.Connection. It unblocks any pending Read, makes later
// Writes fail with ErrClosed, and closes the reader and the writer if they
// implement io.Closer (closing the reader is what stops the internal reader
// goroutine for pipes; a reader that cannot be interrupted, such as a terminal
// stdin, leaves it blocked until input arrives). Close is idempotent and safe
// to call concurrently; every call returns the result of the first.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		// Do not take writeMu here: a Write blocked on a stalled writer must
		// not block Close, and closing w below is what unblocks it.
		c.isClosed.Store(true)
		close(c.closed)
		var errs []error
		if rc, ok := c.r.(io.Closer); ok {
			errs = append(errs, rc.Close())
		}
		if wc, ok := c.w.(io.Closer); ok {
			errs = append(errs, wc.Close())
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}

// writeLine writes one complete, newline-terminated line.
func (c *conn) writeLine(line []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.isClosed.Load() {
		return ErrClosed
	}
	_, err := c.w.Write(line)
	return err
}

// readLoop reads lines until the input ends or the connection is closed.
// It owns the read buffers, so they are reused from line to line.
func (c *conn) readLoop() {
	br := bufio.NewReaderSize(c.r, 64<<10)
	var (
		line       []byte // accumulates a line longer than br's buffer
		discarding bool   // the current line exceeded c.max; skip to '\n'
		readErr    error
	)
	for readErr == nil {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			// chunk ends with '\n'.
		case errors.Is(err, bufio.ErrBufferFull):
			// Partial line; keep going.
		default:
			readErr = err
		}
		// At the end of input the final line needs no terminator. Data cut
		// short by any other read error is dropped.
		complete := err == nil || (readErr == io.EOF && (len(chunk) > 0 || len(line) > 0 || discarding))
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		if discarding {
			if complete {
				discarding = false
			}
			continue
		}
		// One more byte than the limit is allowed in the buffer to hold a
		// '\r' that precedes '\n'.
		if len(line)+len(chunk) > c.max+1 {
			c.rejectOverlong()
			line = line[:0]
			if cap(line) > 1<<20 {
				line = nil // do not pin a huge buffer
			}
			discarding = !complete
			continue
		}
		if !complete {
			line = append(line, chunk...)
			continue
		}
		full := chunk
		if len(line) > 0 {
			line = append(line, chunk...)
			full = line
		}
		if n := len(full); n > 0 && full[n-1] == '\r' {
			full = full[:n-1]
		}
		var ok bool
		if len(full) > c.max {
			c.rejectOverlong()
			ok = true
		} else {
			ok = c.handleLine(full)
		}
		line = line[:0]
		if cap(line) > 1<<20 {
			line = nil
		}
		if !ok {
			return // closed while delivering
		}
	}
	if errors.Is(readErr, io.EOF) {
		readErr = io.EOF
	} else {
		select {
		case <-c.closed:
			readErr = io.EOF
		default:
			c.log.Error("stdio: read failed", "error", readErr)
		}
	}
	c.readErr = readErr
	close(c.done)
}

func (c *conn) rejectOverlong() {
	c.log.Warn("stdio: discarding over-long line", "max_bytes", c.max)
	c.replyError(nil, jsonrpc.CodeInvalidRequest,
		"Invalid Request: message exceeds "+strconv.Itoa(c.max)+" bytes")
}

// deliver hands msg to Read. It reports false if the connection was closed.
func (c *conn) deliver(msg jsonrpc.Message) bool {
	select {
	case c.incoming <- msg:
		return true
	case <-c.closed:
		return false
	}
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// handleLine processes one line (terminator already removed). It reports
// false only if the connection was closed while delivering a message.
func (c *conn) handleLine(b []byte) bool {
	b = bytes.TrimPrefix(b, utf8BOM)
	b = trimWS(b)
	if len(b) == 0 {
		return true // blank line: ignored
	}
	msg, code, text, id := c.decode(b)
	if code != 0 {
		c.log.Warn("stdio: rejecting line", "code", code, "error", text)
		c.replyError(id, code, text)
		return true
	}
	if msg == nil {
		c.dropped.Add(1)
		return true
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		c.pendingMu.Lock()
		if c.pending == 0 {
			c.answered = make(chan struct{})
		}
		c.pending++
		c.pendingMu.Unlock()
	}
	return c.deliver(msg)
}

// replyError writes one JSON-RPC error response. id is the verbatim id
// literal, or nil for null (JSON-RPC 2.0 §5: id is Null when it could not be
// determined).
func (c *conn) replyError(id []byte, code int, text string) {
	if c.peer {
		return // the caller has logged the line; a client never answers it
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.isClosed.Load() {
		return
	}
	buf := append(c.writeScratch[:0], `{"jsonrpc":"2.0","id":`...)
	if id == nil {
		buf = append(buf, "null"...)
	} else {
		buf = append(buf, id...)
	}
	buf = append(buf, `,"error":{"code":`...)
	buf = strconv.AppendInt(buf, int64(code), 10)
	buf = append(buf, `,"message":`...)
	buf = appendJSONString(buf, text)
	buf = append(buf, "}}\n"...)
	c.writeScratch = buf
	if _, err := c.w.Write(buf); err != nil {
		c.log.Error("stdio: writing error reply failed", "error", err)
	}
	if cap(c.writeScratch) > 64<<10 {
		c.writeScratch = nil
	}
}

// envelope holds the raw top-level members of a JSON-RPC message.
type envelope struct {
	version, id, method, params, result, err []byte
	hasID, hasResult, hasError               bool
}

// decode validates one non-blank line b. On success it returns the message
// (or nil if the line is to be dropped silently). On failure it returns a
// JSON-RPC error code (JSON-RPC 2.0 §5.1), a message, and the verbatim request
// id literal if one could be extracted (nil means null).
func (c *conn) decode(b []byte) (msg jsonrpc.Message, code int, text string, id []byte) {
	if !json.Valid(b) {
		var v struct{}
		detail := "invalid JSON"
		if err := json.Unmarshal(b, &v); err != nil {
			detail = err.Error()
		}
		return nil, jsonrpc.CodeParseError, "Parse error: " + detail, nil
	}
	switch b[0] {
	case '{':
	case '[':
		return nil, jsonrpc.CodeInvalidRequest,
			"Invalid Request: JSON-RPC batch arrays are not supported (batching was removed in MCP 2025-06-18)", nil
	default:
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: message must be a JSON object", nil
	}
	var env envelope
	forEachMember(b, func(key []byte, vs, ve int) {
		val := b[vs:ve:ve]
		switch {
		case keyIs(key, "jsonrpc"):
			env.version = val
		case keyIs(key, "id"):
			env.id, env.hasID = val, true
		case keyIs(key, "method"):
			env.method = val
		case keyIs(key, "params"):
			env.params = val
		case keyIs(key, "result"):
			env.result, env.hasResult = val, true
		case keyIs(key, "error"):
			env.err, env.hasError = val, true
		}
	})
	// An id is echoed back only if it has a legal type (JSON-RPC 2.0 §4).
	idKind := kindOf(env.id)
	if idKind == '"' || idKind == '0' {
		id = env.id
	}
	invalid := func(why string) (jsonrpc.Message, int, string, []byte) {
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: " + why, id
	}
	if v, ok := decodeString(env.version); !ok || v != "2.0" {
		return invalid(`"jsonrpc" must be exactly "2.0"`)
	}
	if env.hasID && idKind != '"' && idKind != '0' && idKind != 'n' {
		return invalid(`"id" must be a string or a number`)
	}
	if env.method != nil {
		return c.decodeRequest(&env, idKind, id, invalid)
	}
	return c.decodeResponse(&env, idKind, invalid)
}

func (c *conn) decodeRequest(env *envelope, idKind byte, id []byte,
	invalid func(string) (jsonrpc.Message, int, string, []byte)) (jsonrpc.Message, int, string, []byte) {
	method, ok := decodeString(env.method)
	if !ok {
		return invalid(`"method" must be a string`)
	}
	if idKind == 'n' {
		// MCP spec "Basic › Requests": the id MUST NOT be null.
		return invalid(`"id" must not be null`)
	}
	var params json.RawMessage
	switch kindOf(env.params) {
	case 0, 'n':
		// absent or null: no params
	case '{', '[':
		params = append(json.RawMessage(nil), env.params...)
	default:
		// JSON-RPC 2.0 §4.2: params MUST be a structured value.
		return invalid(`"params" must be an object or an array`)
	}
	req := &jsonrpc.Request{Method: method, Params: params}
	if id != nil {
		// JSON-RPC 2.0 §4: an id identifies one request until it is answered. A second
		// request with the id of one still in flight is refused here; the SDK would drop it
		// without a word.
		if !c.claimID(id) {
			return invalid("id " + string(id) + " is already used by a request still in flight")
		}
		rid, err := c.requestID(id)
		if err != nil {
			c.releaseID(id)
			return invalid(err.Error())
		}
		req.ID = rid
	}
	if method == "notifications/cancelled" && !req.ID.IsValid() && params != nil {
		req.Params = c.translateCancelled(params)
		c.noteCancelled(req.Params)
	}
	return req, 0, "", nil
}

func (c *conn) decodeResponse(env *envelope, idKind byte,
	invalid func(string) (jsonrpc.Message, int, string, []byte)) (jsonrpc.Message, int, string, []byte) {
	if !env.hasResult && !env.hasError {
		return invalid(`message has neither "method" nor "result"/"error"`)
	}
	if env.hasResult && env.hasError {
		// JSON-RPC 2.0 §5: either result or error MUST be included, not both.
		return invalid(`response must not contain both "result" and "error"`)
	}
	var werr *jsonrpc.Error
	if env.hasError {
		var e struct {
			Code    *int64          `json:"code"`
			Message *string         `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if kindOf(env.err) != '{' || json.Unmarshal(env.err, &e) != nil || e.Code == nil || e.Message == nil {
			return invalid(`"error" must be an object with an integer "code" and a string "message"`)
		}
		werr = &jsonrpc.Error{Code: *e.Code, Message: *e.Message, Data: e.Data}
	}
	switch idKind {
	case 'n':
		if werr != nil {
			// A peer reports an error it could not attribute to a request
			// (JSON-RPC 2.0 §5). Answering it could start an error ping-pong,
			// and the SDK cannot route it, so it is only logged.
			c.log.Warn("stdio: peer reported an error with id null", "code", werr.Code, "message", werr.Message)
			return nil, 0, "", nil
		}
		return invalid(`response "id" must not be null`)
	case 0:
		return invalid(`response is missing "id"`)
	}
	var rid jsonrpc.ID
	var err error
	if idKind == '"' {
		s, _ := decodeString(env.id)
		rid, err = jsonrpc.MakeID(s)
	} else {
		// Ids the SDK generates are small integers; accept any literal that
		// denotes one (e.g. 1.0 or 1e0), drop anything else.
		f, perr := strconv.ParseFloat(string(env.id), 64)
		if perr != nil || f != float64(int64(f)) || f > 1<<53 || f < -(1<<53) {
			c.log.Warn("stdio: dropping response with unknown id", "id", string(env.id))
			return nil, 0, "", nil
		}
		rid, err = jsonrpc.MakeID(f)
	}
	if err != nil {
		return invalid(err.Error())
	}
	resp := &jsonrpc.Response{ID: rid}
	if werr != nil {
		resp.Error = werr
	} else {
		resp.Result = append(json.RawMessage(nil), env.result...)
	}
	return resp, 0, "", nil
}

// requestID converts the verbatim id literal of an incoming request into the
// ID handed to the SDK. Literals that survive the SDK's round trip unchanged
// (canonical integers within ±2^53, and strings the SDK re-encodes
// identically) are passed through; any other literal is replaced by a fresh
// surrogate string and remembered so Write can restore it.
func (c *conn) requestID(lit []byte) (jsonrpc.ID, error) {
	if lit[0] == '"' {
		if plainString(lit) {
			return jsonrpc.MakeID(string(lit[1 : len(lit)-1]))
		}
	} else if n, ok := canonicalInt(lit); ok {
		return jsonrpc.MakeID(float64(n))
	}
	return jsonrpc.MakeID(c.newSurrogate(lit))
}

func (c *conn) newSurrogate(lit []byte) string {
	c.idMu.Lock()
	defer c.idMu.Unlock()
	c.nextID++
	s := surrogatePrefix + strconv.FormatUint(c.nextID, 10)
	if c.originals == nil {
		c.originals = make(map[string][]byte)
		c.byLiteral = make(map[string]string)
	}
	orig := string(lit)
	c.originals[s] = []byte(orig)
	c.byLiteral[orig] = s
	return s
}

// takeOriginal returns (and forgets) the original id literal for a surrogate
// id, or nil if id is not a surrogate.
func (c *conn) takeOriginal(id jsonrpc.ID) []byte {
	s, ok := id.Raw().(string)
	if !ok || len(s) <= len(surrogatePrefix) || s[:len(surrogatePrefix)] != surrogatePrefix {
		return nil
	}
	c.idMu.Lock()
	defer c.idMu.Unlock()
	lit, ok := c.originals[s]
	if !ok {
		return nil
	}
	delete(c.originals, s)
	if c.byLiteral[string(lit)] == s {
		delete(c.byLiteral, string(lit))
	}
	return lit
}

// withErrorCode gives a response whose error is a plain Go error a proper JSON-RPC code
// (JSON-RPC 2.0 §5.1): the SDK answers a request sent before initialize, and a second
// initialize, with a plain error, which would go out as code 0. Those are Invalid Requests
// (-32600); any other plain error is an Internal error (-32603).
func withErrorCode(resp *jsonrpc.Response) *jsonrpc.Response {
	var we *jsonrpc.Error
	if errors.As(resp.Error, &we) && we.Code != 0 {
		return resp
	}
	code := int64(jsonrpc.CodeInternalError)
	if msg := resp.Error.Error(); strings.Contains(msg, "during session initialization") ||
		strings.Contains(msg, `duplicate "initialize"`) {
		code = jsonrpc.CodeInvalidRequest
	}
	cp := *resp
	cp.Error = &jsonrpc.Error{Code: code, Message: resp.Error.Error()}
	return &cp
}

// claimID records a request id literal as in flight; false means it already is. Keys are
// the literal with numbers and plain strings in canonical form, as responses write them.
func (c *conn) claimID(lit []byte) bool {
	key := idKey(lit)
	c.idMu.Lock()
	defer c.idMu.Unlock()
	if c.inflight[key] {
		return false
	}
	if c.inflight == nil {
		c.inflight = map[string]bool{}
	}
	c.inflight[key] = true
	return true
}

func (c *conn) releaseID(lit []byte) { c.releaseKey(idKey(lit)) }

func (c *conn) releaseKey(key string) {
	c.idMu.Lock()
	delete(c.inflight, key)
	c.idMu.Unlock()
}

// rawIDKey is idKey of the literal an id the SDK decoded itself came from (see requestID).
func rawIDKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return `"` + v + `"`
	}
	return ""
}

// idKey canonicalizes an id literal the SDK passes through unchanged (a canonical integer or
// a plain string); any other literal is its own key, since it travels as a surrogate and is
// written back verbatim.
func idKey(lit []byte) string {
	if lit[0] == '"' && plainString(lit) {
		return string(lit)
	}
	if n, ok := canonicalInt(lit); ok {
		return strconv.FormatInt(n, 10)
	}
	return string(lit)
}

// maxCancelled bounds the ids remembered from notifications/cancelled whose request has not
// been answered (a client may cancel ids that never existed).
const maxCancelled = 1024

// noteCancelled remembers the requestId of a notifications/cancelled (already translated to
// the SDK's id), so that the SDK's eventual response to it is dropped.
func (c *conn) noteCancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	key, err := json.Marshal(p.RequestID)
	if err != nil {
		return
	}
	c.idMu.Lock()
	defer c.idMu.Unlock()
	if c.cancelled == nil || len(c.cancelled) >= maxCancelled {
		c.cancelled = map[string]bool{}
	}
	c.cancelled[string(key)] = true
}

// takeCancelled reports (once) whether id was cancelled by the client.
func (c *conn) takeCancelled(id jsonrpc.ID) bool {
	key, err := json.Marshal(id.Raw())
	if err != nil {
		return false
	}
	c.idMu.Lock()
	defer c.idMu.Unlock()
	if !c.cancelled[string(key)] {
		return false
	}
	delete(c.cancelled, string(key))
	return true
}

// translateCancelled rewrites params.requestId of a notifications/cancelled
// (MCP spec "Utilities › Cancellation") from an original id literal to its
// surrogate, so the SDK cancels the right request. Other params are returned
// unchanged.
func (c *conn) translateCancelled(params json.RawMessage) json.RawMessage {
	if kindOf(params) != '{' {
		return params
	}
	start, end := -1, -1
	forEachMember(params, func(key []byte, vs, ve int) {
		if keyIs(key, "requestId") {
			start, end = vs, ve
		}
	})
	if start < 0 {
		return params
	}
	c.idMu.Lock()
	s, ok := c.byLiteral[string(params[start:end])]
	c.idMu.Unlock()
	if !ok {
		return params
	}
	out := make(json.RawMessage, 0, len(params)+len(s)+8)
	out = append(out, params[:start]...)
	out = appendJSONString(out, s)
	out = append(out, params[end:]...)
	return out
}

// encodeWithID encodes resp with its id replaced by the verbatim literal lit.
func encodeWithID(resp *jsonrpc.Response, lit []byte) ([]byte, error) {
	cp := *resp
	cp.ID = jsonrpc.ID{} // the zero ID is omitted from the encoding
	data, err := jsonrpc.EncodeMessage(&cp)
	if err != nil {
		return nil, err
	}
	const head = `{"jsonrpc":"2.0"`
	at := 1 // just after '{'
	sep := ","
	if bytes.HasPrefix(data, []byte(head)) {
		at, sep = len(head), ""
	}
	out := make([]byte, 0, len(data)+len(lit)+8)
	out = append(out, data[:at]...)
	if sep == "" {
		out = append(out, ',')
	}
	out = append(out, `"id":`...)
	out = append(out, lit...)
	out = append(out, sep...)
	out = append(out, data[at:]...)
	return out, nil
}
