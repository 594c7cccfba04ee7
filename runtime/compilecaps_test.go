package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// funcsModule is a module of n functions of type () -> () whose bodies are code (without
// locals and end): only what the compile caps look at.
func funcsModule(n int, code []byte) []byte {
	types := wvec([]byte{0x60, 0, 0})
	funcs := append(uleb(uint64(n)), bytes.Repeat([]byte{0}, n)...)
	body := append(append(uleb(uint64(len(code)+2)), 0), append(code, 0x0b)...)
	codeSec := append(uleb(uint64(n)), bytes.Repeat(body, n)...)
	out := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range []struct {
		id   byte
		body []byte
	}{{1, types}, {3, funcs}, {10, codeSec}} {
		out = append(out, wsec(s.id, s.body)...)
	}
	return out
}

// A module whose compile would take GBs is refused before wazero sees it, naming the limit
// (reproducer compile-memory: a 30 MB module of one function took 1.7 GiB to compile). The
// siblings: millions of small functions (4M empty ones, 16 MB, would take ~2 GB), or of
// globals.
func TestCompileMemoryCap(t *testing.T) {
	h, _ := newHost(t)
	for name, tc := range map[string]struct {
		wasm []byte
		want string
	}{
		"one function": {funcsModule(1, bytes.Repeat([]byte{0x41, 0x00, 0x1a}, 10_000_000)), "an estimated 48.7 GiB (function 0 is 28.6 MiB; 1 functions, 28.6 MiB of code; 2 entries"}, // i32.const 0, drop
		"many":         {funcsModule(4<<20, nil), "an estimated 2.5 GiB (function 0 is 2 bytes; 4194304 functions, 12 MiB of code; 4194305 entries"},
		// 210 KB of loops: each gets the host's interruption check, ~20 bytes compiled, and
		// that is what the estimate weighs (70,000 loops would compile for hours).
		"loops": {funcsModule(1, bytes.Repeat([]byte{0x03, 0x40, 0x0b}, 70000)), "(function 0 is 1.6 MiB; 2 functions"},
		// Entries of other sections cost as much to decode: 4M globals took 660 MiB, 4M types 1.8 GiB.
		"globals": {append([]byte("\x00asm\x01\x00\x00\x00"), wsec(6, append(uleb(4<<20), bytes.Repeat([]byte{0x7f, 0, 0x41, 0, 0x0b}, 4<<20)...))...),
			"an estimated 2.1 GiB (function 0 is 0 bytes; 0 functions, 0 bytes of code; 4194304 entries"},
	} {
		start := time.Now()
		_, err := h.Load(context.Background(), tc.wasm, &runtime.GuestConfig{Source: "big"})
		if !errors.Is(err, runtime.ErrLoadLimit) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "over the compile memory limit of 1 GiB") {
			t.Errorf("%s: %v, want the compile memory limit (%s)", name, err, tc.want)
		}
		if d := time.Since(start); d > 10*time.Second { // generous: refusing is a scan
			t.Errorf("%s: refusing took %v", name, d)
		}
	}
	// The limit is the operator's: lowered, it refuses a small guest too.
	_, err := h.Load(context.Background(), nestGuest(10), &runtime.GuestConfig{Limits: runtime.Limits{CompileMemory: 32 << 20}})
	if !errors.Is(err, runtime.ErrLoadLimit) || !strings.Contains(err.Error(), "over the compile memory limit of 32 MiB") {
		t.Errorf("CompileMemory 32 MiB: %v", err)
	}
	answersNormally(t, h)
}
