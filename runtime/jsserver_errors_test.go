package runtime_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jsguest "github.com/mcpwasm/mcpwasm/abi/js"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
)

// jsServerModule is the pinned engine with script (the shim before it, in process mode) and
// the whole-server section, as build.mjs --server writes them (source only, no bytecode).
func jsServerModule(t *testing.T, script string) []byte {
	t.Helper()
	engine, err := os.ReadFile(filepath.Join("..", "guests", "typescript", "node_modules", "quickjs-wasi", "quickjs.wasm"))
	if err != nil {
		testenv.Skip(t, "the quickjs-wasi engine is not installed (npm ci --prefix guests/typescript): %v", err)
	}
	m, err := wasm.AppendCustom(append([]byte(nil), engine...), "mcpwasm.js", []byte("globalThis.__mcpwasm={process:true};\n"+jsguest.Shim+"\n"+script))
	if err == nil {
		m, err = wasm.AppendCustom(m, "mcpwasm.jsserver", []byte("1"))
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A JavaScript whole server that fails is an error naming what happened, and the host and
// its other instances go on: one that throws at start, one that writes what is not JSON, one
// that loops in a timer (the turn's time limit), one that allocates without end (the memory
// limit), one that exits; the kill switch stops one
// that waits for input. Load refuses the module, naming LoadServer.
func TestJSServerFailures(t *testing.T) {
	h := wasiHost(t)
	if _, err := h.Load(t.Context(), jsServerModule(t, ``), nil); err == nil || !strings.Contains(err.Error(), "LoadServer") {
		t.Errorf("Load: %v, want a refusal naming LoadServer", err)
	}
	cases := []struct {
		name, script, want string
		limits             runtime.Limits
	}{
		{"throws", `throw new Error("no token");`, "the server exited: script failed: Error: no token", runtime.Limits{}},
		{"nonjson", `process.stdout.write("hello\n");`, `wrote to stdout a line that is not JSON: "hello"`, runtime.Limits{}},
		{"loops", `setTimeout(() => { for (;;) {} }, 1);`, "time limit exceeded", runtime.Limits{}},
		{"allocates", `const a = []; setTimeout(() => { for (;;) a.push(new Array(1e5).fill(a.length)); }, 1);`, "memory limit reached", runtime.Limits{MemoryBytes: 32 << 20, Timeout: time.Minute}},
		{"exits", `console.error("bad config"); setTimeout(() => process.exit(4), 1);`, "the server exited with exit code 4; it wrote: error: bad config", runtime.Limits{}},
	}
	for _, c := range cases {
		if c.limits == (runtime.Limits{}) {
			c.limits = runtime.Limits{Timeout: 300 * time.Millisecond}
		}
		t.Run(c.name, func(t *testing.T) {
			srv, err := h.LoadServer(t.Context(), jsServerModule(t, c.script), &runtime.GuestConfig{Name: "js" + c.name,
				Limits: c.limits})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close(context.Background()) })
			p, err := srv.Start(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			go func() { _, _ = p.Read(make([]byte, 4096)) }() // the reader judges stdout's lines
			err = ended(t, p)
			t.Logf("ended: %v", err)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ended with %v, want %q in it", err, c.want)
			}
		})
	}
	srv, err := h.LoadServer(t.Context(), jsServerModule(t, `process.stdin.on("data", () => {});`), &runtime.GuestConfig{Name: "waits"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	p, err := srv.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	h.Stop()
	if err := ended(t, p); !errors.Is(err, runtime.ErrStopped) {
		t.Errorf("after the kill switch: %v, want ErrStopped", err)
	}
}
