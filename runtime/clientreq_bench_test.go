package runtime_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// BenchmarkClientRequestStop: a Go guest call whose client request is answered ("answered")
// or stops the guest for an input-required round ("stopped": the instance is discarded and
// the next call instantiates a fresh one).
func BenchmarkClientRequestStop(b *testing.B) {
	h, _ := newHost(b)
	g := load(b, h, askWasm(b), &runtime.GuestConfig{Grants: runtime.Grants{Sampling: true}})
	for _, mode := range []string{"answered", "stopped"} {
		b.Run(mode, func(b *testing.B) {
			c := &hookClient{answer: []byte(`{"role":"assistant","content":{"type":"text","text":"brief"},"model":"m"}`)}
			if mode == "stopped" {
				c.err = peer.ErrInputRequired
			}
			ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{Client: c})
			b.ReportAllocs()
			for range b.N {
				c.kinds = c.kinds[:0]
				_, err := g.Call(ctx, "summarize", []byte(`{"text":"long"}`))
				if (err != nil) != (mode == "stopped") || (err != nil && !errors.Is(err, peer.ErrInputRequired)) {
					b.Fatal(err)
				}
			}
		})
	}
}
