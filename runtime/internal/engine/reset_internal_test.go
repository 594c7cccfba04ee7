package engine

import (
	"context"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// idleInstance returns the pool's one idle instance, leaving it idle.
func idleInstance(t *testing.T, p *pool) *instance {
	t.Helper()
	select {
	case inst := <-p.idle:
		p.idle <- inst
		return inst
	default:
		t.Fatal("no idle instance")
		return nil
	}
}

// An instance a call (isolation call) or another session (isolation session) is done with is
// reset to the snapshot in place and reused, its memory either under the snapshot's image
// (Linux: the pages a call wrote are dropped; a snapshot under mapImageBytes is mapped only
// because the test asks) or on the Go heap (the snapshot is copied):
// every call of the probe sees the state _initialize left, the pool made one instance for
// all of them, and the resets are counted.
func TestResetInPlace(t *testing.T) {
	for _, mapped := range []bool{true, false} {
		name := map[bool]string{true: "mapped", false: "copy"}[mapped]
		t.Run("call/"+name, func(t *testing.T) {
			h, _ := snapHost(t, true)
			h.noMappedMemory, h.mapSmall = !mapped, true // the probe's snapshot is 3 pages
			g, err := h.Load(context.Background(), wat.Snapshot, &GuestConfig{Isolation: "call", Limits: Limits{Instances: 1}})
			if err != nil {
				t.Fatal(err)
			}
			p := g.lists().tools["probe"].pool
			var first *instance
			for i := range 5 {
				if got := snapCall(t, g, "A", "probe", `{}`); got != probeFresh {
					t.Errorf("call %d: %s; want %s", i, got, probeFresh)
				}
				inst := idleInstance(t, p)
				if first == nil {
					first = inst
				} else if inst != first {
					t.Errorf("call %d ran in another instance: the first was not reused", i)
				}
			}
			if got := g.stats.resets.Load(); got != 4 {
				t.Errorf("%d resets; want 4 (5 calls in one instance)", got)
			}
			if m := first.memory; m == nil || m.Mapped != (mapped && goruntime.GOOS == "linux") {
				t.Errorf("memory mapped: %v; want %v", m != nil && m.Mapped, mapped && goruntime.GOOS == "linux")
			}
		})
		t.Run("session/"+name, func(t *testing.T) {
			h, _ := snapHost(t, true)
			h.noMappedMemory, h.mapSmall = !mapped, true // the probe's snapshot is 3 pages
			g, err := h.Load(context.Background(), wat.Snapshot, &GuestConfig{Isolation: "session", Limits: Limits{Instances: 1}})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range []struct {
				session, want string
				resets        uint64
			}{
				{"A", probeFresh, 0},
				{"A", probeUsed, 0},  // the session's own instance, warm
				{"B", probeFresh, 1}, // A's instance, reset for B
				{"A", probeFresh, 2},
			} {
				if got := snapCall(t, g, s.session, "probe", `{}`); got != s.want {
					t.Errorf("step %d (session %s): %s; want %s", i, s.session, got, s.want)
				}
				if got := g.stats.resets.Load(); got != s.resets {
					t.Errorf("step %d: %d resets; want %d", i, got, s.resets)
				}
			}
			if st := h.Stats(); len(st) != 1 || st[0].Resets != 2 {
				t.Errorf("Stats: %+v; want Resets 2", st)
			}
		})
	}
}

// An instance is not reset, but replaced by a fresh one, when its memory grew past the
// snapshot's (wazero cannot shrink it), its call failed (a trap or a limit), or the guest
// closed one of its stdio descriptors; the fresh one is then reset as usual.
func TestResetRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		wasm   []byte
		spoil  string // the tool that leaves the instance unfit
		failed bool   // … by failing
		tool   string // a tool whose answer is the same in every fresh or reset instance
		want   string
	}{
		{"grown", wat.Snapshot, "grow", false, "probe", probeFresh},
		{"trapped", wat.Snapshot, "spin", true, "probe", probeFresh},
		{"stdout closed", wat.Reset, "close", false, "draw", drawFresh},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := snapHost(t, true)
			g, err := h.Load(ctx, tc.wasm, &GuestConfig{Isolation: "call",
				Limits: Limits{Instances: 1, Timeout: 100 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			if got := snapCall(t, g, "A", tc.tool, `{}`); got != tc.want {
				t.Fatalf("first call: %s; want %s", got, tc.want)
			}
			_, err = g.Call(ctx, tc.spoil, []byte(`{}`)) // reset in place: 1
			if (err != nil) != tc.failed {
				t.Fatalf("%s: %v; want failed %v", tc.spoil, err, tc.failed)
			}
			if got := snapCall(t, g, "A", tc.tool, `{}`); got != tc.want { // refused: a fresh one
				t.Errorf("after %s: %s; want %s", tc.spoil, got, tc.want)
			}
			if got := g.stats.resets.Load(); got != 1 {
				t.Errorf("%d resets after %s; want 1 (before it only)", got, tc.spoil)
			}
			if got := snapCall(t, g, "A", tc.tool, `{}`); got != tc.want {
				t.Errorf("next: %s; want %s", got, tc.want)
			}
			if got := g.stats.resets.Load(); got != 2 {
				t.Errorf("%d resets; want 2 (the fresh instance is reset)", got)
			}
		})
	}
}

// What reset.wasm's draw answers in a fresh instance: the first 8 bytes of the host's
// deterministic random source (math/rand seeded 42, as wazero's) and the monotonic clock's
// first reading (0).
const drawFresh = `{"content":[],"structuredContent":{"r":1999427473472719955,"t":0}}`

// Without the random and clock grants, a guest reads deterministic sources; a reset rewinds
// them, so a reset instance draws what a fresh one draws (not where the last call left the
// stream), while a shared instance's stream goes on.
func TestResetRewindsSources(t *testing.T) {
	for _, tc := range []struct {
		iso     string
		noReset bool
		want    []string
	}{
		{"call", false, []string{drawFresh, drawFresh, drawFresh}},
		{"call", true, []string{drawFresh, drawFresh, drawFresh}}, // fresh instances
		{"shared", false, []string{drawFresh, `{"content":[],"structuredContent":{"r":11522585765315853207,"t":1000000}}`}},
	} {
		t.Run(map[bool]string{false: tc.iso, true: tc.iso + "/no-reset"}[tc.noReset], func(t *testing.T) {
			h, _ := snapHost(t, true)
			h.noReset = tc.noReset
			g, err := h.Load(context.Background(), wat.Reset, &GuestConfig{Isolation: tc.iso, Limits: Limits{Instances: 1}})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.want {
				if got := snapCall(t, g, "A", "draw", `{}`); got != want {
					t.Errorf("draw %d: %s; want %s", i, got, want)
				}
			}
			wantResets := uint64(0)
			if tc.iso == "call" && !tc.noReset {
				wantResets = uint64(len(tc.want) - 1)
			}
			if got := g.stats.resets.Load(); got != wantResets {
				t.Errorf("%d resets; want %d", got, wantResets)
			}
		})
	}
}

// stdioIntact reads wazero's descriptor table by reflection: true for a fresh instance,
// false once the guest closed stdout. If a wazero upgrade moves what it reads, this fails
// (and instances are replaced, never reset).
func TestResetStdioReadable(t *testing.T) {
	h, _ := snapHost(t, true)
	g, err := h.Load(context.Background(), wat.Reset, &GuestConfig{Isolation: "call", Limits: Limits{Instances: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p := g.lists().tools["close"].pool
	inst, err := p.acquire(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !inst.stdioIntact() {
		t.Error("stdioIntact of a fresh instance: false")
	}
	if _, err := inst.enter(context.Background(), kind.EntryTool, "close", []byte(`{}`), g.limits, nil); err != nil {
		t.Fatal(err)
	}
	if inst.stdioIntact() {
		t.Error("stdioIntact after fd_close(1): true")
	}
	p.release(inst, true, h.watch.Now())
	if fdLookup(nil).IsValid() {
		t.Error("fdLookup(nil) is valid")
	}
}
