package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// builtGuests holds the guests built by guestWasm, one build per guest directory per test
// binary.
var builtGuests sync.Map // dir → *builtGuest

type builtGuest struct {
	once sync.Once
	wasm []byte
	err  error
}

// guestWasm builds the Go guest in dir (relative to the repository root, e.g.
// "guests/upstream") to wasip1 once per test binary and returns its module.
func guestWasm(t testing.TB, dir string) []byte {
	t.Helper()
	v, _ := builtGuests.LoadOrStore(dir, &builtGuest{})
	g := v.(*builtGuest)
	g.once.Do(func() {
		out := filepath.Join(cacheDir, filepath.Base(dir)+".wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "./"+dir)
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			g.err = fmt.Errorf("building %s: %v\n%s", dir, err, b)
			return
		}
		g.wasm, g.err = os.ReadFile(out)
	})
	if g.err != nil {
		t.Fatal(g.err)
	}
	return g.wasm
}

// upstreamWasm builds guests/upstream once per test binary.
func upstreamWasm(t *testing.T) []byte { return guestWasm(t, "guests/upstream") }

// fakeUpstreams is an in-memory peer.Upstreams: server "docs" has one tool, echo.
type fakeUpstreams struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeUpstreams) ListTools(ctx context.Context, server string) ([]byte, error) {
	if server != "docs" {
		return nil, fmt.Errorf("upstream %q: %w", server, peer.ErrUnknownUpstream)
	}
	return []byte(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"add","inputSchema":{"type":"object"}}]}`), nil
}

func (f *fakeUpstreams) CallTool(ctx context.Context, server, tool string, args []byte) ([]byte, error) {
	f.mu.Lock()
	f.calls = append(f.calls, server+"/"+tool+" "+string(args))
	f.mu.Unlock()
	if server == "down" {
		return nil, fmt.Errorf("upstream %q: %w: exit status 1", server, peer.ErrUpstreamUnavailable)
	}
	var in struct{ Text string }
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"content": []any{map[string]string{"type": "text", "text": "echo: " + in.Text}}})
}

func TestGuestCallsUpstream(t *testing.T) {
	wasm := upstreamWasm(t)
	ups := &fakeUpstreams{}
	h, err := runtime.NewHost(context.Background(), &runtime.Options{CacheDir: cacheDir, Upstreams: ups})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	tests := []struct {
		name     string
		cfg      runtime.GuestConfig
		tool     string
		want     string
		wantErr  bool
		wantCall bool
	}{
		{name: "granted call", cfg: runtime.GuestConfig{Name: "g1", Grants: runtime.Grants{MCP: []string{"docs"}}},
			tool: "shout_echo", want: "ECHO: HELLO", wantCall: true},
		{name: "granted list", cfg: runtime.GuestConfig{Name: "g2", Grants: runtime.Grants{MCP: []string{"docs"}}},
			tool: "upstream_tools", want: "echo\nadd"},
		{name: "not granted", cfg: runtime.GuestConfig{Name: "g3"},
			tool: "shout_echo", wantErr: true,
			want: `mcp.call: DENIED: mcp: upstream "docs" is not granted to guest "g3"`},
		{name: "granted another server only", cfg: runtime.GuestConfig{Name: "g4", Grants: runtime.Grants{MCP: []string{"other"}}},
			tool: "upstream_tools", wantErr: true,
			want: `mcp.list: DENIED: mcp: upstream "docs" is not granted to guest "g4"`},
		{name: "narrowed away for this tool", cfg: runtime.GuestConfig{Name: "g5", Grants: runtime.Grants{MCP: []string{"docs"}},
			ToolGrants: map[string]runtime.Grants{"upstream_tools": {MCP: []string{"docs"}}}},
			tool: "shout_echo", wantErr: true,
			want: `mcp.call: DENIED: mcp: upstream "docs" is not granted to tool "shout_echo" of guest "g5"`},
		{name: "narrowed tool keeps its grant", cfg: runtime.GuestConfig{Name: "g6", Grants: runtime.Grants{MCP: []string{"docs"}},
			ToolGrants: map[string]runtime.Grants{"upstream_tools": {MCP: []string{"docs"}}}},
			tool: "upstream_tools", want: "echo\nadd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ups.mu.Lock()
			ups.calls = nil
			ups.mu.Unlock()
			g := load(t, h, wasm, &tt.cfg)
			defer g.Close(context.Background())
			args := `{"text":"hello"}`
			if tt.tool == "upstream_tools" {
				args = `{}`
			}
			got, isErr := result(t, g, tt.tool, args)
			if got != tt.want || isErr != tt.wantErr {
				t.Errorf("%s = %q (isError %v), want %q (isError %v)", tt.tool, got, isErr, tt.want, tt.wantErr)
			}
			ups.mu.Lock()
			defer ups.mu.Unlock()
			var want []string
			if tt.wantCall {
				want = []string{`docs/echo {"text":"hello"}`}
			}
			if diff := cmp.Diff(want, ups.calls); diff != "" {
				t.Errorf("upstream calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGuestUpstreamsNotConfigured(t *testing.T) {
	h, err := runtime.NewHost(context.Background(), &runtime.Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	g := load(t, h, upstreamWasm(t), &runtime.GuestConfig{Grants: runtime.Grants{MCP: []string{"docs"}}})
	got, isErr := result(t, g, "shout_echo", `{"text":"x"}`)
	want := `mcp.call: NOT_FOUND: mcp: upstream "docs": unknown upstream server (the host has no upstream servers)`
	if got != want || !isErr {
		t.Errorf("got %q (isError %v), want %q", got, isErr, want)
	}
}
