package stdio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// brokenPipe fails every write as a pipe whose reader closed does (with SIGPIPE handled).
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) {
	return 0, fmt.Errorf("write /dev/stdout: %w", syscall.EPIPE)
}

// A write that finds the peer's input closed (EPIPE) fails with an io.EOF, which ends the
// SDK's session without an error, as the end of input does; it is logged once, however many
// writes fail; other write errors are returned unchanged.
func TestWriteToClosedPeerIsEOF(t *testing.T) {
	var log bytes.Buffer
	tr := NewTransport(strings.NewReader(""), brokenPipe{}, &Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	c, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	note := &jsonrpc.Request{Method: "notifications/message"}
	for range 2 {
		err := c.Write(context.Background(), note)
		if !errors.Is(err, io.EOF) || !errors.Is(err, syscall.EPIPE) {
			t.Errorf("Write = %v, want an io.EOF that wraps EPIPE", err)
		}
	}
	if n := strings.Count(log.String(), "the peer closed its input"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, log.String())
	}
	other := errors.New("disk full")
	if err := c.(*conn).writeFailed(other); err != other {
		t.Errorf("writeFailed(%v) = %v, want it unchanged", other, err)
	}
}
