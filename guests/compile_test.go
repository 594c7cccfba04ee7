package guests_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/guests"
	"github.com/mcpwasm/mcpwasm/runtime"
)

// BenchmarkCompileUncached measures an uncached runtime.Host.Load of each bundled guest:
// decode, instrument, compile to native code, instantiate, describe. Every iteration uses a
// new Host with an in-memory cache (created and closed with the timer stopped), so nothing
// compiled earlier is reused. It reports the module size as wasm-bytes.
//
// To compare with other builds in the same run, set MCPWASM_BENCH_OLD_GUESTS to a directory
// holding calc.wasm and text.wasm (e.g. copies of the committed modules taken before a
// change): each is measured as "old-NAME" next to "NAME", and "pair-NAME" loads the old and
// the new module alternately in every iteration and reports each one's mean (old-ns, new-ns)
// and their ratio (old/new), which a machine's changing load affects least.
func BenchmarkCompileUncached(b *testing.B) {
	type module struct {
		name string
		wasm []byte
	}
	var mods []module
	olds := map[string][]byte{}
	dir := os.Getenv("MCPWASM_BENCH_OLD_GUESTS")
	for _, g := range guests.Default() {
		if dir != "" {
			wasm, err := os.ReadFile(filepath.Join(dir, g.Name+".wasm"))
			if err != nil {
				b.Fatal(err)
			}
			olds[g.Name] = wasm
			mods = append(mods, module{"old-" + g.Name, wasm})
		}
		mods = append(mods, module{g.Name, g.Wasm})
	}
	for _, m := range mods {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				loadUncached(b, m.wasm, true)
			}
			b.ReportMetric(float64(len(m.wasm)), "wasm-bytes")
		})
	}
	for _, g := range guests.Default() {
		old, ok := olds[g.Name]
		if !ok {
			continue
		}
		b.Run("pair-"+g.Name, func(b *testing.B) {
			var tOld, tNew time.Duration
			n := 0
			for b.Loop() {
				tOld += loadUncached(b, old, false)
				tNew += loadUncached(b, g.Wasm, false)
				n++
			}
			b.ReportMetric(float64(tOld.Nanoseconds())/float64(n), "old-ns")
			b.ReportMetric(float64(tNew.Nanoseconds())/float64(n), "new-ns")
			b.ReportMetric(float64(tOld)/float64(tNew), "old/new")
		})
	}
}

// loadUncached returns how long runtime.Host.Load of wasm takes in a new Host whose
// compilation cache is empty and in memory. With timer, b's timer runs only during Load.
func loadUncached(b *testing.B, wasm []byte, timer bool) time.Duration {
	ctx := context.Background()
	if timer {
		b.StopTimer()
		defer b.StartTimer()
	}
	h, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(ctx)
	if timer {
		b.StartTimer()
	}
	start := time.Now()
	g, err := h.Load(ctx, wasm, nil)
	d := time.Since(start)
	if timer {
		b.StopTimer()
	}
	if err != nil {
		b.Fatal(err)
	}
	g.Close(ctx)
	return d
}
