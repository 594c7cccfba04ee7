package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpwasm/mcpwasm/runtime/internal/manifests"
	"github.com/mcpwasm/mcpwasm/runtime/internal/snapstate"

	"github.com/mcpwasm/mcpwasm/internal/atomicfile"
)

// Snapshots on disk: the snapshot a pool takes of its first instance (snapshot.go) is also
// written to the compile cache's directory, sealed like a manifest entry (cacheauth: an
// HMAC under the cache's key and the file's name), for kinds whose Restore state can be
// encoded (kind.Traits.EncodeState: JavaScript, whose Start evaluates a whole bundle). The next
// process that makes the first instance of a pool with the same module, host build, kind,
// limits and grants profile reads it instead of running the guest's start: a cached
// JavaScript guest answers its first call without evaluating its script. A file that is
// missing, fails authentication or does not decode is ignored (and a bad one logged): the
// pool starts its first instance as before and writes the file again.

// diskSnap is a pool's share of this file.
type diskSnap struct {
	once   sync.Once   // the file is looked for once per pool
	loaded bool        // the pool's snapshot came from the file: nothing to write (set in once)
	saved  atomic.Bool // written (or being written) once: a snapshot taken again after an unload is the same
}

// diskSnapshotName is the file name of p's snapshot, or "" when p's snapshots are not kept
// on disk (no cache directory, a kind without a state codec (kind.Traits.EncodeState), a module whose digest is not
// known, an env grant).
func (p *pool) diskSnapshotName() string {
	g := p.g
	h := g.host
	if h.auth == nil || g.code == nil {
		return ""
	}
	codec := g.kind.t
	if codec.EncodeState == nil {
		return ""
	}
	if p.profile.EnvGranted() {
		// A start may read the granted variables (a script's API key at its top level): the
		// snapshot would hold their values on disk, and the next process, the variables
		// changed, would restore the old ones. Such pools keep their snapshots in memory only
		// (same process, same grants: pool.snaps). A start with the clock grant is kept on
		// disk: what it read is a time, no secret, and a copy restored later is the state of
		// a process started earlier (RATIONALE.md, "Why does every handler run with its
		// guest's grants?").
		return ""
	}
	sum := ""
	switch {
	case g.code.entry != nil:
		sum = g.code.entry.SHA256
	case g.code.sum != [32]byte{}:
		sum = hex.EncodeToString(g.code.sum[:])
	}
	if sum == "" {
		return ""
	}
	k := sha256.New()
	for _, part := range []string{
		manifests.HostVersion(), buildRevision(), strconv.Itoa(snapstate.DiskFormat), g.kind.Name(), codec.StateFormat, sum,
		p.profile.Key(), strconv.FormatUint(g.limits.MemoryBytes, 10),
	} {
		k.Write([]byte(part))
		k.Write([]byte{0})
	}
	return hex.EncodeToString(k.Sum(nil)[:20]) + ".snap"
}

// buildRevision is the VCS revision this binary was built from ("" if unknown), so that two
// development builds ("mcpwasm devel") whose starts differ do not share a snapshot.
var buildRevision = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev := ""
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.modified":
			rev += s.Value + " "
		}
	}
	return rev
})

// snapshotDir is where the files live, beside the compiled code and the manifests.
func (p *pool) snapshotDir() string { return filepath.Join(p.g.host.auth.Path(), "snapshots") }

// loadDiskSnapshot makes the snapshot on disk p's, if p wants one and has none yet and the
// file is there and good; it returns the pool's snapshot then, else nil. Every caller gets
// it, also one that waited while another (the prefetch) read the file.
func (p *pool) loadDiskSnapshot(ctx context.Context) *snapstate.Snapshot {
	var snap *snapstate.Snapshot
	p.disk.once.Do(func() {
		if !p.wantsSnapshot() {
			return
		}
		name := p.diskSnapshotName()
		if name == "" {
			return
		}
		s, err := p.readDiskSnapshot(name)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				p.note(ctx, p.g.name, slog.LevelWarn, "snapshot in the cache ignored; the guest's start runs and the file is written again",
					slog.String("file", name), slog.Any("err", err))
			}
			return
		}
		p.attachImage(s) // mapped copy-on-write under its instances' memory (snapshot.go)
		p.snaps.mu.Lock()
		if !p.snaps.tried {
			p.snaps.tried, p.snaps.snap = true, s
			p.disk.loaded = true
			snap = s
		}
		p.snaps.mu.Unlock()
		if snap != nil {
			p.note(ctx, p.g.name, slog.LevelDebug, "instances start from a snapshot in the cache",
				slog.String("file", name), slog.Int("memory", len(s.Memory())))
		}
	})
	if snap == nil && p.disk.loaded { // another caller's look found it (loaded is set in once)
		snap = p.snaps.get()
	}
	return snap
}

// prefetchDiskSnapshot starts reading p's snapshot file while the guest's code is not ready
// (a lazily loaded guest's first call waits for its background compile), so that the read,
// its authentication and decoding overlap the compile instead of following it.
func (p *pool) prefetchDiskSnapshot(ctx context.Context) {
	if !p.g.code.notReady.Load() || p.g.host.auth == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	h := p.g.host
	h.snapWrites.Add(1)
	go func() {
		defer h.snapWrites.Done()
		p.loadDiskSnapshot(ctx)
	}()
}

// saveDiskSnapshot writes p's snapshot to the cache in the background, unless it came from
// there or is not to be kept on disk. Host.Close waits for the write.
func (p *pool) saveDiskSnapshot() {
	if p.disk.loaded {
		return
	}
	snap := p.snaps.get()
	name := p.diskSnapshotName()
	if snap == nil || name == "" || p.disk.saved.Swap(true) {
		return
	}
	codec := p.g.kind.t
	h := p.g.host
	h.snapWrites.Add(1)
	go func() {
		defer h.snapWrites.Done()
		err := func() error {
			state, err := codec.EncodeState(snap.Kind)
			if err != nil {
				return err
			}
			b := snapstate.Encode(snap, state)
			if err := os.MkdirAll(p.snapshotDir(), 0o700); err != nil {
				return err
			}
			return atomicfile.WriteFile(filepath.Join(p.snapshotDir(), name), h.auth.Seal(name, b), 0o600)
		}()
		if err != nil {
			h.logger.Warn("snapshot not written to the cache", "guest", p.g.name, "file", name, "err", err)
		}
	}()
}

// readDiskSnapshot reads, authenticates and decodes the file name.
func (p *pool) readDiskSnapshot(name string) (*snapstate.Snapshot, error) {
	path := filepath.Join(p.snapshotDir(), name)
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if fi.Size() > snapstate.MaxFile || uint64(fi.Size()) > p.profile.MemoryBytes()+1<<20 {
		return nil, fmt.Errorf("%d bytes: over the memory limit", fi.Size())
	}
	sealed, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, err := p.g.host.auth.Unseal(name, sealed)
	if err != nil {
		return nil, err
	}
	snap, state, err := snapstate.Decode(b, p.profile.MemoryBytes())
	if err != nil {
		return nil, err
	}
	if snap.Kind, err = p.g.kind.t.DecodeState(state); err != nil {
		return nil, fmt.Errorf("the kind's state: %w", err)
	}
	return snap, nil
}
