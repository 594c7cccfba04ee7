package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// The names the rewrite adds are reserved: a module that already exports one is refused,
// and the loader says why.
func TestInstrumentRejectsReservedExports(t *testing.T) {
	out, err := instrument.Calls(wat.Echo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := instrument.Calls(out); !errors.Is(err, instrument.ErrReserved) {
		t.Fatalf("instrumenting twice: %v; want ErrReserved", err)
	}
	ctx := context.Background()
	h, err := NewHost(ctx, &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	_, err = h.Load(ctx, out, &GuestConfig{Source: "x.wasm"})
	want := "x.wasm: compiling: reserved export name: the module exports mcpwasm_interrupt, which the host reserves (ABI.md §2)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v; want %s", err, want)
	}
}
