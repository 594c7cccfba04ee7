package codemode

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The loopback hands each side its own message value, carries an error response as the wire
// does, and Close ends both sides (idempotently).
func TestLoopback(t *testing.T) {
	ctx := context.Background()
	ct, st := loopbackTransports()
	c, _ := ct.Connect(ctx)
	s, _ := st.Connect(ctx)
	id, _ := jsonrpc.MakeID(float64(7))
	req := &jsonrpc.Request{ID: id, Method: "tools/call", Params: []byte(`{"name":"x"}`)}
	if err := c.Write(ctx, req); err != nil {
		t.Fatal(err)
	}
	got, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := got.(*jsonrpc.Request); !ok || r == req || r.Method != "tools/call" || string(r.Params) != `{"name":"x"}` {
		t.Fatalf("server read %#v, want a copy of the request", got)
	}
	if err := s.Write(ctx, &jsonrpc.Response{ID: id, Error: errors.New("boom")}); err != nil {
		t.Fatal(err)
	}
	got, err = c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var we *jsonrpc.Error
	if r, ok := got.(*jsonrpc.Response); !ok || !errors.As(r.Error, &we) || we.Message != "boom" {
		t.Fatalf("client read %#v, want a wire error with message boom", got)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(ctx); !errors.Is(err, errLoopbackClosed) {
		t.Errorf("read after close: %v, want %v", err, errLoopbackClosed)
	}
	if err := c.Write(ctx, req); !errors.Is(err, errLoopbackClosed) {
		t.Errorf("write after close: %v, want %v", err, errLoopbackClosed)
	}
}
