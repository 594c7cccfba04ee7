package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/oauth"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/upstream"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newUpstreams returns a Manager for the config's upstream MCP servers, or nil when there are
// none. Nothing starts until a guest (or the gateway) first uses a server.
// onRestart is called when a server is started again (metrics).
func newUpstreams(cfg *config.Config, logger *slog.Logger, onRestart func(name string)) *upstream.Manager {
	if cfg == nil || len(cfg.Upstreams) == 0 {
		return nil
	}
	specs := map[string]upstream.Spec{}
	for name, u := range cfg.Upstreams {
		spec := upstream.Spec{Command: u.Command, URL: u.URL, Headers: u.Headers, Env: u.Env}
		if u.Expose {
			spec.Elicit = gatewayElicit.handler(name) // elicit.go
		}
		if u.URL != "" {
			spec.OAuth = upstreamOAuth(name, u, logger) // auth.go
			if spec.OAuth != nil {
				spec.WrapTransport = oauth.WrapTransport(spec.OAuth)
			}
		}
		specs[name] = spec
	}
	return upstream.NewManager(specs, &upstream.Options{Version: version(), Logger: logger, OnRestart: onRestart})
}

// allowHiddenText names the loaded guests whose config entry has allow_hidden_text: they may
// serve tools whose text hides characters. cfg.Guests[i] was loaded as gs[i] (config guests
// come first).
func allowHiddenText(cfg *config.Config, gs []*runtime.Guest) []string {
	var names []string
	if cfg != nil {
		for i, g := range cfg.Guests {
			if g.AllowHiddenText && i < len(gs) {
				names = append(names, gs[i].Name())
			}
		}
	}
	return names
}

// guestTasks is the config's task caps ("tasks" of a guest and of its tools), by guest name.
func guestTasks(cfg *config.Config, gs []*runtime.Guest) map[string]mcpserver.TaskCaps {
	caps := map[string]mcpserver.TaskCaps{}
	if cfg == nil {
		return caps
	}
	for i, g := range cfg.Guests {
		if i >= len(gs) {
			break
		}
		c := mcpserver.TaskCaps{Max: g.Tasks}
		for name, t := range g.Tools {
			if t.Tasks != "" {
				if c.Tools == nil {
					c.Tools = map[string]string{}
				}
				c.Tools[name] = t.Tasks
			}
		}
		if c.Max != "" || c.Tools != nil {
			caps[gs[i].Name()] = c
		}
	}
	return caps
}

// exposeUpstreams serves the tools of every upstream with expose: true on srv as NAME__tool
// (the gateway), re-listing them when the upstream says they changed or restarts. A server
// that cannot be reached at start is retried in the background.
//
// pins (from mcpwasm.lock, ship.go) hold an upstream's tools to their locked definitions;
// an upstream without pins is pinned when first seen.
func exposeUpstreams(ctx context.Context, wg *sync.WaitGroup, srv *mcp.Server, m *upstream.Manager, cfg *config.Config, names *mcpserver.NameSet, pins map[string]map[string]mcpserver.ToolPin, logger *slog.Logger) {
	if m == nil {
		return
	}
	srv.AddReceivingMiddleware(downstreamSession) // for gatewayElicit
	gatewayElicit.logger = logger
	for _, name := range m.Names() {
		u := cfg.Upstreams[name]
		if !u.Expose {
			continue
		}
		opts := &mcpserver.ExposeOptions{Logger: logger, AllowHiddenText: u.AllowHiddenText, Names: names, Pins: pins[name], PinnedOnly: pins[name] != nil,
			ListTools: func(ctx context.Context) ([]*mcp.Tool, map[string]string, error) {
				s, err := m.Session(ctx, name)
				if err != nil {
					return nil, nil, err
				}
				return s.AllToolsTaskSupport(ctx)
			},
			Session: func(ctx context.Context) (*mcp.ClientSession, error) {
				s, err := m.Session(ctx, name)
				if err != nil {
					return nil, err
				}
				return s.ClientSession, nil
			},
			CallTool: func(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
				ctx, release := gatewayElicit.track(ctx, name)
				defer release()
				s, err := m.Session(ctx, name)
				if err != nil {
					return nil, err
				}
				res, err := s.CallToolExact(ctx, tool, args, "", nil) // numbers as the upstream sent them
				if err != nil {
					return nil, err
				}
				return res.CallToolResult, nil
			}}
		expose := func() bool {
			e, err := mcpserver.Expose(ctx, srv, name, nil, opts)
			if err != nil {
				logger.Warn("gateway: exposing upstream failed", "upstream", name, "err", err)
				return false
			}
			m.OnToolsChanged(name, func() {
				if err := e.Refresh(ctx); err != nil && ctx.Err() == nil {
					logger.Warn("gateway: refreshing upstream tools failed", "upstream", name, "err", err)
				}
			})
			return true
		}
		// The first attempt completes before serving starts, so the first tools/list has the
		// upstream's tools; a server that is down is retried in the background.
		if expose() {
			continue
		}
		wg.Go(func() {
			for delay := time.Second; ; delay = min(2*delay, time.Minute) {
				logger.Info("gateway: retrying upstream", "upstream", name, "in", delay)
				select {
				case <-time.After(delay):
				case <-ctx.Done():
					return
				}
				if expose() {
					return
				}
			}
		})
	}
}

// exposesUpstreams reports whether the config exposes any upstream's tools (expose: true).
func exposesUpstreams(cfg *config.Config) bool {
	if cfg == nil {
		return false
	}
	for _, u := range cfg.Upstreams {
		if u.Expose {
			return true
		}
	}
	return false
}
