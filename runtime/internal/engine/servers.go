package engine

import (
	"context"
	"fmt"
	"io"

	"github.com/mcpwasm/mcpwasm/runtime/internal/wholeserver"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// Whole-server guests (a WASI command, or a JavaScript bundle with its own SDK) run in
// runtime/internal/wholeserver; the Host checks their configuration as it checks a guest's
// and hands them its logger, network, cache, compile and kill switch (newServers).

// errWASIServer is Load's refusal of a whole-server guest (a WASI command), wrapping ErrABI.
var errWASIServer = fmt.Errorf("%w: module is a whole MCP server (a WASI command: exports _start, imports only wasi_snapshot_preview1); load it with LoadServer", ErrABI)

// newServers is the host's runtime for whole-server guests.
func newServers(h *Host) *wholeserver.Runtime {
	return wholeserver.New(wholeserver.Deps{Logger: h.logger, Net: h.net, Upstreams: h.upstreams, Cache: h.cache,
		Stopped: h.Stopped, Compile: h.compileOn, Rand: func() io.Reader { return &fakeSources{} }, Epoch: fakeEpoch})
}

// IsWASIServer reports whether wasm is a whole-server guest (runtime.Host.IsWASIServer).
func (h *Host) IsWASIServer(wasm []byte) bool { return wholeserver.IsWASIServer(wasm) }

// LoadServer is runtime.Host.LoadServer: cfg is checked as Load checks a guest's (Validate,
// the limits' defaults, the SHA-256 pin, the module size), then wholeserver loads it.
func (h *Host) LoadServer(ctx context.Context, wasm []byte, cfg *GuestConfig) (*wholeserver.Server, error) {
	var c GuestConfig
	if cfg != nil {
		c = *cfg
	}
	src := c.Source
	if src == "" {
		src = "guest module"
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	limits := c.Limits.Merge(policy.DefaultLimits())
	if err := checkSHA256(wasm, c.SHA256, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if err := checkModuleSize(wasm, limits); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	iso, _ := parseIsolation(c.Isolation)
	return h.servers.Load(ctx, wasm, wholeserver.Spec{Name: c.Name, Source: src, Isolation: iso.String(),
		Limits: limits, Grants: c.Grants, Args: c.Args})
}
