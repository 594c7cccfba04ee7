package hypermcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// An imported plugin runs as hyper-mcp runs it: one instance that every client shares, so
// state kept between calls is one state (issue 45 item 11: two concurrent add_tool calls of a
// dynamic plugin both answered tool_1 from two instances). The guest here returns the
// arguments of the previous call its instance served: over 8 concurrent calls from 8
// sessions, exactly one call sees none ({}), and every other sees a different earlier call.
func TestImportedPluginSharesOneInstance(t *testing.T) {
	r, err := Convert([]byte(`{"plugins":{"state":{"url":"file:///p/state.wasm"}}}`), false)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.Marshal()
	cfg, err := config.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	h, err := runtime.NewHost(context.Background(), &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	g, err := h.Load(context.Background(), wat.State, cfg.GuestConfig(cfg.Guests[0], "state.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	seen := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{Session: i})
			out, err := g.Call(ctx, "remember", fmt.Appendf(nil, `{"n":%d}`, i))
			if err != nil {
				t.Error(err)
				return
			}
			var res struct{ StructuredContent json.RawMessage }
			_ = json.Unmarshal(out, &res)
			seen[i] = string(res.StructuredContent)
		})
	}
	wg.Wait()
	count := map[string]int{}
	for _, s := range seen {
		count[s]++
	}
	if count["{}"] != 1 || len(count) != n {
		t.Errorf("the calls saw %q: want one {} and every other distinct (one shared instance)", seen)
	}
}
