package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

func uleb(n uint64) []byte {
	var out []byte
	for {
		b := byte(n & 0x7f)
		n >>= 7
		if n != 0 {
			out = append(out, b|0x80)
			continue
		}
		return append(out, b)
	}
}

func sleb(n int64) []byte {
	var out []byte
	for {
		b := byte(n & 0x7f)
		n >>= 7
		if (n == 0 && b&0x40 == 0) || (n == -1 && b&0x40 != 0) {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}

func wvec(items ...[]byte) []byte { return append(uleb(uint64(len(items))), bytes.Join(items, nil)...) }
func wsec(id byte, body []byte) []byte {
	return append(append([]byte{id}, uleb(uint64(len(body)))...), body...)
}
func wname(s string) []byte { return append(uleb(uint64(len(s))), s...) }

// nestGuest is a complete guest (tool "nest") whose call runs a function of depth nested
// empty blocks: the compile-bomb shape, which wat2wasm cannot build.
func nestGuest(depth int) []byte {
	const i32, i64 = 0x7f, 0x7e
	ft := func(p, r []byte) []byte {
		var ps, rs [][]byte
		for _, x := range p {
			ps = append(ps, []byte{x})
		}
		for _, x := range r {
			rs = append(rs, []byte{x})
		}
		return append(append([]byte{0x60}, wvec(ps...)...), wvec(rs...)...)
	}
	types := wvec(ft(nil, []byte{i32}), ft([]byte{i32}, []byte{i32}), ft(nil, []byte{i64}), ft([]byte{i32, i32, i32, i32}, []byte{i64}), ft(nil, nil))
	funcs := wvec(uleb(0), uleb(1), uleb(2), uleb(3), uleb(4))
	mem := wvec(append(append([]byte{1}, uleb(2)...), uleb(65536)...))
	exp := func(n string, kind byte, idx uint64) []byte { return append(append(wname(n), kind), uleb(idx)...) }
	exps := wvec(exp("memory", 2, 0), exp("mcpwasm_abi_version", 0, 0), exp("mcpwasm_alloc", 0, 1), exp("mcpwasm_describe", 0, 2), exp("mcpwasm_call", 0, 3))
	man := `{"name":"nest","tools":[{"name":"nest","inputSchema":{"type":"object"}}]}`
	res := `{"content":[{"type":"text","text":"ok"}]}`
	body := func(code []byte) []byte {
		b := append(append([]byte{0}, code...), 0x0b)
		return append(uleb(uint64(len(b))), b...)
	}
	nest := append(append(bytes.Repeat([]byte{0x02, 0x40}, depth), 0x01), bytes.Repeat([]byte{0x0b}, depth)...)
	codes := wvec(body(append([]byte{0x41}, sleb(1)...)), body(append([]byte{0x41}, sleb(65536)...)),
		body(append([]byte{0x42}, sleb(1024<<32|int64(len(man)))...)),
		body(append(append([]byte{0x10}, uleb(4)...), append([]byte{0x42}, sleb(512<<32|int64(len(res)))...)...)),
		body(nest))
	seg := func(off int64, s string) []byte {
		return append(append(append([]byte{0, 0x41}, sleb(off)...), 0x0b), append(uleb(uint64(len(s))), s...)...)
	}
	data := wvec(seg(512, res), seg(1024, man))
	out := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range []struct {
		id   byte
		body []byte
	}{{1, types}, {3, funcs}, {5, mem}, {7, exps}, {10, codes}, {11, data}} {
		out = append(out, wsec(s.id, s.body)...)
	}
	return out
}

// answersNormally loads the echo guest on h and calls it: the host is still usable.
func answersNormally(t *testing.T, h *runtime.Host) {
	t.Helper()
	g := load(t, h, wat.Echo, nil)
	call(t, g, "echo", `{"x":1}`)
	g.Close(context.Background())
}

// A module whose blocks nest past the cap is refused before wazero sees it (reproducer
// compile-bomb: 50,000 nested blocks compile for ~50 s); one under the cap loads and runs.
func TestLoadNestingCap(t *testing.T) {
	h, _ := newHost(t)
	start := time.Now()
	_, err := h.Load(context.Background(), nestGuest(50000), &runtime.GuestConfig{Source: "bomb"})
	if !errors.Is(err, runtime.ErrLoadLimit) || !strings.Contains(err.Error(), "nests blocks more than 10000 deep") {
		t.Fatalf("Load: %v, want the nesting limit", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refusing took %v", d)
	}
	g := load(t, h, nestGuest(100), nil)
	if got := text(t, call(t, g, "nest", `{}`)); got != "ok" {
		t.Fatalf("nest 100: %q", got)
	}
	if _, err := h.Load(context.Background(), nestGuest(200), &runtime.GuestConfig{Limits: runtime.Limits{Nesting: 150}}); !errors.Is(err, runtime.ErrLoadLimit) {
		t.Fatalf("Nesting 150, depth 200: %v", err)
	}
	answersNormally(t, h)
}

// A compile that outlives its time cap or its context is abandoned: Load returns at once.
func TestLoadCompileBounded(t *testing.T) {
	h, _ := newHost(t)
	wasm := nestGuest(4000) // under the nesting cap, but a few hundred ms of compile time
	_, err := h.Load(context.Background(), wasm, &runtime.GuestConfig{Limits: runtime.Limits{CompileTimeout: time.Millisecond}})
	if !errors.Is(err, runtime.ErrLoadLimit) || !strings.Contains(err.Error(), "compiling took longer than 1ms") {
		t.Fatalf("Load: %v, want the compile time limit", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Load(ctx, nestGuest(4001), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Load with a cancelled context: %v", err)
	}
	answersNormally(t, h)
}

// Module size, manifest size and tool count are each a clear load error (reproducer
// many-tools: 200,000 tools in an 11 MB manifest).
func TestLoadSizeCaps(t *testing.T) {
	h, _ := newHost(t)
	for _, c := range []struct {
		limits runtime.Limits
		wasm   []byte
		want   string
	}{
		{runtime.Limits{ModuleBytes: 100}, wat.Echo, "over the module size limit of 100 bytes"},
		{runtime.Limits{ManifestBytes: 100}, wat.Echo, "over the manifest limit of 100 bytes"},
		{runtime.Limits{Tools: 5}, wat.Hygiene, "manifest declares 17 tools, over the limit of 5"},
	} {
		_, err := h.Load(context.Background(), c.wasm, &runtime.GuestConfig{Limits: c.limits})
		if !errors.Is(err, runtime.ErrLoadLimit) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.limits, err, c.want)
		}
	}
	answersNormally(t, h)
}

func ExampleLimits_load() {
	l := policy.DefaultLimits()
	fmt.Println(l.ModuleBytes>>20, "MiB module,", l.ManifestBytes>>20, "MiB manifest,", l.Tools, "tools,", l.Nesting, "nesting,", l.CompileTimeout, "compile")
	// Output: 64 MiB module, 4 MiB manifest, 1000 tools, 10000 nesting, 5m0s compile
}

// A module whose section declares more entries than it has bytes is refused before wazero
// sizes a slice from the count (FuzzInstrumentCalls found this 30-byte module: a type section
// declaring ~3.3 billion types, which made wazero allocate ~27 GB and the host die of an
// out-of-memory fatal error); so is a function type declaring more parameters than bytes.
func TestLoadRefusesImpossibleCounts(t *testing.T) {
	h, _ := newHost(t)
	for _, tc := range []struct {
		name, wasm, want string
	}{
		{"types", "\x00asm\x01\x00\x00\x00\x0100`\x96\xa2\x8a\xca\f\x00\x01f`0", "section 1 of 48 bytes overruns the module (12 bytes left)"},
		{"types-in-bounds", "\x00asm\x01\x00\x00\x00\x01\x08\x96\xa2\x8a\xca\x0c\x60\x00\x00", "section 1 declares 3376582934 entries in 3 bytes"},
		{"params", "\x00asm\x01\x00\x00\x00\x01\x08\x01\x60\xff\xff\xff\xff\x0f\x00", "type 0 declares 4294967295 value types in 1 bytes"},
	} {
		_, err := h.Load(context.Background(), []byte(tc.wasm), &runtime.GuestConfig{Source: tc.name})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "malformed module") {
			t.Errorf("%s: Load: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	answersNormally(t, h)
}
