package sandbox

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/runtime/policy"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

// Profile is the WASI side of a tool's grants — fs mounts, environment, clock, random — and
// the memory limit: what an instance is created with. They are fixed at instantiation, so
// tools whose profiles differ get instances (pools) of their own. The zero Profile grants
// nothing: no files, an empty environment, wazero's deterministic clock and random source.
type Profile struct {
	fs     []policy.FS
	denied []string // requested fs directories not granted: mounted empty, refusing (fsdenied.go)
	env    []string
	clock  bool
	random bool
	memory uint64
}

// Bare is the profile of the guest-level calls that run without grants (describe, resources,
// prompts): nothing granted, memory bytes of linear memory.
func Bare(memoryBytes uint64) Profile { return Profile{memory: memoryBytes} }

// MemoryBytes is the linear memory limit of instances with this profile, in bytes.
func (p Profile) MemoryBytes() uint64 { return p.memory }

// Clock reports whether instances of p get the real clocks (the clock grant), and so a
// nanosleep that really waits.
func (p Profile) Clock() bool { return p.clock }

// NoSnapshot says why an instance of p must run its own start rather than start from a copy
// of another's state after its start (runtime's snapshots), or "" if nothing in p forbids
// it. An fs mount: a start may open a file and keep its descriptor (WASI state the copy does
// not carry) or write one (an effect a copy would skip). The random grant: every copy would
// start from the same random state (a seed drawn at start, Go's hash seeds), and where a
// guest keeps it is its own, so it cannot be reseeded. Without the grant every instance
// reads wazero's deterministic source anyway, so a copy changes nothing. The clock grant is
// allowed: what a start read from the clock stays in the copy (a Go guest's process start
// time), later reads are live.
func (p Profile) NoSnapshot() string {
	switch {
	case len(p.fs) > 0:
		return "it has an fs grant"
	case len(p.denied) > 0:
		return "it requests fs directories (mounted, refusing)"
	case p.random:
		return "it has the random grant"
	}
	return ""
}

// Key is a string equal for profiles that are Equal and different otherwise: part of the key
// of a snapshot kept on disk (runtime/internal/engine/snapshotdisk.go). Variable values and paths are in it
// only as a digest.
func (p Profile) Key() string {
	h := sha256.New()
	for _, s := range p.env {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write([]byte{1})
	for _, f := range p.fs {
		fmt.Fprintf(h, "%q %q %v\x00", f.Host, f.Guest, f.RW)
	}
	h.Write([]byte{1})
	for _, d := range p.denied {
		h.Write([]byte(d))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("m%d c%v r%v %x", p.memory, p.clock, p.random, h.Sum(nil))
}

// Equal reports whether instances of p and q are interchangeable.
func (p Profile) Equal(q Profile) bool {
	return p.memory == q.memory && p.clock == q.clock && p.random == q.random &&
		slices.Equal(p.env, q.env) && slices.Equal(p.fs, q.fs) && slices.Equal(p.denied, q.denied)
}

// ModuleConfig returns base with the profile applied: stdin empty; fs grants mounted as
// rooted file systems (fs.go), requested directories not granted as refusing ones
// (fsdenied.go); granted variables; real clocks and crypto entropy if granted.
// The returned closer releases the mounts' open directories once no instance of this
// configuration runs any more; the error names a mount whose directory cannot be opened.
func (p Profile) ModuleConfig(base wazero.ModuleConfig) (wazero.ModuleConfig, io.Closer, error) {
	cfg := base.WithStdin(bytes.NewReader(nil))
	var roots rootSet
	if len(p.fs)+len(p.denied) > 0 {
		fsCfg := wazero.NewFSConfig()
		for _, f := range p.fs {
			root, err := os.OpenRoot(f.Host)
			if err != nil {
				roots.Close()
				return nil, nil, fmt.Errorf("fs %q: %w", f.Guest, err)
			}
			roots = append(roots, root)
			fsCfg = fsCfg.(sysfs.FSConfig).WithSysFSMount(&rootFS{root: root, rw: f.RW}, f.Guest)
		}
		for _, d := range p.denied {
			fsCfg = fsCfg.(sysfs.FSConfig).WithSysFSMount(deniedFS{path: d}, d)
		}
		cfg = cfg.WithFSConfig(fsCfg)
	}
	for _, kv := range resolveEnv(p.env) {
		k, v, _ := strings.Cut(kv, "=")
		cfg = cfg.WithEnv(k, v)
	}
	if p.clock {
		cfg = cfg.WithSysWalltime().WithSysNanotime().WithSysNanosleep()
	}
	if p.random {
		cfg = cfg.WithRandSource(rand.Reader)
	}
	return cfg, roots, nil
}

type rootSet []*os.Root

func (s rootSet) Close() error {
	for _, r := range s {
		r.Close()
	}
	return nil
}

// EnvGranted reports whether p grants any environment variable, set on the host or not: what
// an instance's start reads of them is the host's environment of that moment.
func (p Profile) EnvGranted() bool { return len(p.env) > 0 }

// Random reports whether instances of p get crypto entropy (the random grant); without it
// random sources are deterministic.
func (p Profile) Random() bool { return p.random }

// Environ is the environment of instances of p, as NAME=value pairs: the env grants, a bare
// NAME taking the host's value (left out when unset). Kinds whose engine does not read WASI's
// environment (JavaScript's process.env) serve it from here.
func (p Profile) Environ() []string { return resolveEnv(p.env) }
