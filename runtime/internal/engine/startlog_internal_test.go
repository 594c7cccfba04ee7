package engine

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// loggingProbe is probeKind whose start logs a line, as a JavaScript guest's top-level
// console.error does, before the manifest names the guest.
// With fail, the start then fails.
type loggingProbe struct {
	probeKind
	fail bool
}

func (k loggingProbe) Start(ctx context.Context, in kind.Instance, c *kind.Call) (kind.Started, error) {
	c.Host.Log(ctx, c, abi.LevelError, "server running on stdio")
	if k.fail {
		return nil, fmt.Errorf("%w: bad config", fault.ErrTrap)
	}
	return k.probeKind.Start(ctx, in, c)
}

// lockedBuffer is a log sink safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A guest's log line from the start of the instance that describes it names the guest the
// manifest goes on to name (it was logged with guest=""); if the guest cannot be described,
// it names its source. It is logged at info whatever its level (a script's top-level
// console.error banner is not an error: issue 45 item 4); a call's error line stays ERROR.
func TestStartLogNamesTheGuest(t *testing.T) {
	for _, c := range []struct {
		fail bool
		want string
	}{
		{false, `level=INFO msg="guest log" guest=probe tool="" level=error msg="server running on stdio"`},
		{true, `level=INFO msg="guest log" source=probe.wasm tool="" level=error msg="server running on stdio"`},
	} {
		logs := &lockedBuffer{}
		h, err := NewHost(context.Background(), &Options{NoDiskCache: true, testKinds: &[]kind.Kind{loggingProbe{fail: c.fail}},
			Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close(context.Background()) })
		g, err := h.Load(context.Background(), wat.Probe, &GuestConfig{Source: "probe.wasm"})
		if (err != nil) != c.fail {
			t.Fatalf("fail %v: load: %v", c.fail, err)
		}
		var lines []string
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, `msg="guest log"`) {
				lines = append(lines, l[strings.Index(l, "level="):])
			}
		}
		if len(lines) == 0 || lines[0] != c.want {
			t.Errorf("fail %v: guest log lines %q, want the first %q", c.fail, lines, c.want)
		}
		if c.fail {
			continue
		}
		// The same line from a tool call is the call's error: it stays ERROR.
		guestHost{g}.Log(context.Background(), &kind.Call{Entry: kind.EntryTool, Tool: "t"}, abi.LevelError, "lookup failed")
		if want := `level=ERROR msg="guest log" guest=probe tool=t level=error msg="lookup failed"`; !strings.Contains(logs.String(), want) {
			t.Errorf("a call's error line: log lacks %s:\n%s", want, logs)
		}
	}
}
