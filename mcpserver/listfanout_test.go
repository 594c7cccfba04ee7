package mcpserver_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
)

// recordHandler sends each log record with its attributes ("key=value" joined by spaces).
type recordHandler struct{ out chan string }

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h recordHandler) WithGroup(string) slog.Handler            { return h }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	})
	h.out <- b.String()
	return nil
}

// One guest list change with 20 HTTP sessions that have no GET stream logs one line (not a
// WARN per session per list), and only the lists that changed are announced: dyn's first
// grow adds a tool and a prompt, the second only a tool.
func TestListChangedOneLinePerChange(t *testing.T) {
	ctx := context.Background()
	wasm, err := os.ReadFile(filepath.Join("..", "runtime", "internal", "kind", "extism", "testdata", "dyn.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	g, err := h.Load(ctx, wasm, &runtime.GuestConfig{Name: "dyn", Isolation: "shared", Limits: runtime.Limits{Instances: 1}})
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1000)
	logger := slog.New(recordHandler{lines})
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, &mcpserver.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{JSONResponse: true}))
	defer hs.Close()
	hdr := map[string]string{"MCP-Protocol-Version": "2025-11-25"}
	var sids []string
	for range 20 {
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		sid := resp.Header.Get("Mcp-Session-Id")
		send(t, hs.URL, sid, hdr, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
		sids = append(sids, sid)
	}
	wait := func() string {
		for l := range lines {
			if strings.Contains(l, "list_changed") {
				return l
			}
		}
		return ""
	}
	grow := func() {
		w := send(t, hs.URL, sids[0], hdr, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "grow"}})
		if w.err != nil {
			t.Fatalf("grow: %+v", w.err)
		}
	}
	grow()
	first := wait()
	grow()
	second := wait()
	if !strings.Contains(first, "tools/list_changed=20") || !strings.Contains(first, "prompts/list_changed=20") || strings.Contains(first, "resources/") {
		t.Errorf("first change logged %q; want one line with tools and prompts, 20 sessions each", first)
	}
	if !strings.Contains(second, "tools/list_changed=20") || strings.Contains(second, "prompts/") || strings.Contains(second, "resources/") {
		t.Errorf("second change logged %q; want one line with tools only, 20 sessions", second)
	}
	for len(lines) > 0 {
		if l := <-lines; strings.Contains(l, "list_changed") {
			t.Errorf("another line: %s", l)
		}
	}
}
