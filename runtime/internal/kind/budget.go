package kind

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
)

// Caps on what one report or request of any kind's host functions may cost the host (ABI.md
// §6.6). Every size a guest supplies is checked against them before a byte is copied out of
// linear memory.
const (
	// MaxReportMessage caps a log or progress message copied out of the guest, in bytes.
	MaxReportMessage = 64 << 10
	// MaxRequestKind caps the kind of a capability request, in bytes. Kinds are short names
	// ("http", "mcp.call"); a longer one is TOO_LARGE and never copied.
	MaxRequestKind = 64
	// MaxRequestBody caps the JSON body of a capability request, in bytes (TOO_LARGE).
	MaxRequestBody = 16 << 20
	// MaxReportJSON caps a report passed as JSON (an Extism notify_logging_message or
	// notify_progress, a JavaScript guest's log or progress): a MaxReportMessage text with
	// every byte escaped (up to six each) and its envelope.
	MaxReportJSON = 6*MaxReportMessage + 1024
	// MaxSmallArg caps any other host-call argument (a JavaScript sleep, random or env op).
	MaxSmallArg = 1024

	// Per-call budget of reports — log, progress and resource.updated together: at most
	// CallMessages reports and CallBytes of message text; reports beyond it are dropped. A
	// log handler may escape a byte as up to 6 (\u0000), so this is the raw size, kept small.
	CallMessages = 1000
	CallBytes    = 256 << 10
	// Per-guest rate of reports, shared by all its calls: a token bucket of RateBytes per
	// second with a burst of BurstBytes. A report costs its message length plus ReportCost,
	// so empty messages are rate-limited too.
	RateBytes  = 64 << 10
	BurstBytes = 256 << 10
	ReportCost = 256
)

// Budget counts one entry's log, progress and resource.updated reports and what was
// dropped. The pool keeps one per instance and takes (and resets) it after each entry.
type Budget struct {
	Rate *Rate // the guest's, shared by its instances

	Messages, Bytes int // admitted
	Dropped         int // reports dropped
	DroppedBytes    int // message bytes dropped (as the guest stated the length)
}

// Admit decides whether a report of n message bytes (as stated by the guest, before any
// truncation) goes through, counting it either way.
func (b *Budget) Admit(n uint32) bool {
	sz := int(min(n, MaxReportMessage))
	if b.Messages >= CallMessages || b.Bytes+sz > CallBytes || !b.Rate.take(sz+ReportCost, time.Now()) {
		b.Dropped++
		b.DroppedBytes += int(n)
		return false
	}
	b.Messages++
	b.Bytes += sz
	return true
}

// Take returns the counts of the entry that ended and resets them.
func (b *Budget) Take() Budget {
	out := *b
	b.Messages, b.Bytes, b.Dropped, b.DroppedBytes = 0, 0, 0, 0
	return out
}

// Rate is a guest's token bucket for reports. The zero value is a full bucket.
type Rate struct {
	mu     sync.Mutex
	tokens float64
	last   time.Time
}

func (r *Rate) take(cost int, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last.IsZero() {
		r.tokens = BurstBytes
	} else {
		r.tokens = min(BurstBytes, r.tokens+now.Sub(r.last).Seconds()*RateBytes)
	}
	r.last = now
	if r.tokens < float64(cost) {
		return false
	}
	r.tokens -= float64(cost)
	return true
}

// Output is an entry's bounded output sink, for kinds whose guests push their result
// (Extism output_set) rather than return a region.
type Output struct {
	buf []byte
	max int
}

// Reset empties o and caps it at max bytes. A buffer over 64 KiB is dropped rather than
// kept for the instance's next entry: an idle instance should not hold a large result.
func (o *Output) Reset(max int) {
	if cap(o.buf) > 64<<10 {
		o.buf = nil
	}
	o.buf, o.max = o.buf[:0], max
}

// Set replaces the output with a copy of b, or fails with fault.ErrOutputLimit.
func (o *Output) Set(b []byte) error {
	if len(b) > o.max {
		return fmt.Errorf("%w: result of %s is over %s", fault.ErrOutputLimit, size.Format(uint64(len(b))), size.Format(uint64(o.max)))
	}
	o.buf = append(o.buf[:0], b...)
	return nil
}

// Bytes returns a copy of the output.
func (o *Output) Bytes() []byte { return append([]byte(nil), o.buf...) }

// Arena accounts the host-side bytes a kind keeps for one instance (Extism vars and kernel
// memory). With the instance's linear memory they stay within the memory limit: Grow refuses
// what would pass it, and the instance's memory.grow refuses what Used leaves no room for.
// The kind keeps the bytes themselves; Arena only counts them.
type Arena struct {
	limit  uint64
	used   uint64
	memory func() uint64 // the linear memory's size now
}

// NewArena returns an arena for an instance with memory limit limit (bytes) whose linear
// memory's size memory reports.
func NewArena(limit uint64, memory func() uint64) *Arena {
	return &Arena{limit: limit, memory: memory}
}

// Grow accounts n more bytes, or fails with fault.ErrMemoryLimit leaving the count as it was.
func (a *Arena) Grow(n uint64) error {
	if mem := a.memory(); a.used+n < a.used || mem+a.used+n > a.limit {
		return fmt.Errorf("%w (%s): %s of host-side memory over %s of linear memory", fault.ErrMemoryLimit,
			size.Format(a.limit), size.Format(a.used+n), size.Format(mem))
	}
	a.used += n
	return nil
}

// Shrink gives back n bytes accounted by Grow.
func (a *Arena) Shrink(n uint64) { a.used -= min(n, a.used) }

// Used returns the bytes accounted now.
func (a *Arena) Used() uint64 { return a.used }

// ErrArgTooLarge marks a host-call argument over its cap (CheckArg).
var ErrArgTooLarge = errors.New("host-call argument over its cap")

// CheckArg is the one size check of a host-call argument, made by every kind's host
// functions before the argument is copied out of the guest (its linear memory, an Extism
// kernel block, a JavaScript string): nil when n bytes are within limit (MaxRequestKind,
// MaxRequestBody, MaxReportJSON, MaxSmallArg), else an error wrapping ErrArgTooLarge that
// names what, n and the limit. The kind answers it as TOO_LARGE (ABI.md §6) or ends the call
// with it, and copies nothing. A log or progress message handed over as raw bytes is cut to
// MaxReportMessage instead: only that much is copied.
func CheckArg(what string, n, limit uint64) error {
	if n <= limit {
		return nil
	}
	return argError(fmt.Sprintf("%s of %d bytes is over the cap of %s", what, n, size.Format(limit)))
}

type argError string

func (e argError) Error() string        { return string(e) }
func (e argError) Is(target error) bool { return target == ErrArgTooLarge }
