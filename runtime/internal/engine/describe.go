package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/loadcheck"
	"github.com/mcpwasm/mcpwasm/runtime/internal/manifests"
	"github.com/tetratelabs/wazero"
)

// checkSHA256 checks the config pin against wasm, or for a module not read yet (file), against
// the digest of the module its cached manifest was described from; the background compile
// checks the bytes against that digest before they run.
func checkSHA256(wasm []byte, want string, file *fileSource) error {
	if want == "" {
		return nil
	}
	if file != nil {
		if !strings.EqualFold(file.entry.SHA256, want) {
			return fmt.Errorf("sha256 is %s, config pins %s", file.entry.SHA256, want)
		}
		return nil
	}
	sum := sha256.Sum256(wasm)
	if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, want) {
		return fmt.Errorf("sha256 is %s, config pins %s", got, want)
	}
	return nil
}

// kindOf detects the kind of cm (kind.Detect over its imports, exports and customs, the
// module's script sections) and checks the module against it (checkModule); for a lazy load
// (cm nil), the kind its cache entry names, which cachedManifest found registered.
func (h *Host) kindOf(cm wazero.CompiledModule, customs map[string][]byte, e *manifests.Entry, limits Limits) (*kindEntry, error) {
	if e != nil {
		return h.kindByName(e.Kind), nil
	}
	k, err := detect(moduleOf(cm, customs), h.kinds)
	if err != nil {
		return nil, err
	}
	if err := checkModule(cm, limits, k); err != nil {
		return nil, err
	}
	return k, nil
}

// checkModule verifies, before anything runs, what kind k requires of the exports (Check)
// and what every kind requires: no _start, an exported memory within the memory limit and no
// imported one, and imports only from WASI and k's host modules.
func checkModule(cm wazero.CompiledModule, limits Limits, k kind.Kind) error {
	exports := cm.ExportedFunctions()
	if err := k.Check(exports); err != nil {
		return err
	}
	if _, ok := exports["_start"]; ok {
		return fmt.Errorf("%w: module exports _start (a WASI command); build a reactor (Go: -buildmode=c-shared)", ErrABI)
	}
	mems := cm.ExportedMemories()
	mem, ok := mems[abi.ExportMemory]
	if !ok {
		return fmt.Errorf("%w: missing memory export %q", ErrABI, abi.ExportMemory)
	}
	if minBytes := uint64(mem.Min()) * pageSize; minBytes > limits.MemoryBytes {
		return fmt.Errorf("minimum linear memory %s exceeds the memory limit %s", size.Format(minBytes), size.Format(limits.MemoryBytes))
	}
	provided := map[string]map[string]bool{}
	for _, hm := range k.HostModules() {
		fns := map[string]bool{}
		for _, f := range hm.Funcs {
			fns[f.Name] = true
		}
		provided[hm.Name] = fns
	}
	for _, imp := range cm.ImportedFunctions() {
		mod, name, _ := imp.Import()
		if mod == "wasi_snapshot_preview1" || provided[mod][name] {
			continue
		}
		return fmt.Errorf("%w: module imports %s.%s, which this host does not provide", ErrABI, mod, name)
	}
	if len(cm.ImportedMemories()) > 0 {
		return fmt.Errorf("%w: module imports a memory; it must define and export its own", ErrABI)
	}
	return nil
}

// describe reads the manifest in a fresh instance under the guest's limits, and closes the
// instance: an idle one would hold memory until a first call that may never come. A lazy load
// reads the cached manifest instead (lazy.go).
func (g *Guest) describe(ctx context.Context) (*abi.Manifest, error) {
	if e := g.code.entry; e != nil {
		return e.Decode()
	}
	ctx, cancel := context.WithTimeout(ctx, g.limits.Timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	inst, err := g.pools[0].acquire(ctx, g.host.watch.Reading(deadline), 0)
	if err != nil {
		return nil, err
	}
	defer func() { g.pools[0].release(inst, false, g.host.watch.Now()) }()
	// The manifest is describe's result: the manifest limit is its output limit.
	limits := g.limits
	limits.OutputBytes = min(limits.ManifestBytes, limits.OutputBytes)
	raw, err := inst.enter(ctx, kind.EntryDescribe, "", nil, limits, g.start)
	if errors.Is(err, ErrOutputLimit) {
		return nil, fmt.Errorf("%w: manifest is over the manifest limit of %s (%w)", ErrLoadLimit, size.Format(uint64(limits.OutputBytes)), err)
	}
	if err != nil {
		return nil, err
	}
	m, err := g.decodeManifest(raw)
	if err != nil {
		return nil, err
	}
	g.code.raw = raw // for the manifest cache (lazy.go: afterLoad); Describe returned a copy
	return m, nil
}

// decodeManifest decodes a describe entry's result and checks it against the manifest caps.
func (g *Guest) decodeManifest(raw []byte) (*abi.Manifest, error) {
	var m abi.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: manifest is not valid JSON: %v", ErrABI, err)
	}
	if m.Tools == nil {
		return nil, fmt.Errorf("%w: manifest has no \"tools\" array", ErrABI)
	}
	if err := loadcheck.Manifest(len(m.Tools), len(m.Resources), len(m.ResourceTemplates), len(m.Prompts), g.limits); err != nil {
		return nil, err
	}
	return &m, nil
}
