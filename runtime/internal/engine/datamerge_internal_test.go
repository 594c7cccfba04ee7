package engine

import (
	"bytes"
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/tetratelabs/wazero"
)

// A Go guest (38968 segments before the join) starts with the same memory from the
// instrumented module, whose segments are joined, as from the module as built.
func TestMergeDataSameMemory(t *testing.T) {
	raw := goStateWasm(t)
	instrumented, err := instrument.Calls(raw)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := snapHost(t, true)
	ctx := context.Background()
	var mems [][]byte
	for _, w := range [][]byte{raw, instrumented} {
		cm, err := h.rt.CompileModule(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := h.rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := mod.Memory().Read(0, mod.Memory().Size())
		mems = append(mems, bytes.Clone(b))
		mod.Close(ctx)
		cm.Close(ctx)
	}
	if !bytes.Equal(mems[0], mems[1]) {
		t.Errorf("initial memory differs: %d bytes as built, %d instrumented", len(mems[0]), len(mems[1]))
	}
	if len(raw) < len(instrumented)/2 {
		t.Errorf("instrumented module of %d bytes from %d: the gaps filled weigh too much", len(instrumented), len(raw))
	}
}
