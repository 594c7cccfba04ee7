package mcpserver_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A guest tool whose description hides a zero-width space is withheld by AddGuest (with a
// warning) unless the options allow hidden text.
func TestAddGuestWithholdsHiddenText(t *testing.T) {
	// Same byte length as the original, so the manifest's (ptr, len) stays right.
	poisoned := bytes.Replace(wat.Echo, []byte("Returns its arguments"), []byte("Returns\u200bits argumen"), 1)
	if bytes.Equal(poisoned, wat.Echo) {
		t.Fatal("fixture text not found in echo.wasm")
	}
	ctx := context.Background()
	for _, allow := range []bool{false, true} {
		h, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close(ctx)
		g, err := h.Load(ctx, poisoned, nil)
		if err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
		if err := mcpserver.AddGuest(s, g, &mcpserver.GuestOptions{AllowHiddenText: allow, Logger: slog.New(slog.NewTextHandler(&logs, nil))}); err != nil {
			t.Fatal(err)
		}
		st, ct := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.ListTools(ctx, nil)
		cs.Close()
		if err != nil {
			t.Fatal(err)
		}
		if served := len(res.Tools) == 1; served != allow {
			t.Errorf("allow=%v: %d tools served", allow, len(res.Tools))
		}
		want := "tool withheld"
		if allow {
			want = "serving tool with hidden characters"
		}
		if !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), "U+200B") {
			t.Errorf("allow=%v: log %q lacks %q and U+200B", allow, logs.String(), want)
		}
	}
}
