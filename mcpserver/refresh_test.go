package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
)

// A guest that re-lists during calls of two sessions at once: each session is told its tool
// list changed and then lists the new tools; refreshes and list requests run concurrently
// (under -race, the lists swap and the registry's refresh are checked).
func TestRefreshAfterListsChanged(t *testing.T) {
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
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 2 {
		changed := make(chan struct{}, 8)
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := c.Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "grow"}); err != nil {
					t.Errorf("session %d: grow: %v", i, err)
					return
				}
				if _, err := cs.ListTools(ctx, nil); err != nil {
					t.Errorf("session %d: tools/list: %v", i, err)
					return
				}
			}
			<-changed // the SDK may fold several changes into one notification
		}()
	}
	wg.Wait()
	// Six grows on one shared instance: extra1 … extra6, served.
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	if want := []string{"extra1", "extra2", "extra3", "extra4", "extra5", "extra6", "grow", "lists", "quiet", "touch"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	if out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "extra6"}); err != nil || out.IsError {
		t.Errorf("extra6: %+v %v", out, err)
	}
}
