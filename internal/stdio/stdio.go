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
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"syscall"
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

	// EOFGrace is how long Read, at the end of input, waits for answers to
	// requests it has already returned before it reports io.EOF (the SDK
	// writes nothing once Read fails). 0 selects 2 s.
	EOFGrace time.Duration

	// StopPending, if set, is called once when EOFGrace runs out with
	// requests still unanswered: it must make them finish (a server stops
	// its running calls, which then answer with an error). Read then waits
	// up to EOFGrace again for those answers. This is the one shutdown path
	// of a stdio server whose client closed its end.
	StopPending func()

	// AwaitReady, if set, is called at the end of input, with requests
	// pending, before EOFGrace starts: a server whose requests may wait for
	// something slow (a guest still compiling) lets the grace start only
	// once that is ready. It must return when ctx is done.
	AwaitReady func(ctx context.Context)
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
	if t.opts.EOFGrace <= 0 {
		t.opts.EOFGrace = defaultEOFGrace
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
		drainTimeout: t.opts.EOFGrace,
		stopPending:  t.opts.StopPending,
		awaitReady:   t.opts.AwaitReady,
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
	peerGone     atomic.Bool // a write failed with EPIPE (writeFailed)
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
	drainTimeout time.Duration         // Options.EOFGrace; only read by Read
	stopPending  func()                // Options.StopPending; may be nil
	awaitReady   func(context.Context) // Options.AwaitReady; may be nil
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
// At the end of input, before returning io.EOF, Read waits up to
// Options.EOFGrace for responses to requests it has already returned, because
// the SDK stops writing anything once Read fails; then it calls
// Options.StopPending and waits as long again. Close or ctx cancellation end
// the wait.
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

// defaultEOFGrace is Options.EOFGrace when none is given.
const defaultEOFGrace = 2 * time.Second

// drain waits until every request delivered by Read has been answered, the
// connection is closed, or ctx is done: first for drainTimeout; then, if
// requests are still pending, it calls stopPending and waits as long again.
func (c *conn) drain(ctx context.Context) {
	for round := 0; round < 2; round++ {
		c.pendingMu.Lock()
		pending, answered := c.pending, c.answered
		c.pendingMu.Unlock()
		if pending == 0 || c.drainTimeout <= 0 {
			return
		}
		if round == 0 && c.awaitReady != nil {
			c.awaitReady(ctx)
		}
		if round == 1 {
			if c.stopPending == nil {
				return
			}
			c.log.Debug("stdio: input ended; stopping requests still running", "pending", pending)
			c.stopPending()
		}
		timer := time.NewTimer(c.drainTimeout)
		select {
		case <-answered:
			timer.Stop()
			return
		case <-timer.C:
			if round == 1 || c.stopPending == nil {
				c.log.Warn("stdio: input ended with unanswered requests", "pending", pending)
			}
		case <-c.closed:
			timer.Stop()
			return
		case <-ctx.Done():
			timer.Stop()
			return
		}
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
	return c.writeFailed(err)
}

// writeFailed turns a write error that says the peer closed its input (EPIPE: it closed
// its end of our stdout) into an io.EOF, which ends the session as the end of our input
// does, with no error; the first is logged. Other errors are returned as they are.
func (c *conn) writeFailed(err error) error {
	if err == nil || !errors.Is(err, syscall.EPIPE) {
		return err
	}
	if c.peerGone.CompareAndSwap(false, true) {
		level := slog.LevelInfo
		if c.peer { // a spawned server that exited: its client reports that
			level = slog.LevelDebug
		}
		c.log.Log(context.Background(), level, "stdio: the peer closed its input (our output); answers still due are dropped, and the session ends", "error", err)
	}
	return fmt.Errorf("%w: the peer closed its input: %w", io.EOF, err)
}
