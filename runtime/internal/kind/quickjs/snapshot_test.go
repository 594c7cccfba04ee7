package quickjs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero/api"
)

// copyInstance gives to, a fresh engine instance, from's linear memory and stack pointer: what
// the runtime's snapshot copies (runtime/internal/engine/snapshot.go).
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

// randomScript draws at its top level from every random source a script reads —
// crypto.randomUUID, crypto.getRandomValues, Math.random — and answers them in tool "start";
// tool "draw" answers a Math.random drawn in the call.
const randomScript = `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "random", version: "0.1.0" });
const atStart = crypto.randomUUID() + " " + crypto.getRandomValues(new Uint8Array(8)).join(",") + " " + Math.random();
server.registerTool("start", {}, async () => ({ content: [{ type: "text", text: atStart }] }));
server.registerTool("draw", {}, async () => ({ content: [{ type: "text", text: String(Math.random()) }] }));
await server.connect({});
`

// fixedAtStart is what randomScript draws at start without the random grant, in every
// instance (wazero's fixed clock seeds Math.random; crypto reads fixedRandom's sequence).
const fixedAtStart = `{"content":[{"type":"text","text":"9e527556-54e6-479a-a4b9-20a9d278f71e 170,27,111,172,129,62,145,36 0.1617876141903971"}]}`

// What a script draws at its top level comes from the random grant when its Call has it —
// crypto and Math.random alike, so two instances draw different values (the engine seeds
// Math.random from the clock, here the fixed one, which gave every instance the same) — and
// without it is the fixed sequence, the same in every instance. A copy of a started instance
// restored with the grant draws its own Math.random sequence too.
func TestRandomAtStartFromGrant(t *testing.T) {
	atStart := func(random bool) (string, *VM, *Call) {
		t.Helper()
		call := &Call{Random: random}
		vm := start(t, randomScript, call, 32<<20)
		out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "start"})
		if err != nil {
			t.Fatal(err)
		}
		return string(out), vm, call
	}
	for range 2 {
		if got, _, _ := atStart(false); got != fixedAtStart {
			t.Errorf("without the random grant: %s; want %s", got, fixedAtStart)
		}
	}
	a, vm, call := atStart(true)
	b, _, _ := atStart(true)
	fields := func(s string) []string {
		return strings.Fields(strings.TrimSuffix(strings.TrimPrefix(s, `{"content":[{"type":"text","text":"`), `"}]}`))
	}
	fa, fb, fixed := fields(a), fields(b), fields(fixedAtStart)
	if len(fa) != 3 || len(fb) != 3 {
		t.Fatalf("with the random grant: %s and %s", a, b)
	}
	for i, name := range []string{"crypto.randomUUID", "crypto.getRandomValues", "Math.random"} {
		if fa[i] == fb[i] || fa[i] == fixed[i] || fb[i] == fixed[i] {
			t.Errorf("%s at start with the random grant: %s and %s (fixed: %s); want two values of their own", name, fa[i], fb[i], fixed[i])
		}
	}
	// Two copies of the started instance, restored with the grant: the clock (fixed here)
	// would give both the same seed.
	var draws []string
	for range 2 {
		copyCall := &Call{Random: true}
		e := instantiate(t, copyCall)
		copyInstance(t, call.Engine.(plainEngine), e)
		restored, err := Restore(WithCall(context.Background(), copyCall), e, vm.State())
		if err != nil {
			t.Fatal(err)
		}
		out, err := run(t, restored, copyCall, EntryCallTool, map[string]any{"name": "draw"})
		if err != nil {
			t.Fatal(err)
		}
		draws = append(draws, string(out))
	}
	if draws[0] == draws[1] {
		t.Errorf("first Math.random of two copies restored with the random grant: both %s; want different", draws[0])
	}
}
