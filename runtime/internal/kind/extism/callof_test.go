package extism

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
)

// A host function finds the running call from the module that called it (kind.CallOf), as
// every kind's do, never from its context: while plugin A runs an entry (its config holds a
// secret), config_get called with A's entry context from B's module, through B's kernel
// module, through a kernel instance no pool runs or through A's own kernel from Go (wazero
// then passes the shared host module) reaches nothing of A: each ends "called outside a
// plugin entry". Called with A's module it reads A's config, and A's code reaches it
// through its kernel (the tool's answer), with only A's module bound. (Before, the context
// carried A's instance: all four read A's secret.)
func TestHostFunctionsFindTheirCallByModule(t *testing.T) {
	e := newEnv(t, 16<<20)
	a, b := e.loadStarted(v1Wasm, true), e.loadStarted(v1Wasm, true)
	ain, bin := a.in.(*testInstance), b.in.(*testInstance)
	stray, err := e.rt.InstantiateModule(context.Background(), e.kernel, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatal(err)
	}
	defer stray.Close(context.Background())

	const secret = "A's secret"
	got := map[string]string{}
	ain.onInvoke = func(ctx context.Context) {
		ain.onInvoke = nil
		// key puts "greeting" in A's kernel: the block a host function that took A's
		// instance would read (got stays empty, and the test fails, if this never runs).
		key := func() uint64 {
			off, _ := a.p.inst.Kernel.New([]byte("greeting"))
			return off
		}
		value := func(off uint64) string {
			v, _ := a.p.inst.Kernel.Bytes(off)
			return string(v)
		}
		// Go host function, called with another module.
		got["B's module"] = func() (r string) {
			defer func() {
				if p := recover(); p != nil {
					r = "aborted: " + p.(error).Error()
				}
			}()
			s := []uint64{key()}
			hostConfigGet(ctx, bin.mod, s)
			return "read " + value(s[0])
		}()
		// Through a kernel module's export, as wasm reaches it.
		for _, c := range []struct {
			name string
			call func(ctx context.Context, off uint64) ([]uint64, error)
		}{
			{"B's kernel", func(ctx context.Context, off uint64) ([]uint64, error) {
				return bin.kernel.ExportedFunction("config_get").Call(ctx, off)
			}},
			{"a stray kernel", func(ctx context.Context, off uint64) ([]uint64, error) {
				return stray.ExportedFunction("config_get").Call(ctx, off)
			}},
			{"A's kernel", func(ctx context.Context, off uint64) ([]uint64, error) {
				return ain.kernel.ExportedFunction("config_get").Call(ctx, off)
			}},
		} {
			res, err := c.call(ctx, key())
			if err != nil {
				got[c.name] = "aborted: " + err.Error()
			} else {
				got[c.name] = "read " + value(res[0])
			}
		}
		s := []uint64{key()}
		hostConfigGet(ctx, ain.mod, s)
		got["A's module"] = "read " + value(s[0])
	}
	if out := callText(t, a.p, &Call{Config: map[string]string{"greeting": secret}}, "config", `{}`); out != "greeting="+secret+"; missing unset" {
		t.Errorf("A's own call: %q", out)
	}
	for _, from := range []string{"B's module", "B's kernel", "a stray kernel", "A's kernel"} {
		if g := got[from]; !strings.HasPrefix(g, "aborted: ") || !strings.Contains(g, "extism:host config_get: ABI violation: called outside a plugin entry") {
			t.Errorf("config_get from %s with A's entry context: %q; want it ended outside a plugin entry", from, g)
		}
	}
	if g := got["A's module"]; g != "read "+secret {
		t.Errorf("config_get from A's module: %q, want A's value", g)
	}
}

// recHost is the seam's kind.Host, recording what it is given.
type recHost struct{ logs []string }

func (h *recHost) Log(_ context.Context, _ *kind.Call, l abi.Level, msg string) {
	h.logs = append(h.logs, l.String()+":"+msg)
}
func (h *recHost) Progress(context.Context, *kind.Call, float64, float64, string) {}
func (h *recHost) Request(context.Context, *kind.Call, string, []byte) (abi.Status, []byte) {
	return abi.StatusUnavailable, nil
}

// Through the seam alone — the pool's Call bound to the plugin's module, Kind.Start's
// Started, its CallTool — a plugin's host functions read the operator's config from the
// Call and log through its report budget to its Host, at the kind's level (info).
func TestSeamCallTool(t *testing.T) {
	s := newEnv(t, 16<<20).loadStarted(v1Wasm, true)
	c := kind.CallOf(context.Background(), s.in.(*testInstance).mod)
	if c == nil || c.Started != kind.Started(s) {
		t.Fatalf("the plugin's module is not bound to its Started: %v", c)
	}
	h := &recHost{}
	c.Host, c.Report = h, &kind.Budget{Rate: &kind.Rate{}}
	c.Config, c.Limits.OutputBytes = map[string]string{"greeting": "hi"}, 1<<20
	for tool, want := range map[string]string{"config": "greeting=hi; missing unset", "log": "level=2"} {
		c.Tool = tool
		out, err := s.CallTool(context.Background(), c, []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if got, isErr := text(t, out); got != want || isErr {
			t.Errorf("%s: %q (isError %v), want %q", tool, got, isErr, want)
		}
	}
	if want := []string{"info:i", "warning:w", "error:e"}; !slices.Equal(h.logs, want) || c.Report.Messages != 3 {
		t.Errorf("logs %q (%d admitted), want %q", h.logs, c.Report.Messages, want)
	}
}
