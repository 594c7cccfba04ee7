package engine

import (
	"context"
	"log/slog"
)

// The caps on what one host-import call may cost, the per-call report budget and the
// per-guest report rate are kind.MaxReportMessage, kind.Budget and kind.Rate: every kind's
// host functions pass through them (runtime/internal/kind/budget.go).

// logDropped writes one summary line for a call whose log or progress reports were dropped,
// and resets the budget. The caller must hold inst.
func (g *Guest) logDropped(ctx context.Context, inst *instance, name string) {
	b := inst.budget.Take()
	if b.Dropped == 0 {
		return
	}
	g.host.logger.LogAttrs(ctx, slog.LevelWarn, "guest log, progress and resource.updated reports dropped",
		slog.String("guest", g.name), slog.String("tool", name),
		slog.Int("dropped", b.Dropped), slog.Int("dropped_bytes", b.DroppedBytes),
		slog.Int("delivered", b.Messages))
}
