package engine

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/internal/manifests"

	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// LoadFile loads the module in the file at path, as Load loads its bytes.
//
// With Options.Lazy, a file the manifest cache already knows by identity — the same path,
// device, inode, size, modification and change times as when it was last read — is not read
// at all before the guest is served: its tools come from the cached manifest, and the
// background compile reads the file and runs it only if its SHA-256 is the one the cached
// manifest was described from (else the guest's calls fail, wrapping ErrABI). With
// cfg.SHA256 set, the cached entry is used only if it was described from a module with that
// digest, so the tools listed are the pinned module's; the bytes are checked against it before
// anything runs. Otherwise — no identity on this platform, no entry, the limits or the pin do
// not match, or Lazy is off — the file is read whole and loaded by Load, and its identity is
// recorded for the next start. Errors are Load's, or the error reading path.
func (h *Host) LoadFile(ctx context.Context, path string, cfg *GuestConfig) (*Guest, error) {
	var c GuestConfig
	if cfg != nil {
		c = *cfg
	}
	if c.Source == "" {
		c.Source = path
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	id, hasID := manifests.FileIdentity(path, fi)
	if hasID && h.lazy.enabled {
		if g, ok, err := h.loadFileCached(ctx, path, id, fi.Size(), &c); ok {
			return g, err
		}
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	g, err := h.Load(ctx, wasm, &c)
	if err != nil {
		return nil, err
	}
	// Record the identity only if the file did not change while it was read.
	if fi2, err := os.Stat(path); err == nil && hasID {
		if id2, _ := manifests.FileIdentity(path, fi2); id2 == id {
			h.lazy.manifests.PutFile(id, g.code.key)
		}
	}
	return g, nil
}

// loadFileCached is LoadFile's cache hit. ok is false when the cache cannot stand in for the
// file's bytes; err is then nil and the caller reads the file.
func (h *Host) loadFileCached(ctx context.Context, path, id string, size int64, c *GuestConfig) (g *Guest, ok bool, err error) {
	key := h.lazy.manifests.GetFile(id)
	if key == "" {
		return nil, false, nil
	}
	e := h.lazy.manifests.Get(key)
	limits := c.Limits.Merge(policy.DefaultLimits())
	switch {
	case e == nil, limits.Validate() != nil, size > int64(limits.ModuleBytes),
		uint64(e.MinMemoryPages)*pageSize > limits.MemoryBytes, len(e.Manifest) > limits.OutputBytes,
		c.SHA256 != "" && !strings.EqualFold(c.SHA256, e.SHA256):
		return nil, false, nil // Load gives the precise error, or describes the module afresh
	}
	if h.observer != nil {
		h.observer.CacheLookup(true) // a miss is counted by Load, which the caller then runs
	}
	g, err = h.load(ctx, nil, c, &fileSource{path: path, key: key, entry: e})
	return g, true, err
}

// fileSource is a module Load has not read: its file and the manifest cache entry standing in
// for its bytes until the background compile reads and checks them (guestCode.read).
type fileSource struct {
	path  string
	key   string
	entry *manifests.Entry
}

// read returns the module of a guest loaded by LoadFile without its bytes; loadCode checks
// them against the load caps (before anything compiles) and the cached manifest's SHA-256.
func (c *guestCode) read() ([]byte, error) {
	wasm, err := os.ReadFile(c.path)
	if err != nil {
		return nil, fmt.Errorf("reading the module: %w", err)
	}
	return wasm, nil
}
