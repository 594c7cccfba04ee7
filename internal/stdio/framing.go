package stdio

import (
	"bufio"
	"bytes"
	"errors"
	"github.com/mcpwasm/mcpwasm/internal/jsonwire"
	"io"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Framing: one JSON-RPC message per line; blank lines, a trailing CR and a leading BOM are
// tolerated, an overlong or malformed line is answered and reading goes on.

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
	b = jsonwire.TrimWS(b)
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
	if _, err := c.w.Write(buf); c.writeFailed(err) != nil && !c.peerGone.Load() {
		c.log.Error("stdio: writing error reply failed", "error", err)
	}
	if cap(c.writeScratch) > 64<<10 {
		c.writeScratch = nil
	}
}
