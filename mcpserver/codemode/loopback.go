package codemode

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The loopback session carries a run's tool calls from code mode's client to the server.
// mcp.NewInMemoryTransports joins the two over a net.Pipe, so every message is encoded,
// written through a synchronous pipe and decoded again (a decoder allocating per message):
// for a run of 50 calls that was most of code mode's own time (BenchmarkWorkloadShape).
// loopbackTransports pass the SDK's message values over channels instead. What the SDK
// sends is already encoded where it matters (a request's params, a response's result are
// JSON bytes, decoded by the receiver as from any transport); an error response is
// encoded and decoded, so the client sees the wire's error, not the server's Go value.

// loopbackTransports returns two connected transports: the client's and the server's.
func loopbackTransports() (client, server mcp.Transport) {
	a, b := make(chan jsonrpc.Message, 64), make(chan jsonrpc.Message, 64)
	done := make(chan struct{})
	once := new(sync.Once)
	return &loopback{in: a, out: b, done: done, once: once}, &loopback{in: b, out: a, done: done, once: once}
}

// loopback is one end: both the Transport and, once connected, its Connection.
type loopback struct {
	in   <-chan jsonrpc.Message
	out  chan<- jsonrpc.Message
	done chan struct{} // closed by the first Close of either end
	once *sync.Once
}

var errLoopbackClosed = errors.New("code mode: loopback session closed")

func (l *loopback) Connect(context.Context) (mcp.Connection, error) { return l, nil }

func (l *loopback) Read(ctx context.Context) (jsonrpc.Message, error) {
	if l.closed() {
		return nil, errLoopbackClosed
	}
	select {
	case m := <-l.in:
		return m, nil
	case <-l.done:
		return nil, errLoopbackClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *loopback) Write(ctx context.Context, m jsonrpc.Message) error {
	switch v := m.(type) {
	case *jsonrpc.Request:
		cp := *v // the receiver owns its value; the params bytes are shared, never changed
		m = &cp
	case *jsonrpc.Response:
		if v.Error != nil { // as the wire carries it
			b, err := jsonrpc.EncodeMessage(v)
			if err != nil {
				return fmt.Errorf("code mode: loopback: %w", err)
			}
			if m, err = jsonrpc.DecodeMessage(b); err != nil {
				return fmt.Errorf("code mode: loopback: %w", err)
			}
		} else {
			cp := *v
			m = &cp
		}
	}
	if l.closed() { // else a select with room in the buffer could still send
		return errLoopbackClosed
	}
	select {
	case l.out <- m:
		return nil
	case <-l.done:
		return errLoopbackClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends both ends; it is idempotent.
func (l *loopback) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *loopback) closed() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

func (l *loopback) SessionID() string { return "" }
