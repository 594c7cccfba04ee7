package stdio

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPeerSkipsInvalidLines: in client (Peer) mode a server's garbage — non-JSON, a batch,
// an over-long line — is logged and skipped, never answered, and the valid messages around it
// still arrive.
func TestPeerSkipsInvalidLines(t *testing.T) {
	var logs bytes.Buffer
	input := strings.Join([]string{
		`server starting on stdio...`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`,
		`[{"jsonrpc":"2.0","id":2,"result":{}}]`,
		`{"jsonrpc":"2.0","id":3,"result":"` + strings.Repeat("x", 100) + `"}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	}, "\n") + "\n"
	msgs, out, _ := readAll(t, input, &Options{Peer: true, MaxLineBytes: 64,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if len(out) != 0 {
		t.Errorf("peer mode wrote %q; want nothing", out)
	}
	if got := strings.Count(logs.String(), "rejecting line") + strings.Count(logs.String(), "over-long line"); got != 3 {
		t.Errorf("logged %d rejected lines, want 3:\n%s", got, logs.String())
	}
}
