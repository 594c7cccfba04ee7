package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/served"
)

// relistAfter runs after an entry of inst (not a describe) that reported its guest's lists
// changed: it reads them again in inst — the instance holding the state that changed them —
// under a fresh guest time limit, and serves them if they differ. It reports whether they
// did, and whether inst may be kept. One entry causes one relist however many reports it
// made; reports made while the lists are read again are ignored, so a guest cannot make the
// host re-list in a loop. A failure keeps the lists as they were and is logged.
func (g *Guest) relistAfter(ctx context.Context, inst *instance) (changed, healthy bool) {
	what := inst.call.ListsChanged
	inst.call.ListsChanged = 0
	if inst.intr.Disarm() != 0 { // interrupted as the entry returned: the instance goes
		return false, false
	}
	inst.intr.Arm(ctx, g.host.watch.Now()+g.limits.Timeout, 0)
	changed, err := g.relist(ctx, inst)
	if err != nil {
		g.host.logger.LogAttrs(ctx, slog.LevelWarn, "guest reported its lists changed; reading them again failed, it keeps serving the old ones",
			slog.String("guest", g.name), slog.String("lists", listNames(what)), slog.String("reason", err.Error()))
		var ce *CallError
		return false, errors.As(err, &ce) // a check failed: the instance is sound
	}
	if changed {
		m := g.Manifest()
		g.host.logger.LogAttrs(ctx, slog.LevelInfo, "guest lists changed",
			slog.String("guest", g.name), slog.String("lists", listNames(what)),
			slog.Int("tools", len(m.Tools)), slog.Int("prompts", len(m.Prompts)), slog.Int("resources", len(m.Resources)+len(m.ResourceTemplates)))
	}
	return changed, true
}

// relist reads g's manifest in inst and, if it differs from the one served, derives and
// stores new lists. An error from the guest is returned as it is (the instance is suspect); a
// manifest the checks refuse is returned as a *CallError (the instance is fine).
func (g *Guest) relist(ctx context.Context, inst *instance) (bool, error) {
	g.relistMu.Lock()
	defer g.relistMu.Unlock()
	limits := g.limits
	limits.OutputBytes = min(limits.ManifestBytes, limits.OutputBytes)
	raw, err := inst.enter(ctx, kind.EntryDescribe, "", nil, limits, g.start)
	if errors.Is(err, ErrOutputLimit) {
		return false, fmt.Errorf("the lists are over the manifest limit of %s (%w)", size.Format(uint64(limits.OutputBytes)), err)
	}
	if err != nil {
		return false, err
	}
	refuse := func(err error) (bool, error) {
		return false, &CallError{Guest: g.name, Op: abi.ExportDescribe, Err: err}
	}
	m, err := g.decodeManifest(raw)
	if err != nil {
		return refuse(err)
	}
	m, _ = served.Hide(m, g.gc.HideTools) // runtime/internal/served
	m, own, renames, err := served.Names(m, g.gc.ToolPrefix, g.foreign())
	if err != nil {
		return refuse(err)
	}
	old := g.lists()
	a, _ := json.Marshal(&old.manifest)
	b, _ := json.Marshal(m)
	if bytes.Equal(a, b) {
		return false, nil
	}
	l, err := g.buildLists(m, own, &g.gc, inst.mod.ExportedFunctionDefinitions(), false)
	if err != nil {
		return refuse(err)
	}
	l.renames = renames
	g.logRenames(ctx, l, old)
	g.cur.Store(l)
	return true, nil
}

// listNames names a set of lists for the log: "tools, prompts".
func listNames(l kind.Lists) string {
	var s []byte
	for _, n := range []struct {
		bit  kind.Lists
		name string
	}{{kind.ListTools, "tools"}, {kind.ListPrompts, "prompts"}, {kind.ListResources, "resources"}} {
		if l&n.bit != 0 {
			if len(s) > 0 {
				s = append(s, ", "...)
			}
			s = append(s, n.name...)
		}
	}
	return string(s)
}
