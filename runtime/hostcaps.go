package runtime

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Caps on what one host-import call may cost the host (ABI.md §6.6). Every size a guest
// supplies is checked against them before a byte is copied out of linear memory.
const (
	// maxRequestKind caps the kind of a request import call, in bytes. Kinds are short
	// names ("http", "mcp.call"); a longer one is TOO_LARGE and never copied.
	maxRequestKind = 64
	// maxRequestBody caps the JSON body of a request import call, in bytes (TOO_LARGE).
	maxRequestBody = 16 << 20

	// Per-call budget of reports — log, progress and resource.updated together: at most logCallMessages
	// reports and logCallBytes of message text; reports beyond it are dropped. A log handler
	// may escape a byte as up to 6 (\u0000), so this is the raw size, kept small.
	logCallMessages = 1000
	logCallBytes    = 256 << 10
	// Per-guest rate of log and progress reports, shared by all its calls: a token bucket of
	// logRateBytes per second with a burst of logBurstBytes. A report costs its message
	// length plus logReportCost, so empty messages are rate-limited too.
	logRateBytes  = 64 << 10
	logBurstBytes = 256 << 10
	logReportCost = 256
)

// callBudget counts one call's log and progress reports and what was dropped. It belongs to
// the instance running the call and is reset when a call starts.
type callBudget struct {
	messages, bytes int // admitted
	dropped         int // reports dropped
	droppedBytes    int // message bytes dropped (as the guest stated the length)
}

// logBucket is a guest's token bucket for log and progress reports.
type logBucket struct {
	mu     sync.Mutex
	tokens float64
	last   time.Time
}

func (b *logBucket) take(cost int, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.last.IsZero() {
		b.tokens = logBurstBytes
	} else {
		b.tokens = min(logBurstBytes, b.tokens+now.Sub(b.last).Seconds()*logRateBytes)
	}
	b.last = now
	if b.tokens < float64(cost) {
		return false
	}
	b.tokens -= float64(cost)
	return true
}

// admitReport decides whether a log or progress report of n message bytes (as stated by the
// guest, before any truncation) goes through, counting it either way.
func (inst *instance) admitReport(n uint32) bool {
	b := &inst.budget
	size := int(min(n, maxImportMessage))
	if b.messages >= logCallMessages || b.bytes+size > logCallBytes ||
		!inst.g.logRate.take(size+logReportCost, time.Now()) {
		b.dropped++
		b.droppedBytes += int(n)
		return false
	}
	b.messages++
	b.bytes += size
	return true
}

// logDropped writes one summary line for a call whose log or progress reports were dropped,
// and resets the budget. The caller must hold inst.
func (g *Guest) logDropped(ctx context.Context, inst *instance, name string) {
	b := inst.budget
	inst.budget = callBudget{}
	if b.dropped == 0 {
		return
	}
	g.host.logger.LogAttrs(ctx, slog.LevelWarn, "guest log, progress and resource.updated reports dropped",
		slog.String("guest", g.name), slog.String("tool", name),
		slog.Int("dropped", b.dropped), slog.Int("dropped_bytes", b.droppedBytes),
		slog.Int("delivered", b.messages))
}
