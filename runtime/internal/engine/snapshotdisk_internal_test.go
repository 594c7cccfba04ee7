package engine

import (
	"context"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/snapstate"
)

// TestLoadDiskSnapshotWaitingCaller: a caller that waited while another looked for the file
// (a lazily loaded guest's prefetch, reading while the first call's instance is made) gets the
// snapshot that look loaded, not nil — nil made that instance run the start again, and a
// script's start-time value differed from the one in the cache (TestJavaScriptSnapshotInCache,
// once in a loaded run).
func TestLoadDiskSnapshotWaitingCaller(t *testing.T) {
	p := &pool{}
	s := &snapstate.Snapshot{}
	p.disk.once.Do(func() { // the other caller's look: it found the file
		p.snaps.tried, p.snaps.snap, p.disk.loaded = true, s, true
	})
	if got := p.loadDiskSnapshot(context.Background()); got != s {
		t.Fatalf("loadDiskSnapshot after another caller loaded the file = %p, want %p", got, s)
	}
}
