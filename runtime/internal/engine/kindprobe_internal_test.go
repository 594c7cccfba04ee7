package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/tetratelabs/wazero/api"
)

// probeKind is a second guest kind, for tests only: it proves that a kind plugs into the
// runtime through runtime/internal/kind alone, and it is the template for a real one (Extism,
// JavaScript): a real kind is this file's kind half, moved to runtime/internal/kind/<name>/,
// plus one line in kinds.go.
//
// Its guests (testdata/wat/probe.wat) import the host module probe_v1 and, as Extism plugins
// do, pull their input (input_length, input_load: Call.Input) and push their output
// (output_set: Call.Output). describe() pushes the manifest; tool_<name>() runs tool <name>
// with the arguments as input, and its output is the tool's structuredContent.
type probeKind struct{}

const probeModule = "probe_v1"

var _ kind.Kind = probeKind{}

func (probeKind) Traits() kind.Traits                                        { return kind.Traits{} }
func (probeKind) Name() string                                               { return "probe" }
func (probeKind) StartRequests(*kind.Module, map[string][]byte) abi.Requests { return abi.Requests{} }

// Detect: an import of probe_v1 is Confident; an unknown function of it is refused by name.
func (probeKind) Detect(m *kind.Module) (kind.Match, error) {
	match := kind.No
	for _, imp := range m.Imports {
		if imp.Module != probeModule {
			continue
		}
		if !slices.Contains([]string{"input_length", "input_load", "output_set", "log", "vars_grow"}, imp.Name) {
			return kind.No, fmt.Errorf("%w: module imports %s.%s, which this host does not provide", fault.ErrABI, imp.Module, imp.Name)
		}
		match = kind.Confident
	}
	return match, nil
}

func (probeKind) HostModules() []kind.HostModule {
	i32 := api.ValueTypeI32
	return []kind.HostModule{{Name: probeModule, Funcs: []kind.HostFunc{
		{Name: "input_length", Results: []api.ValueType{i32}, Fn: probeInputLength},
		{Name: "input_load", Params: []api.ValueType{i32}, Fn: probeInputLoad},
		{Name: "output_set", Params: []api.ValueType{i32, i32}, Fn: probeOutputSet},
		{Name: "log", Params: []api.ValueType{i32, i32}, Fn: probeLog},
		{Name: "vars_grow", Params: []api.ValueType{i32}, Results: []api.ValueType{i32}, Fn: probeVarsGrow},
	}}}
}

func (probeKind) Check(exports map[string]api.FunctionDefinition) error {
	def, ok := exports["describe"]
	if !ok {
		return fmt.Errorf("%w: missing export describe", fault.ErrABI)
	}
	if len(def.ParamTypes())+len(def.ResultTypes()) != 0 {
		return fmt.Errorf("%w: export describe must take and return nothing", fault.ErrABI)
	}
	return nil
}

// CheckManifest: probe guests serve tools only, each from its tool_<name> export.
func (probeKind) CheckManifest(m *abi.Manifest, exports map[string]api.FunctionDefinition) error {
	if len(m.Resources)+len(m.ResourceTemplates)+len(m.Prompts) > 0 || m.Completions {
		return fmt.Errorf("%w: a probe guest serves tools only", fault.ErrABI)
	}
	for _, t := range m.Tools {
		if _, ok := exports["tool_"+t.Name]; !ok {
			return fmt.Errorf("%w: tool %q has no export tool_%s", fault.ErrABI, t.Name, t.Name)
		}
	}
	return nil
}

func (probeKind) Start(_ context.Context, in kind.Instance, _ *kind.Call) (kind.Started, error) {
	return &probeStarted{in: in, describe: in.Func("describe"), tools: map[string]api.Function{}}, nil
}

// probeStarted is one instance's state: its entry points, resolved once.
type probeStarted struct {
	in       kind.Instance
	describe api.Function
	tools    map[string]api.Function
}

func (s *probeStarted) Describe(ctx context.Context, c *kind.Call) ([]byte, error) {
	if err := s.in.Invoke(ctx, s.describe, nil); err != nil {
		return nil, fmt.Errorf("describe: %w", err)
	}
	return c.Output.Bytes(), nil
}

func (s *probeStarted) CallTool(ctx context.Context, c *kind.Call, args []byte) ([]byte, error) {
	fn, ok := s.tools[c.Tool]
	if !ok {
		fn = s.in.Func("tool_" + c.Tool)
		s.tools[c.Tool] = fn
	}
	c.Input = args
	if err := s.in.Invoke(ctx, fn, nil); err != nil {
		return nil, err
	}
	out := c.Output.Bytes()
	if !json.Valid(out) {
		return nil, fmt.Errorf("%w: output is not JSON", fault.ErrABI)
	}
	res := append(append([]byte(`{"content":[],"structuredContent":`), out...), '}')
	if len(res) > c.Limits.OutputBytes {
		return nil, fmt.Errorf("%w: result of %d bytes is over %d", fault.ErrOutputLimit, len(res), c.Limits.OutputBytes)
	}
	return res, nil
}

func (s *probeStarted) GetPrompt(context.Context, *kind.Call, string, []byte) ([]byte, error) {
	return nil, fmt.Errorf("%w: a probe guest serves no prompts", fault.ErrABI)
}

func (s *probeStarted) ReadResource(context.Context, *kind.Call, string) ([]byte, error) {
	return nil, fmt.Errorf("%w: a probe guest serves no resources", fault.ErrABI)
}

func (s *probeStarted) Complete(context.Context, *kind.Call, []byte) ([]byte, error) {
	return nil, fmt.Errorf("%w: a probe guest completes nothing", fault.ErrABI)
}

func probeInputLength(ctx context.Context, mod api.Module, stack []uint64) {
	stack[0] = uint64(len(kind.CallOf(ctx, mod).Input))
}

func probeInputLoad(ctx context.Context, mod api.Module, stack []uint64) {
	c := kind.CallOf(ctx, mod)
	if !c.Instance.Memory().Write(uint32(stack[0]), c.Input) {
		kind.Abort(fmt.Errorf("%w: input_load(%#x): %d bytes do not fit in linear memory", fault.ErrABI, uint32(stack[0]), len(c.Input)))
	}
}

func probeOutputSet(ctx context.Context, mod api.Module, stack []uint64) {
	c := kind.CallOf(ctx, mod)
	b, err := c.Instance.Region(uint32(stack[0]), uint32(stack[1]))
	if err == nil {
		err = c.Output.Set(b)
	}
	if err != nil {
		kind.Abort(fmt.Errorf("output_set: %w", err))
	}
}

func probeLog(ctx context.Context, mod api.Module, stack []uint64) {
	c := kind.CallOf(ctx, mod)
	n := uint32(stack[1])
	if !c.Report.Admit(n) {
		return
	}
	b, err := c.Instance.Region(uint32(stack[0]), min(n, kind.MaxReportMessage))
	if err != nil {
		kind.Abort(fmt.Errorf("log: %w", err))
	}
	c.Host.Log(ctx, c, abi.LevelInfo, string(b))
}

// probeVarsGrow keeps n more bytes on the host for the instance (an Extism var_set would
// also keep the bytes): 0, or 1 when the memory limit refuses them.
func probeVarsGrow(ctx context.Context, mod api.Module, stack []uint64) {
	if err := kind.CallOf(ctx, mod).Vars.Grow(uint64(uint32(stack[0]))); err != nil {
		stack[0] = 1
		return
	}
	stack[0] = 0
}

// The test half: a probe guest is detected, loaded, listed and called through Host.Load and
// Guest.Call, under the same limits and kill switch as an mcpwasm guest.

func probeHost(t *testing.T, o *Options) *Host {
	t.Helper()
	if o == nil {
		o = &Options{NoDiskCache: true}
	}
	o.testKinds = &[]kind.Kind{probeKind{}}
	h, err := NewHost(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

func TestKindProbeLoadListCall(t *testing.T) {
	ctx := context.Background()
	h := probeHost(t, nil)
	g, err := h.Load(ctx, wat.Probe, &GuestConfig{Source: "probe.wasm"})
	if err != nil {
		t.Fatal(err)
	}
	if g.Kind() != "probe" || g.Name() != "probe" {
		t.Errorf("kind %q name %q, want probe probe", g.Kind(), g.Name())
	}
	var tools []string
	for _, td := range g.Manifest().Tools {
		tools = append(tools, td.Name)
	}
	if want := "echo spin grow big hold"; strings.Join(tools, " ") != want {
		t.Errorf("tools %v, want %s", tools, want)
	}
	var logged []string
	hctx := WithCallHooks(ctx, &CallHooks{Log: func(l abi.Level, msg string) { logged = append(logged, l.String()+":"+msg) }})
	out, err := g.Call(hctx, "echo", []byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[],"structuredContent":{"a":1}}`; string(out) != want {
		t.Errorf("echo: %s, want %s", out, want)
	}
	if want := []string{`info:{"a":1}`}; !slices.Equal(logged, want) {
		t.Errorf("logged %q, want %q", logged, want)
	}
	// The arguments are validated before the guest is entered, whatever its kind.
	if _, err := g.Call(ctx, "nope", nil); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
	// Both kinds live in one host.
	m, err := h.Load(ctx, wat.Echo, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, s := range h.Stats() {
		kinds = append(kinds, s.Name+":"+s.Kind)
	}
	if want := []string{"echo:mcpwasm", "probe:probe"}; !slices.Equal(kinds, want) || m.Kind() != "mcpwasm" {
		t.Errorf("stats kinds %q, want %q", kinds, want)
	}
}

// A host without the probe kind refuses a probe guest by what it imports and exports.
func TestKindProbeUnregistered(t *testing.T) {
	h, err := NewHost(context.Background(), &Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	_, err = h.Load(context.Background(), wat.Probe, &GuestConfig{Source: "probe.wasm"})
	want := "probe.wasm: ABI violation: not a guest module: imports probe_v1 (5), exports describe, tool_big, tool_echo, tool_grow, tool_hold, tool_spin (see abi/ABI.md)"
	if err == nil || err.Error() != want || !errors.Is(err, ErrABI) {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// The bytes a kind keeps on the host for an instance (Call.Vars) count against its memory
// limit with its linear memory: with 768 KiB kept of 1 MiB, memory.grow stops at 256 KiB.
func TestKindProbeVarsCountAgainstMemory(t *testing.T) {
	h := probeHost(t, nil)
	g, err := h.Load(context.Background(), wat.Probe, &GuestConfig{Limits: Limits{MemoryBytes: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := g.Call(context.Background(), "hold", nil); err != nil || string(out) != `{"content":[],"structuredContent":{"ok":true}}` {
		t.Errorf("hold: %s, %v", out, err)
	}
}

// The time, memory and output limits end a probe guest's call with the same errors as an
// mcpwasm guest's, and the instance is freed (one allowed: the next call needs it).
func TestKindProbeLimits(t *testing.T) {
	ctx := context.Background()
	h := probeHost(t, nil)
	g, err := h.Load(ctx, wat.Probe, &GuestConfig{
		Limits: Limits{Instances: 1, MemoryBytes: 1 << 20, Timeout: 100 * time.Millisecond, OutputBytes: 1000},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool string
		want error
		msg  string
	}{
		{"spin", ErrTimeLimit, `guest "probe" tool "spin": time limit exceeded (100ms)`},
		{"grow", ErrMemoryLimit, `guest "probe" tool "grow": memory limit reached (1 MiB): wasm error: unreachable`},
		{"big", ErrOutputLimit, `guest "probe" tool "big": output_set: output limit exceeded: result of 64 KiB is over 1000 bytes`},
	} {
		_, err := g.Call(ctx, tc.tool, nil)
		if !errors.Is(err, tc.want) || err.Error() != tc.msg {
			t.Errorf("%s: %v\nwant %s", tc.tool, err, tc.msg)
		}
		if out, err := g.Call(ctx, "echo", []byte(`{}`)); err != nil || string(out) != `{"content":[],"structuredContent":{}}` {
			t.Errorf("after %s: %s, %v", tc.tool, out, err)
		}
	}
}

// The kill switch and cancellation stop a running probe guest as they stop an mcpwasm one.
func TestKindProbeStopCancel(t *testing.T) {
	h := probeHost(t, nil)
	g, err := h.Load(context.Background(), wat.Probe, nil)
	if err != nil {
		t.Fatal(err)
	}
	spinning := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(WithCallHooks(context.Background(), &CallHooks{
		Log: func(_ abi.Level, msg string) { spinning <- struct{}{} },
	}))
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := g.Call(ctx, "spin", nil); done <- err }()
	<-spinning
	h.Stop()
	if err, want := <-done, `guest "probe" tool "spin": calls are stopped by the operator`; err == nil || err.Error() != want {
		t.Errorf("stopped: %v, want %s", err, want)
	}
	h.Resume()
	go func() { _, err := g.Call(ctx, "spin", nil); done <- err }()
	<-spinning
	cancel()
	if err := <-done; !errors.Is(err, ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// A lazily loaded probe guest comes back as a probe guest from the manifest cache, and its
// background compile holds the module to the entry's kind.
func TestKindProbeLazy(t *testing.T) {
	dir := t.TempDir()
	for round := range 2 {
		h := probeHost(t, &Options{CacheDir: dir, Lazy: true})
		var hits []bool
		h.observer = cacheObserver(func(hit bool) { hits = append(hits, hit) })
		g, err := h.Load(context.Background(), wat.Probe, nil)
		if err != nil {
			t.Fatal(err)
		}
		if g.Kind() != "probe" || !slices.Equal(hits, []bool{round == 1}) {
			t.Errorf("round %d: kind %q, cache hits %v", round, g.Kind(), hits)
		}
		if out, err := g.Call(context.Background(), "echo", []byte(`{"r":1}`)); err != nil || string(out) != `{"content":[],"structuredContent":{"r":1}}` {
			t.Errorf("round %d: %s, %v", round, out, err)
		}
		h.Close(context.Background())
	}
}

// cacheObserver is an Observer that sees only cache look-ups.
type cacheObserver func(hit bool)

func (cacheObserver) CallDone(string, string, string, time.Duration) {}
func (cacheObserver) RequestStart(context.Context, string, string, string) func(abi.Status) {
	return nil
}
func (o cacheObserver) CacheLookup(hit bool) { o(hit) }
