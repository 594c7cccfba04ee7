package engine

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// CallHooks is runtime.CallHooks, documented there: the same fields, so the root converts
// one to the other.
type CallHooks struct {
	Log             func(level abi.Level, msg string)
	Progress        func(progress, total float64, msg string)
	Client          peer.Client
	ResourceUpdated func(uri string)
	Session         any
	RequestID       json.RawMessage
	Meta            func() json.RawMessage
	ListsChanged    func()
}

type hooksKey struct{}

// WithCallHooks implements runtime.WithCallHooks, whose doc comment says what it does.
func WithCallHooks(ctx context.Context, hooks *CallHooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, hooks)
}

func hooksFrom(ctx context.Context) *CallHooks {
	h, _ := ctx.Value(hooksKey{}).(*CallHooks)
	return h
}

// guestHost is the runtime's side of a guest's host functions, whatever its kind
// (kind.Host): slog and the call's hooks for log and progress, the sandbox for requests.
type guestHost struct{ g *Guest }

var _ kind.Host = guestHost{}

// Log implements kind.Host.
func (h guestHost) Log(ctx context.Context, c *kind.Call, level abi.Level, msg string) {
	g := h.g
	sl := slogLevel(level)
	if c.Entry == kind.EntryDescribe && sl > slog.LevelInfo {
		// What a guest logs while it starts or describes itself, outside any call, is its
		// top-level output: a script's `console.error("… running on stdio")` banner, which
		// the SDK's examples print to stderr because stdout is the protocol under Node. It
		// is news, not an error of a call: info, with the guest's own level kept in "level".
		sl = slog.LevelInfo
	}
	if g.name == "" && len(g.pools) > 0 {
		// The instance that describes the guest logs before its manifest names it (a
		// script's top-level console.error): the line waits for the name (pool.note).
		g.pools[0].note(ctx, "", sl, "guest log", slog.String("tool", c.Tool), slog.String("level", level.String()), slog.String("msg", msg))
	} else {
		g.host.logger.Log(ctx, sl, "guest log", "guest", g.name, "tool", c.Tool, "level", level.String(), "msg", msg)
	}
	if hk := hooksFrom(ctx); hk != nil && hk.Log != nil {
		hk.Log(level, msg)
	}
}

// Progress implements kind.Host.
func (h guestHost) Progress(ctx context.Context, _ *kind.Call, progress, total float64, msg string) {
	if hk := hooksFrom(ctx); hk != nil && hk.Progress != nil {
		hk.Progress(progress, total, msg)
	}
}

// Request implements kind.Host: one request import call (ABI.md §6.1) through the sandbox of
// the entry (kind.Call.Sandbox): a tool call's tool's grants; a prompt's, a read's or a
// completion's guest grants; the start's and describe's start grants (ABI.md §6.7). The
// observer sees it; Stop and Close cancel it.
func (h guestHost) Request(ctx context.Context, c *kind.Call, rkind string, body []byte) (abi.Status, []byte) {
	g := h.g
	inst, _ := c.Instance.(*instance)
	if inst == nil {
		return abi.StatusUnavailable, sandbox.ErrorBody("request outside a tool call")
	}
	end := g.host.observeRequest(ctx, c, rkind) // observe.go
	rctx, done := inst.intr.RequestContext(ctx) // also cancelled by Stop and Close
	var st abi.Status
	var resp []byte
	switch {
	case c.Entry == kind.EntryTool && rkind == abi.KindResourceUpdated: // no grant: the guest's own resources
		st, resp = g.resourceUpdated(rctx, c, body)
	case c.Sandbox != nil && rkind != abi.KindResourceUpdated:
		if hk := hooksFrom(ctx); hk != nil && hk.Client != nil {
			rctx = sandbox.WithClient(rctx, hk.Client)
		}
		st, resp = c.Sandbox.Request(rctx, rkind, body)
	default:
		st, resp = abi.StatusUnavailable, sandbox.ErrorBody("request outside a tool call")
	}
	done()
	if end != nil {
		end(st)
	}
	return st, resp
}
