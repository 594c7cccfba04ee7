package runtime

import (
	"crypto/rand"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

// profile is what an instance is built with: the WASI-level grants (fs, env, clock, random)
// and the memory limit. They are fixed at instantiation, so tools whose effective grants
// differ there get instances of their own: each distinct profile has its own pool.
type profile struct {
	fs     []FSGrant
	env    []string
	clock  bool
	random bool
	memory uint64
}

func profileOf(eff Grants, memory uint64) profile {
	return profile{fs: eff.FS, env: eff.Env, clock: eff.Clock, random: eff.Random, memory: memory}
}

// mounts opens the profile's fs grants as rooted file systems. The caller closes the roots.
func (p profile) mounts() ([]*os.Root, wazero.FSConfig, error) {
	var roots []*os.Root
	cfg := wazero.NewFSConfig()
	for _, f := range p.fs {
		root, err := os.OpenRoot(f.Host)
		if err != nil {
			for _, r := range roots {
				r.Close()
			}
			return nil, nil, fmt.Errorf("fs %q: %w", f.Guest, err)
		}
		roots = append(roots, root)
		cfg = cfg.(sysfs.FSConfig).WithSysFSMount(&rootFS{root: root, rw: f.RW}, f.Guest)
	}
	return roots, cfg, nil
}

// moduleConfig applies the profile to a module config.
func (p profile) moduleConfig(cfg wazero.ModuleConfig, fs wazero.FSConfig) wazero.ModuleConfig {
	if len(p.fs) > 0 {
		cfg = cfg.WithFSConfig(fs)
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
	return cfg
}

func (p profile) equal(q profile) bool {
	return p.memory == q.memory && p.clock == q.clock && p.random == q.random &&
		slices.Equal(p.env, q.env) && slices.Equal(p.fs, q.fs)
}
