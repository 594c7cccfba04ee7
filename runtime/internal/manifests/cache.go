// Package manifests owns the manifest cache: what mcpwasm_describe returned for a module,
// kept under the compilation cache directory (or in memory) so a later load of the same bytes
// serves the guest's tools before its code compiles (Cache, Entry, Key), and the entries that
// tie a file's identity to its module (GetFile, PutFile, FileIdentity). It may import abi,
// internal/atomicfile and runtime/internal/cacheauth; nothing else of ours.
package manifests

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
	"github.com/mcpwasm/mcpwasm/internal/atomicfile"
	"github.com/mcpwasm/mcpwasm/runtime/internal/cacheauth"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
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

// Format is the layout of a cache entry; bump it when Entry changes.
const Format = 4 // 2: Exports records mcpwasm_complete too; 3: Kind, and Exports lists every exported function; 4: StartRequests

// Entry is one cached describe result, manifests/<key>.json.
type Entry struct {
	Format     int    `json:"format"`
	ABIVersion int32  `json:"abi_version"`
	Host       string `json:"host"`
	SHA256     string `json:"sha256"`
	// MinMemoryPages is the module's declared minimum linear memory, checked against the
	// memory limit of each load (checkModule does it on the compiled module).
	MinMemoryPages uint32 `json:"min_memory_pages"`
	// Kind is the guest kind Load detected (Guest.Kind); an entry of a kind this host does
	// not register is not used.
	Kind string `json:"kind"`
	// Exports lists the module's exported functions, sorted: what Kind.CheckManifest checks
	// a lazily loaded manifest against, and the background compile holds the module to.
	Exports []string `json:"exports,omitempty"`
	// StartRequests is what the kind read off the module before running it
	// (kind.StartRequests): a lazily loaded guest's start grants, without the module.
	StartRequests abi.Requests `json:"start_requests,omitzero"`
	// Manifest is the raw JSON mcpwasm_describe returned.
	Manifest json.RawMessage `json:"manifest"`
}

type Cache struct {
	dir    string         // "" keeps entries in mem
	auth   *cacheauth.Dir // seals the entries on disk; nil with dir ""
	logger *slog.Logger

	mu  sync.Mutex
	mem map[string][]byte
}

// NewCache returns the manifest cache beside the compiled code in auth's directory
// (manifests/), or in memory when auth is nil.
func NewCache(auth *cacheauth.Dir, logger *slog.Logger) *Cache {
	c := &Cache{auth: auth, logger: logger}
	if auth != nil {
		c.dir = filepath.Join(auth.Path(), "manifests")
	}
	return c
}

// HostVersion names this build of the host for cache keys: the mcpwasm module version and
// wazero's.
var HostVersion = sync.OnceValue(func() string {
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

// Key names the cache entry of module wasm.
func Key(wasm []byte) string {
	return fmt.Sprintf("%x-%08x%08x-abi%d-f%d", len(wasm), crc32.Checksum(wasm, castagnoli), crc32.ChecksumIEEE(wasm), abi.Version, Format)
}

// Get returns the entry named key, or nil. A damaged or mismatched entry is logged and
// reported as a miss, so the load describes the guest and rewrites it.
func (c *Cache) Get(key string) *Entry {
	var b []byte
	if c.dir == "" {
		c.mu.Lock()
		b = c.mem[key]
		c.mu.Unlock()
		if b == nil {
			return nil
		}
	} else {
		if b = c.readFile(key + ".json"); b == nil {
			return nil
		}
	}
	var e Entry
	err := json.Unmarshal(b, &e)
	switch {
	case err != nil:
	case e.Format != Format || e.ABIVersion != abi.Version || len(e.SHA256) != 2*sha256.Size:
		err = errors.New("entry does not match its key")
	case e.Host != HostVersion():
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

// Put stores e under key for the module with SHA-256 sum. Failures are logged, never
// returned: the cache only saves time.
func (c *Cache) Put(key string, sum [32]byte, e *Entry) {
	e.Format, e.ABIVersion, e.Host, e.SHA256 = Format, abi.Version, HostVersion(), hex.EncodeToString(sum[:])
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
	if err := c.writeFile(key+".json", b); err != nil {
		c.logger.Warn("manifest cache: writing entry", "entry", key, "err", err)
	}
}

// readFile returns the content of the sealed entry file name, or nil when it is missing,
// unreadable or fails authentication (logged: the entry is described again and rewritten).
func (c *Cache) readFile(name string) []byte {
	sealed, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.logger.Warn("manifest cache entry unreadable; describing the guest again", "entry", name, "err", err)
		}
		return nil
	}
	b, err := c.auth.Unseal(name, sealed)
	if err != nil {
		c.logger.Warn("manifest cache entry discarded: it fails authentication (changed outside mcpwasm, or written by an older mcpwasm); describing the guest again",
			"dir", c.dir, "entry", name)
		return nil
	}
	return b
}

// writeFile seals b and writes it to the entry file name atomically (a concurrent reader sees
// the old entry, the new one, or none).
func (c *Cache) writeFile(name string, b []byte) error {
	return atomicfile.WriteFile(filepath.Join(c.dir, name), c.auth.Seal(name, b), 0o600)
}

// Decode decodes the cached manifest as a load decodes a fresh one (errors wrap fault.fault.ErrABI).
func (e *Entry) Decode() (*abi.Manifest, error) {
	var m abi.Manifest
	if err := json.Unmarshal(e.Manifest, &m); err != nil {
		return nil, fmt.Errorf("%w: manifest is not valid JSON: %v", fault.ErrABI, err)
	}
	if m.Tools == nil {
		return nil, fmt.Errorf("%w: manifest has no \"tools\" array", fault.ErrABI)
	}
	return &m, nil
}

// OnDisk reports whether the cache keeps its entries in a directory (not in memory only).
func (c *Cache) OnDisk() bool { return c.dir != "" }
