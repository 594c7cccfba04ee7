package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/upstream"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const helloPkg = "github.com/modelcontextprotocol/go-sdk/examples/server/hello"

// startSpec is the upstream.Spec of whole-server guest srv.
func startSpec(srv *runtime.Server) upstream.Spec {
	return upstream.Spec{Label: "guest " + srv.Name(), Start: func(ctx context.Context) (upstream.Process, error) {
		p, err := srv.Start(ctx)
		if err != nil {
			return nil, err
		}
		return p, nil
	}}
}

// go-sdk's hello example built for wasip1 and served from an instance lists what its native
// build lists and answers a call as it does.
func TestWASIServerHelloAsNative(t *testing.T) {
	if testenv.Race {
		// wazero's compiler, itself under the race detector, takes over 5 minutes for this
		// 14 MB module; cmd/mcpwasm's TestWASIServerHelloServed runs the same path in a
		// serve binary.
		t.Skip("compiling a Go-built module in a -race test binary exceeds the compile limit")
	}
	wasm := testenv.GoWasip1(t, helloPkg)
	ctx := t.Context()
	h, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if _, err := h.Load(ctx, wasm, &runtime.GuestConfig{Source: "hello.wasm"}); err == nil || !errorsIs(err, runtime.ErrABI) || !strings.Contains(err.Error(), "load it with LoadServer") {
		t.Fatalf("Load: %v, want an ABI error naming LoadServer", err)
	}
	srv, err := h.LoadServer(ctx, wasm, &runtime.GuestConfig{Source: "hello.wasm"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(ctx)
	if srv.Name() != "hello" {
		t.Errorf("name %q, want hello", srv.Name())
	}
	guest, err := upstream.Dial(ctx, startSpec(srv), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer guest.Close()

	bin := filepath.Join(t.TempDir(), "hello")
	if out, err := exec.Command("go", "build", "-o", bin, helloPkg).CombinedOutput(); err != nil {
		t.Fatalf("native build: %v\n%s", err, out)
	}
	native, err := upstream.Dial(ctx, upstream.Spec{Command: []string{bin}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer native.Close()

	lists := func(s *upstream.Session) string {
		tools, err := s.AllTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tools)
		return string(b)
	}
	if g, n := lists(guest), lists(native); g != n {
		t.Errorf("tools/list:\nguest  %s\nnative %s", g, n)
	}
	call := func(s *upstream.Session) string {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		return string(b)
	}
	g, n := call(guest), call(native)
	if g != n || g != `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"greeter","version":""}},"content":[{"type":"text","text":"Hi Ada"}],"resultType":"complete"}` {
		t.Errorf("greet:\nguest  %s\nnative %s", g, n)
	}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// BenchmarkWASIServerDirect: calls/s of go-sdk hello as a whole-server instance spoken to
// through upstream.Dial alone (no MCP server in front), with and without the clock grant.
func BenchmarkWASIServerDirect(b *testing.B) {
	wasm := testenv.GoWasip1(b, helloPkg)
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: filepath.Join(b.TempDir(), "cache")})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(ctx)
	for _, c := range []struct {
		clock, legacy bool
		env           []string
	}{{false, false, nil}, {true, false, nil}, {false, true, nil}, {false, true, []string{"GOGC=400"}}} {
		clock := c.clock
		name := "fake-clock"
		if clock {
			name = "clock"
		}
		if c.env != nil {
			name += "-" + c.env[0]
		}
		var opts *upstream.Options
		if c.legacy {
			name += "-2025-11-25"
			opts = &upstream.Options{DiscoverTimeout: time.Nanosecond} // initialize only
		}
		b.Run(name, func(b *testing.B) {
			srv, err := h.LoadServer(ctx, wasm, &runtime.GuestConfig{Source: "hello.wasm", Grants: runtime.Grants{Clock: clock, Env: c.env}})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close(ctx)
			s, err := upstream.Dial(ctx, startSpec(srv), opts)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("protocol %s", s.InitializeResult().ProtocolVersion)
			defer s.Close()
			for b.Loop() {
				if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "b"}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
