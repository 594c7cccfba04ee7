package engine

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/internal/manifests"

	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// LoadFile implements runtime.Host.LoadFile, whose doc comment says what it does.
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
