package upstream

import (
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logStream is a server's event stream: a log message, an event of another name carrying
// one (not for the SDK: not relayed), then the call's answer.
const logStream = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"warning\",\"data\":\"first\"}}\n\n" +
	"event: other\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"warning\",\"data\":\"not mcp\"}}\n\n" +
	"id: 7\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n"

// relayRecorder is a Relay whose Client records, for each log message it is asked to place,
// how many bytes of the stream had been handed over by then.
type relayRecorder struct {
	got    []int
	handed *int
}

func (r *relayRecorder) relay() *Relay {
	return &Relay{Label: "test", Client: func(ctx context.Context) (context.Context, *mcp.ServerSession) {
		r.got = append(r.got, *r.handed)
		return nil, nil // no client: the message is dropped after being placed
	}}
}

// A log message on an HTTP event stream is relayed before the SDK is handed the bytes that
// complete any later event (so before it can decode the call's answer), once, whatever the
// reads' sizes; the bytes handed over are the stream's, unchanged.
func TestLogBodyRelaysInReadOrder(t *testing.T) {
	firstEnd := strings.Index(logStream, "\n\n") + 2
	for _, c := range []struct {
		name string
		body func() io.Reader
		p    int
	}{
		{"one chunk", func() io.Reader { return strings.NewReader(logStream) }, 64 << 10},
		{"one byte at a time", func() io.Reader { return iotest.OneByteReader(strings.NewReader(logStream)) }, 64 << 10},
		{"small reads", func() io.Reader { return strings.NewReader(logStream) }, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			handed := 0
			rec := &relayRecorder{handed: &handed}
			b := &logBody{ReadCloser: io.NopCloser(c.body()), ctx: context.Background(), relay: rec.relay()}
			var out []byte
			p := make([]byte, c.p)
			for {
				n, err := b.Read(p)
				out = append(out, p[:n]...)
				handed += n
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if string(out) != logStream {
				t.Errorf("handed over %q, want the stream unchanged", out)
			}
			// Placed once, before the bytes that complete the log event were handed over:
			// before the SDK could decode it, let alone the answer after it.
			if len(rec.got) != 1 || rec.got[0] >= firstEnd {
				t.Errorf("relayed at %v bytes handed over, want once before %d", rec.got, firstEnd)
			}
		})
	}
}

// A log message after the answer is relayed after the SDK was handed the answer: read order,
// not earlier, though both arrive in one read.
func TestLogBodyKeepsLaterMessagesLater(t *testing.T) {
	const answer = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
	const log = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"after\"}}\n\n"
	handed := 0
	rec := &relayRecorder{handed: &handed}
	b := &logBody{ReadCloser: io.NopCloser(strings.NewReader(answer + log)), ctx: context.Background(), relay: rec.relay()}
	p := make([]byte, 64<<10)
	for {
		n, err := b.Read(p)
		handed += n
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.got) != 1 || rec.got[0] != len(answer) {
		t.Errorf("relayed at %v bytes handed over, want once at %d (the answer's end)", rec.got, len(answer))
	}
}

// An event longer than logEventMax is passed through unchanged and not kept: a log message
// that long is not relayed, the next one is.
func TestLogBodyLongEvent(t *testing.T) {
	long := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"" + strings.Repeat("x", logEventMax) + "\"}}\n\n"
	short := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"short\"}}\n\n"
	handed := 0
	rec := &relayRecorder{handed: &handed}
	b := &logBody{ReadCloser: io.NopCloser(strings.NewReader(long + short)), ctx: context.Background(), relay: rec.relay()}
	out, err := io.ReadAll(iotest.OneByteReader(readCounter{b, &handed}))
	if err != nil || string(out) != long+short {
		t.Fatalf("handed over %d bytes (%v), want the stream's %d unchanged", len(out), err, len(long+short))
	}
	if len(rec.got) != 1 || rec.got[0] < len(long) {
		t.Errorf("relayed at %v bytes handed over, want once, for the short message after %d", rec.got, len(long))
	}
	if cap(b.event) > 2*logEventMax {
		t.Errorf("kept %d bytes of one event", cap(b.event))
	}
}

type readCounter struct {
	r *logBody
	n *int
}

func (c readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += n
	return n, err
}
