package quickjs

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/tetratelabs/wazero/api"
)

// copyInstance gives to, a fresh engine instance, from's linear memory and stack pointer: what
// the runtime's snapshot copies (runtime/snapshot.go).
func copyInstance(t *testing.T, from, to plainEngine) {
	t.Helper()
	src, dst := from.mod.Memory(), to.mod.Memory()
	if d := src.Size() - dst.Size(); d > 0 {
		if _, ok := dst.Grow(d / 65536); !ok {
			t.Fatal("cannot grow the copy's memory")
		}
	}
	b, _ := src.Read(0, src.Size())
	if !dst.Write(0, b) {
		t.Fatal("cannot write the copy's memory")
	}
	to.mod.ExportedGlobal("__stack_pointer").(api.MutableGlobal).Set(from.mod.ExportedGlobal("__stack_pointer").Get())
}

// A VM restored into a copy of a started instance answers like the started one — a plain
// echo, timers and a promise chain, a thrown error — without evaluating the script again, and
// what the copy's calls change is not in the original.
func TestRestoreAnswersLikeStart(t *testing.T) {
	call := &Call{}
	vm := start(t, hello+"\nlet n = 0; server.registerTool(\"count\", {}, async () => ({ content: [{ type: \"text\", text: String(++n) }] }));\n", call, 32<<20)
	st := vm.State()
	if !st.Restorable() {
		t.Fatal("Start did not find Math.random's state in the pinned engine's context")
	}
	copyCall := &Call{}
	e := instantiate(t, copyCall)
	copyInstance(t, call.Engine.(plainEngine), e)
	restored, err := Restore(WithCall(context.Background(), copyCall), e, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool, args, want string
	}{
		{"echo", `{"text":"añ€😀"}`, `{"content":[{"type":"text","text":"añ€😀"}]}`},
		{"later", `{}`, `{"content":[{"type":"text","text":"abc"}]}`},
		{"boom", `{}`, `{"content":[{"type":"text","text":"no such thing"}],"isError":true}`},
		{"count", `{}`, `{"content":[{"type":"text","text":"1"}]}`},
		{"count", `{}`, `{"content":[{"type":"text","text":"2"}]}`},
	} {
		out, err := run(t, restored, copyCall, EntryCallTool, map[string]any{"name": c.tool, "arguments": json.RawMessage(c.args)})
		if err != nil || string(out) != c.want {
			t.Errorf("restored %s: %s, %v; want %s", c.tool, out, err, c.want)
		}
	}
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "count", "arguments": json.RawMessage(`{}`)})
	if want := `{"content":[{"type":"text","text":"1"}]}`; err != nil || string(out) != want {
		t.Errorf("the original's count after the copy's two: %s, %v; want %s", out, err, want)
	}
}

// Restore refuses a State whose Math.random state was not found: every copy would draw the
// same sequence.
func TestRestoreRefusesUnseeded(t *testing.T) {
	call := &Call{}
	e := instantiate(t, call)
	if _, err := Restore(WithCall(context.Background(), call), e, State{}); !errors.Is(err, ErrEngine) {
		t.Fatalf("Restore(State{}): %v; want ErrEngine", err)
	}
}
