package engine

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/mcpwasm/mcpwasm/runtime/internal/cacheauth"
	"github.com/tetratelabs/wazero"
)

// newCache opens the compilation cache of o: in memory, or on disk in a directory that only
// the user can write, whose entries are authenticated (runtime/internal/cacheauth; the
// returned Dir is nil for a cache in memory).
func newCache(o Options, logger *slog.Logger) (wazero.CompilationCache, *cacheauth.Dir, error) {
	if o.NoDiskCache {
		return wazero.NewCompilationCache(), nil, nil
	}
	dir := o.CacheDir
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			logger.Debug("no user cache directory; compiled code is cached in memory only", "err", err)
			return wazero.NewCompilationCache(), nil, nil
		}
		dir = filepath.Join(base, "mcpwasm", "compile")
	}
	auth, err := cacheauth.Open(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("compilation cache: %w", err)
	}
	if err := discardTampered(auth, logger); err != nil {
		return nil, nil, fmt.Errorf("compilation cache %s: %w", dir, err)
	}
	cache, err := wazero.NewCompilationCacheWithDir(auth.Path())
	if err != nil {
		return nil, nil, fmt.Errorf("compilation cache %s: %w", dir, err)
	}
	return cache, auth, nil
}

// discardTampered deletes the compiled code in auth that fails authentication, so wazero
// compiles it again instead of running it, and logs each file.
func discardTampered(auth *cacheauth.Dir, logger *slog.Logger) error {
	if auth == nil {
		return nil
	}
	gone, err := auth.VerifyCompiled()
	for _, f := range gone {
		logger.Warn("compilation cache: discarded compiled code that fails authentication (changed outside mcpwasm, or written by an older mcpwasm); compiling again", "dir", auth.Path(), "entry", f)
	}
	return err
}
