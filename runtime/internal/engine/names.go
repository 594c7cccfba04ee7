package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/names"
)

// Names a guest declares and the names it is served under. A guest of our ABI is written for
// abi.NamePattern and a name outside it fails the load; a foreign kind's guest (kind.Traits.ForeignNames:
// JavaScript, Extism) follows another ecosystem's rules, so each of its tool and prompt names
// outside the pattern is served as names.MapName maps it — the gateway's rule for upstream
// tools — and the guest is still called with the name it declared.

// ownPrompt is the name the guest declares for the prompt served as name.
func (l *lists) ownPrompt(name string) string {
	if n, ok := l.own["prompt:"+name]; ok {
		return n
	}
	return name
}

// ownComplete returns req (an abi.CompleteRequest as JSON) with a renamed prompt's reference
// spelled as the guest declares it; any other request unchanged.
func (l *lists) ownComplete(req []byte) []byte {
	if len(l.own) == 0 {
		return req
	}
	var r abi.CompleteRequest
	if json.Unmarshal(req, &r) != nil || r.Ref.Type != abi.RefPrompt {
		return req
	}
	own := l.ownPrompt(r.Ref.Name)
	if own == r.Ref.Name {
		return req
	}
	r.Ref.Name = own
	b, err := json.Marshal(&r)
	if err != nil {
		return req
	}
	return b
}

// foreign reports whether g's kind names by another ecosystem's rules
// (kind.Traits.ForeignNames).
func (g *Guest) foreign() bool { return g.kind.t.ForeignNames }

// logRenames logs, once each, the renames in l that old (the lists served before; nil at
// load) did not have: the operator sees which declared name a served one stands for.
func (g *Guest) logRenames(ctx context.Context, l, old *lists) {
	for _, r := range l.renames {
		if old != nil && slices.Contains(old.renames, r) {
			continue
		}
		g.host.logger.LogAttrs(ctx, slog.LevelInfo, "name outside "+abi.NamePattern+" served under a mapped name",
			slog.String("guest", g.name), slog.String(r.What, r.Own), slog.String("served_as", r.Served))
	}
}

// guestNameOf is the name of a guest its config does not name, whose manifest names it
// manifestName: that name, or for a foreign kind one outside abi.NamePattern derived by
// names.DeriveGuestName ("Weather Server" → "weather-server"), which it logs.
func (g *Guest) guestNameOf(ctx context.Context, manifestName string) (string, error) {
	if abi.ValidName(manifestName) || !g.foreign() {
		return manifestName, nil
	}
	d := names.DeriveGuestName(manifestName)
	if d == "" {
		return "", fmt.Errorf("guest name %q does not match %s and has no letter or digit to derive one from: set the guest's name in the config", manifestName, abi.NamePattern)
	}
	g.host.logger.LogAttrs(ctx, slog.LevelInfo, "guest name outside "+abi.NamePattern+" served under a derived name",
		slog.String("name", manifestName), slog.String("guest", d))
	return d, nil
}
