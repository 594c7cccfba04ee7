package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"

	"github.com/mcpwasm/mcpwasm/abi"
)

// The manifest cache keeps what mcpwasm_describe returned for a module, so a later Load of
// the same bytes can serve the guest's tools before its code is compiled or instantiated (see
// Options.Lazy and RATIONALE.md, "Why serve tools/list from a manifest cache?"). An entry is
// found by a fast fingerprint of the module (its size and two CRC-32s: ~0.3 ms for a 4 MB Go
// guest where SHA-256 takes 3-6 ms), the ABI version and the format; it holds the module's
// SHA-256 and the host's version, and the background compile checks the SHA-256 before a call
// can reach the code. It lives in the manifests subdirectory of the compilation cache
// directory, or in memory when compiled code is cached in memory only. A cache entry that
// cannot be read back is ignored (and logged) and rewritten by the next load.

// manifestFormat is the layout of a cache entry; bump it when manifestEntry changes.
const manifestFormat = 2 // 2: Exports records mcpwasm_complete too

// manifestEntry is one cached describe result, manifests/<key>.json.
type manifestEntry struct {
	Format     int    `json:"format"`
	ABIVersion int32  `json:"abi_version"`
	Host       string `json:"host"`
	SHA256     string `json:"sha256"`
	// MinMemoryPages is the module's declared minimum linear memory, checked against the
	// memory limit of each load (checkModule does it on the compiled module).
	MinMemoryPages uint32 `json:"min_memory_pages"`
	// Exports lists the optional exports the module has (mcpwasm_read, mcpwasm_prompt).
	Exports []string `json:"exports,omitempty"`
	// Manifest is the raw JSON mcpwasm_describe returned.
	Manifest json.RawMessage `json:"manifest"`
}

type manifestCache struct {
	dir    string // "" keeps entries in mem
	logger *slog.Logger

	mu  sync.Mutex
	mem map[string][]byte
}

// manifestDir is where the manifest cache of o lives: "" for memory only. It mirrors newCache.
func manifestDir(o Options) string {
	if o.NoDiskCache {
		return ""
	}
	dir := o.CacheDir
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "mcpwasm", "compile")
	}
	return filepath.Join(dir, "manifests")
}

// hostVersion names this build of the host for cache keys: the mcpwasm module version and
// wazero's.
var hostVersion = sync.OnceValue(func() string {
	v := "mcpwasm devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == "github.com/mcpwasm/mcpwasm" && bi.Main.Version != "" {
			v = "mcpwasm " + bi.Main.Version
		}
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/mcpwasm/mcpwasm":
				v = "mcpwasm " + d.Version
			case "github.com/tetratelabs/wazero":
				v += " wazero " + d.Version
			}
		}
	}
	return v
})

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// manifestKey names the cache entry of module wasm.
func manifestKey(wasm []byte) string {
	return fmt.Sprintf("%x-%08x%08x-abi%d-f%d", len(wasm), crc32.Checksum(wasm, castagnoli), crc32.ChecksumIEEE(wasm), abi.Version, manifestFormat)
}

// get returns the entry named key, or nil. A damaged or mismatched entry is logged and
// reported as a miss, so the load describes the guest and rewrites it.
func (c *manifestCache) get(key string) *manifestEntry {
	var b []byte
	if c.dir == "" {
		c.mu.Lock()
		b = c.mem[key]
		c.mu.Unlock()
		if b == nil {
			return nil
		}
	} else {
		var err error
		if b, err = os.ReadFile(filepath.Join(c.dir, key+".json")); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				c.logger.Warn("manifest cache entry unreadable; describing the guest again", "entry", key, "err", err)
			}
			return nil
		}
	}
	var e manifestEntry
	err := json.Unmarshal(b, &e)
	switch {
	case err != nil:
	case e.Format != manifestFormat || e.ABIVersion != abi.Version || len(e.SHA256) != 2*sha256.Size:
		err = errors.New("entry does not match its key")
	case e.Host != hostVersion():
		c.logger.Debug("manifest cache entry written by another host version", "entry", key, "host", e.Host)
		return nil
	case len(e.Manifest) == 0:
		err = errors.New("no manifest")
	}
	if err != nil {
		c.logger.Warn("manifest cache entry corrupt; ignoring it and describing the guest again", "entry", key, "err", err)
		return nil
	}
	return &e
}

// put stores e under key for the module with SHA-256 sum. Failures are logged, never
// returned: the cache only saves time.
func (c *manifestCache) put(key string, sum [32]byte, e *manifestEntry) {
	e.Format, e.ABIVersion, e.Host, e.SHA256 = manifestFormat, abi.Version, hostVersion(), hex.EncodeToString(sum[:])
	b, err := json.Marshal(e)
	if err != nil {
		c.logger.Warn("manifest cache: encoding entry", "err", err)
		return
	}
	if c.dir == "" {
		c.mu.Lock()
		if c.mem == nil {
			c.mem = map[string][]byte{}
		}
		c.mem[key] = b
		c.mu.Unlock()
		return
	}
	if err := writeFileAtomic(c.dir, key+".json", b); err != nil {
		c.logger.Warn("manifest cache: writing entry", "entry", key, "err", err)
	}
}

// writeFileAtomic writes dir/name through a temporary file and a rename, so a concurrent
// reader sees the old entry, the new one, or none — never half of one.
func writeFileAtomic(dir, name string, b []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, name+".tmp*")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
