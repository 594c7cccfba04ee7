package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		live uint64
		want int
	}{
		{0, maxPercent}, {128 << 10, maxPercent}, {256 << 10, 3200}, {1 << 20, 800}, {2 << 20, 400},
		{3 << 20, 266}, {8 << 20, 100}, {64 << 20, 100}, {1 << 40, 100},
	} {
		if got := Percent(tt.live); got != tt.want {
			t.Errorf("Percent(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}

// After a collection the tuner has set the percentage for the live heap it found: with this
// test's small heap, far above GOGC's default 100.
func TestTunesAfterCollection(t *testing.T) {
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	got := make(chan int, 1)
	arm(func(p int) bool {
		got <- p
		return false // one collection is enough; the chain ends
	})
	runtime.GC()
	runtime.GC() // finalizers queued by the first run while the second collects
	p := <-got
	if p <= 100 {
		t.Fatalf("percentage set after a collection of a small heap: %d, want above 100", p)
	}
	if cur := debug.SetGCPercent(p); cur != p {
		t.Errorf("GC percentage is %d, the tuner reported setting %d", cur, p)
	}
}

func TestStartLeavesOperatorsSetting(t *testing.T) {
	t.Setenv("GOGC", "200")
	if Start() {
		t.Error("Start tuned with GOGC set")
	}
}
