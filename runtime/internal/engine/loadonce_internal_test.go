package engine

import (
	"bytes"
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// The load parses a guest's module once (issue #39, item 4): the load caps, the whole-server
// check, the compile-memory estimate, the table bound, the instrumentation and the script
// sections all read that one parse (loadcheck.Module); only the module the instrumentation
// writes is parsed again, for its own compile-memory estimate, and not through Host.parse.
// A load whose compile reads the bytes again (a second Host.parse) fails here.
func TestLoadParsesOnce(t *testing.T) {
	ctx := context.Background()
	h, err := NewHost(ctx, &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	var same, other int
	h.onParse = func(b []byte) {
		if bytes.Equal(b, wat.Echo) {
			same++
		} else {
			other++
		}
	}
	g, err := h.Load(ctx, wat.Echo, &GuestConfig{Source: "echo.wasm"})
	if err != nil {
		t.Fatal(err)
	}
	if same != 1 || other != 0 {
		t.Errorf("Load parsed the module %d times (and %d other modules); want once", same, other)
	}
	if got, err := g.Call(ctx, "echo", []byte(`{"text":"hi"}`)); err != nil || !bytes.Contains(got, []byte(`hi`)) {
		t.Errorf("the guest loaded from one parse: Call = %s, %v", got, err)
	}
}
