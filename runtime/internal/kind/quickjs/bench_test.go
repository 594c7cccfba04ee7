package quickjs

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi/js"
	"github.com/tetratelabs/wazero"
)

// BenchmarkCompileEngine is the uncached compile of the engine (wazero's compiler).
func BenchmarkCompileEngine(b *testing.B) {
	engine := engineBytes(b)
	ctx := context.Background()
	for b.Loop() {
		r := wazero.NewRuntime(ctx)
		if _, err := r.CompileModule(ctx, engine); err != nil {
			b.Fatal(err)
		}
		r.Close(ctx)
	}
}

// BenchmarkStartExample is instantiate + Start (engine init, shim, the bundled example with
// zod) of the TypeScript example.
func BenchmarkStartExample(b *testing.B) {
	script, err := Script(buildExample(b, "server.ts"))
	if err != nil {
		b.Fatal(err)
	}
	r := runtimeFor(b)
	for b.Loop() {
		startOnce(b, r, script)
	}
}

// BenchmarkEcho100B is one warm tools/call of an echo tool with 100 bytes of text.
func BenchmarkEcho100B(b *testing.B) {
	call := &Call{}
	vm := start(b, hello, call, 32<<20)
	ctx := WithCall(context.Background(), call)
	args := []byte(`{"name":"echo","arguments":{"text":"` + string(make100()) + `"}}`)
	for b.Loop() {
		if _, err := vm.Run(ctx, EntryCallTool, args); err != nil {
			b.Fatal(err)
		}
	}
}

func make100() []byte {
	b := make([]byte, 100)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return b
}

// BenchmarkStartHello is instantiate + Start of the shim and a small script (no zod).
func BenchmarkStartHello(b *testing.B) {
	r := runtimeFor(b)
	script := Code{Source: []byte(js.Shim + "\n" + hello)}
	for b.Loop() {
		startOnce(b, r, script)
	}
}

// startOnce instantiates the engine, runs _initialize and Start, and closes the instance.
func startOnce(b *testing.B, r *testRuntime, code Code) {
	ctx := context.Background()
	mod, err := r.r.InstantiateModule(ctx, r.compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		b.Fatal(err)
	}
	defer mod.Close(ctx)
	if _, err := mod.ExportedFunction("_initialize").Call(ctx); err != nil {
		b.Fatal(err)
	}
	call := &Call{Engine: plainEngine{mod}}
	if _, err := Start(WithCall(ctx, call), call.Engine, code, 64<<20); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkGreetZod is one warm tools/call of the example's greet tool: its arguments parsed
// with zod, its structured output checked with zod.
func BenchmarkGreetZod(b *testing.B) {
	call := &Call{}
	vm := startModule(b, buildExample(b, "server.ts"), call)
	ctx := WithCall(context.Background(), call)
	args := []byte(`{"name":"greet","arguments":{"name":"` + string(make100()) + `"}}`)
	for b.Loop() {
		if _, err := vm.Run(ctx, EntryCallTool, args); err != nil {
			b.Fatal(err)
		}
	}
}
