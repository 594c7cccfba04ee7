package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/oauth"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
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
		// The server's requests (sampling, elicitation, roots) reach the client of the
		// gateway call they belong to under the upstream's grants, refused naming the grant
		// otherwise; its log messages and progress reach that client too (upstream.Relay, as
		// for a whole-server guest).
		label := fmt.Sprintf("upstream %q", name)
		var g policy.Grants
		if u.Grants != nil {
			g = *u.Grants
		}
		spec.Relay = &upstream.Relay{Label: label, Sampling: g.Sampling, Elicitation: g.Elicitation, Roots: g.Roots,
			Client: gatewayElicit.client(name)} // elicit.go
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

// exposeUpstreams serves every upstream with expose: true on srv (the gateway): its tools
// and prompts as NAME__tool and NAME__prompt, its resources and resource templates under
// their own URIs (one another owner holds is withheld with a warning), completion/complete
// of its prompts and templates and resources/subscribe of its resources routed to it
// (mcpserver.ExposeOptions.All, as a whole-server guest's). They are re-listed when the
// upstream says a list changed or restarts; its notifications/resources/updated reach every
// client session subscribed to the URI (an upstream is one session for every client). A
// server that cannot be reached at start is retried in the background.
//
// pins (from mcpwasm.lock, ship.go) hold an upstream's tools to their locked definitions;
// an upstream without pins is pinned when first seen. Prompts and resources are not pinned
// (mcpserver/exposeall.go).
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
		// To every session of ours subscribed to the URI (the SDK sends it to none when none
		// is): an upstream is one session for every client. ctx is the upstream client's.
		m.OnResourceUpdated(name, func(ctx context.Context, p *mcp.ResourceUpdatedNotificationParams) {
			_ = srv.ResourceUpdated(ctx, p)
		})
		opts := &mcpserver.ExposeOptions{Logger: logger, AllowHiddenText: u.AllowHiddenText, Names: names, Pins: pins[name], PinnedOnly: pins[name] != nil, All: true,
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
				token, progress := relayProgress(ctx)                         // the client's progress, under its token
				res, err := s.CallToolExact(ctx, tool, args, token, progress) // numbers as the upstream sent them
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
			m.OnListChanged(name, func() {
				if err := e.Refresh(ctx); err != nil && ctx.Err() == nil {
					logger.Warn("gateway: refreshing upstream tools, prompts and resources failed", "upstream", name, "err", err)
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

// exposesUpstreams reports whether the config exposes any upstream (expose: true).
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

// relayProgress returns the progress token to send a server with a call made for the client
// call on ctx, and the function that hands the server's progress to that client under the
// client's own token; none when the client asked for no progress.
func relayProgress(ctx context.Context) (string, func(*mcp.ProgressNotificationParams)) {
	dt := ctx.Value(progressKey{})
	owner, _ := ctx.Value(downstreamKey{}).(*mcp.ServerSession)
	if dt == nil || owner == nil {
		return "", nil
	}
	return upstream.NewProgressToken(), func(p *mcp.ProgressNotificationParams) {
		cp := *p
		cp.ProgressToken = dt
		_ = owner.NotifyProgress(ctx, &cp)
	}
}
