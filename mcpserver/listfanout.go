package mcpserver

import (
	"context"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwasm/mcpwasm/abi"
)

// List changes and their notifications (MCP "Tools › List Changed Notification", and the
// same for prompts and resources).
//
//   - refreshGuest registers again only the lists of a guest that changed (onlyChanged), so
//     the SDK sends notifications/tools/list_changed when the tools changed, and not
//     prompts/ or resources/list_changed with it.
//   - The SDK sends each list_changed to every session and logs a WARN for each one a session
//     cannot take (a 2025-11-25 HTTP session without a GET stream: "rejected by transport"):
//     1000 such sessions made 1000 lines per list per change. listChangedLog takes those
//     failures from the SDK and logs one line per change (the changes the SDK sends within
//     listChangedWindow of each other), with how many sessions missed each list.

// listChangedWindow gathers the failed list_changed sends of one change into one log line.
const listChangedWindow = 250 * time.Millisecond

// onlyChanged clears from v the lists that are the same in old (what s serves for the guest)
// and v.m (what it lists now), so that registering v again leaves them — and their
// list_changed notification — alone. Resources and templates are one list for MCP
// (resources/list_changed).
func onlyChanged(v *manifestValues, old *abi.Manifest) {
	next := *v.m
	if reflect.DeepEqual(old.Tools, next.Tools) {
		v.tools, v.taskSupport = nil, nil
	}
	if reflect.DeepEqual(old.Prompts, next.Prompts) {
		next.Prompts = nil
	}
	if reflect.DeepEqual(old.Resources, next.Resources) && reflect.DeepEqual(old.ResourceTemplates, next.ResourceTemplates) {
		next.Resources, next.ResourceTemplates = nil, nil
	}
	v.m = &next
}

// listChangedLog is a sending middleware that keeps list_changed failures out of the SDK's
// per-session WARN and logs them together.
type listChangedLog struct {
	logger *slog.Logger

	mu      sync.Mutex
	missed  map[string]int // method → sessions that did not take it
	reason  string         // the first failure
	pending bool           // a flush is scheduled
}

func (l *listChangedLog) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err == nil || !strings.HasPrefix(method, "notifications/") || !strings.HasSuffix(method, "/list_changed") {
			return res, err
		}
		l.mu.Lock()
		if l.missed == nil {
			l.missed = map[string]int{}
		}
		l.missed[method]++
		if l.reason == "" {
			l.reason = "calling " + method + ": " + err.Error()
		}
		if !l.pending {
			l.pending = true
			time.AfterFunc(listChangedWindow, l.flush)
		}
		l.mu.Unlock()
		return res, nil // a notification is best effort: logged once, in flush
	}
}

// flush logs the failures gathered since the last flush in one line.
func (l *listChangedLog) flush() {
	l.mu.Lock()
	missed, reason := l.missed, l.reason
	l.missed, l.reason, l.pending = nil, "", false
	l.mu.Unlock()
	attrs := []any{}
	for _, m := range slices.Sorted(maps.Keys(missed)) {
		attrs = append(attrs, strings.TrimPrefix(m, "notifications/"), missed[m])
	}
	attrs = append(attrs, "first_reason", reason)
	l.logger.Info("list change not delivered to some sessions (those without a stream to take it, such as an HTTP session without its GET stream); sessions by list", attrs...)
}
