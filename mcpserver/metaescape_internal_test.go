package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// callAllocs is the bytes a tools/call of tool on g allocates, averaged over runs, for a
// request whose _meta holds one string of n bytes c.
func callAllocs(t *testing.T, s *mcp.Server, g *runtime.Guest, tool string, c byte, n int) uint64 {
	t.Helper()
	h := toolHandler(s, g, tool, noop.NewTracerProvider().Tracer(""), nil)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: json.RawMessage(`{}`),
		Meta: mcp.Meta{"x": strings.Repeat(string(c), n)}}}
	call := func() {
		res, err := h(context.Background(), req)
		if err != nil || res.IsError != (tool == "fail") {
			t.Fatalf("%s: %v %v", tool, res.Content[0].(*mcp.TextContent).Text, err)
		}
	}
	call() // warm: the instance exists
	const runs = 4
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	for range runs {
		call()
	}
	goruntime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / runs
}

// A request's _meta is neither HTML-escaped nor encoded for a guest that does not read it:
// a 1 MiB _meta of '<' costs a tools/call what one of 'a' costs (json.Marshal made each '<'
// six bytes, for every call, before it waited for an instance), and a guest of our ABI,
// which never receives _meta, allocates less than the _meta's size per call. An Extism v2
// plugin receives it in its "context": its calls cost the same for '<' as for 'a' (within
// 1.5x; json.Marshal's escaping made it over 3x).
func TestMetaNotEscaped(t *testing.T) {
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	v2, err := os.ReadFile(filepath.Join("..", "runtime", "internal", "kind", "extism", "testdata", "v2.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	const size = 1 << 20
	for _, c := range []struct {
		name, tool string
		wasm       []byte
	}{{"wat", "echo", wat.Echo}, {"extism", "fail", v2}} { // v2's echo answers its input, over the plugin's 64 KiB buffer
		t.Run(c.name, func(t *testing.T) {
			g, err := h.Load(ctx, c.wasm, &runtime.GuestConfig{Name: c.name, Isolation: "shared", Limits: runtime.Limits{Instances: 1, OutputBytes: 16 << 20}})
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewServer([]*runtime.Guest{g}, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := callAllocs(t, s, g, c.tool, 'a', size)
			lt := callAllocs(t, s, g, c.tool, '<', size)
			t.Logf("bytes allocated per call with a 1 MiB _meta: 'a' %d, '<' %d", a, lt)
			if c.name == "extism" && float64(lt) > 1.5*float64(a) {
				t.Errorf("a _meta of '<' costs %d bytes a call, %.1fx one of 'a' (%d)", lt, float64(lt)/float64(a), a)
			}
			if c.name == "wat" && max(a, lt) >= size/4 {
				t.Errorf("a guest that never reads _meta: %d bytes a call for a %d-byte _meta", lt, size)
			}
		})
	}
}
