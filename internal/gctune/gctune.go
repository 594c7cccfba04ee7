// Package gctune keeps the Go garbage collector from running every few calls in a server
// whose live heap is small. With GOGC=100 the heap goal is twice the live heap, and at least
// 4 MiB: mcpwasm serve holds 2–3 MiB live (compiled guests are outside the Go heap), so it
// collected after every 2 MiB allocated — about every 30 tools/call over stdio, a fifth of the
// server's CPU. After each collection the tuner sets the GC percentage so that the goal is the
// live heap plus Headroom, never below GOGC=100's goal: a 2 MiB heap collects after 8 MiB
// more, a 200 MiB heap as before. The price is resident memory under load, up by about the
// headroom; bench/HISTORY.md "Host per-call path (wave 8)" has both measured, and why 8 MiB.
//
// An operator's GOGC is their choice: with it set, Start does nothing. GOMEMLIMIT (which the
// Kubernetes manifests set from the container's memory limit) works with the tuner: near the
// limit the runtime collects sooner whatever the percentage says.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Headroom is the garbage allowed between collections when the live heap is smaller: 8 MiB.
const Headroom = 8 << 20

// maxPercent bounds the percentage for a near-empty heap (at most a 32 MiB goal below 1 MiB).
const maxPercent = 3200

var once sync.Once

// Start begins tuning for the life of the process; later calls do nothing. It reports whether
// the tuner runs (false when GOGC is set in the environment).
func Start() bool {
	if os.Getenv("GOGC") != "" {
		return false
	}
	once.Do(func() { arm(func(int) bool { return true }) })
	return true
}

// Percent is the GC percentage whose goal is live plus Headroom, at least 100 (GOGC's
// default) and at most maxPercent.
func Percent(live uint64) int {
	if live == 0 {
		return maxPercent
	}
	p := int(uint64(Headroom) * 100 / live)
	return min(max(p, 100), maxPercent)
}

// sentinel is garbage whose finalizer runs once after each collection and re-arms itself.
type sentinel struct{ _ [16]byte }

// arm sets a finalizer that, after the next collection, applies Percent of the live heap and
// tells tuned, which returns whether to arm the next one.
func arm(tuned func(percent int) bool) {
	s := &sentinel{}
	runtime.SetFinalizer(s, func(*sentinel) {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(sample)
		p := 100
		if sample[0].Value.Kind() == metrics.KindUint64 {
			p = Percent(sample[0].Value.Uint64())
		}
		debug.SetGCPercent(p)
		if tuned(p) {
			arm(tuned)
		}
	})
}
