package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcpwasm/mcpwasm/internal/atomicfile"
	"github.com/mcpwasm/mcpwasm/runtime/internal/cacheauth"
	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/runtime/internal/manifests"
)

// Rewritten modules on disk: the module the host's rewrite (instrument.Module, with the table
// bound of loadcheck.Tables) writes for a guest is kept in the compile cache's directory,
// sealed like a manifest entry (cacheauth: an HMAC under the cache's key and the file's name),
// so a warm start compiles it (a compilation-cache hit) without the structural-cap scan, the
// compile-memory estimates and the rewrite (~15 ms of a 1.5 MB JavaScript guest's start).
//
// The file is written only after every check of the compile passed for the module under the
// guest's limits: Caps, CompileMemory of the module and of the rewrite, Tables. Its name is a
// digest of everything they and the rewrite read — the module's SHA-256, every limit, the
// rewrite's version (instrument.Version) and this host's build — so an authenticated file
// records that those checks passed for exactly that input, and any other input misses. A
// file that is missing or fails authentication is not used (a bad one is logged and
// removed): the module is parsed, checked and rewritten again, and the file written afresh.

// rewriteDir is where the files live, beside the compiled code and the manifests.
const rewriteDir = "rewritten"

// maxRewriteBytes bounds a file read back: a rewrite adds a few bytes per function and loop,
// far less than the module it rewrites (at most limits.ModuleBytes).
func maxRewriteBytes(limits Limits) int64 { return 2*int64(limits.ModuleBytes) + 1<<20 }

// rewriteName is the file name of the rewrite of the module whose SHA-256 is sum under
// limits.
func rewriteName(sum [32]byte, limits Limits) string {
	k := sha256.New()
	for _, part := range []string{
		"rewrite", manifests.HostVersion(), buildRevision(), strconv.Itoa(instrument.Version), hex.EncodeToString(sum[:]),
		fmt.Sprintf("%#v", limits), // every limit: the checks a hit skips read them
	} {
		k.Write([]byte(part))
		k.Write([]byte{0})
	}
	return hex.EncodeToString(k.Sum(nil)[:20]) + ".wasm"
}

// rewritten returns the cached rewrite of the module whose SHA-256 is sum under limits, or
// nil (no disk cache, no file, or a file that fails authentication, which is removed).
func (h *Host) rewritten(sum [32]byte, limits Limits) []byte {
	if h.auth == nil {
		return nil
	}
	name := rewriteName(sum, limits)
	path := filepath.Join(h.auth.Path(), rewriteDir, name)
	b, err := func() ([]byte, error) {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if fi.Size() > maxRewriteBytes(limits) {
			return nil, fmt.Errorf("%d bytes: over twice the module size limit", fi.Size())
		}
		sealed, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return h.auth.Unseal(name, sealed)
	}()
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			h.logger.Warn("compilation cache: discarded a rewritten module that fails authentication (changed outside mcpwasm); rewriting it again",
				"dir", h.auth.Path(), "entry", filepath.Join(rewriteDir, name), "err", err)
			os.Remove(path)
		}
		return nil
	}
	return b
}

// keepRewritten writes inst, the checked rewrite of the module whose SHA-256 is sum under
// limits, for the next start. A failure is logged: the next start rewrites it again.
func (h *Host) keepRewritten(sum [32]byte, limits Limits, inst []byte) {
	if h.auth == nil {
		return
	}
	if err := writeRewritten(h.auth, rewriteName(sum, limits), inst); err != nil {
		h.logger.Warn("compilation cache: rewritten module not written", "err", err)
	}
}

func writeRewritten(auth *cacheauth.Dir, name string, inst []byte) error {
	dir := filepath.Join(auth.Path(), rewriteDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, name), auth.Seal(name, inst), 0o600)
}
