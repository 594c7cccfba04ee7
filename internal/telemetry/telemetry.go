// Package telemetry gives a runtime.Host Prometheus metrics and OpenTelemetry traces: it
// implements runtime.Observer, reads runtime.Host.Stats for gauges at scrape time, and serves
// the Prometheus text format. The runtime itself imports neither library.
//
// Metric names follow Prometheus conventions (base units in the name, counters end in
// _total). Label values are bounded: guest and tool names come from loaded guests (a tool the
// guest does not declare is "other"), outcomes from the fixed set of runtime.OutcomeOf, request
// kinds from a capped set of short names ("other" beyond it).
//
// Span names and attributes follow the OpenTelemetry semantic conventions for MCP
// (semantic-conventions-genai, docs/gen-ai/mcp.md; status Development): the tools/call span
// is built by package mcpserver, and this package adds one child span per capability request.
package telemetry

import (
	"context"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Options configure New. Nil means defaults.
type Options struct {
	// TracerProvider makes the capability-request spans. Nil means otel.GetTracerProvider(),
	// a no-op until one is installed (see SetupTracing).
	TracerProvider trace.TracerProvider
	// ProcessMetrics adds the Go runtime and process collectors (go_*, process_*).
	ProcessMetrics bool
}

// Telemetry holds one host's metrics. It implements runtime.Observer; pass it in
// runtime.Options.Observer, then call WatchHost once the host exists. Its methods are safe
// for concurrent use.
type Telemetry struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	requests *prometheus.CounterVec
	denials  *prometheus.CounterVec
	cache    *prometheus.CounterVec
	restarts *prometheus.CounterVec
	tracer   trace.Tracer

	kinds  labelSet
	series sync.Map // callKey → *callSeries

	mu       sync.Mutex
	host     *runtime.Host
	sessions func() int
}

var _ runtime.Observer = (*Telemetry)(nil)

// Buckets of the call duration histogram, in seconds: from 100 µs (a warm call into a small
// guest) to the default 30 s time limit.
var durationBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// New returns a Telemetry with its own registry.
func New(opts *Options) *Telemetry {
	var o Options
	if opts != nil {
		o = *opts
	}
	tp := o.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	t := &Telemetry{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpwasm_tool_calls_total",
			Help: "Tool calls answered, by guest, tool and outcome (ok, tool_error, invalid_arguments, timeout, memory_limit, trap, cancelled, stopped, ...)."},
			[]string{"guest", "tool", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mcpwasm_tool_call_duration_seconds",
			Help: "Duration of tool calls, from the request reaching the server to its answer, in seconds.", Buckets: durationBuckets},
			[]string{"guest", "tool", "outcome"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpwasm_capability_requests_total",
			Help: "Capability requests made by guests (the request host import), by guest, kind and status."},
			[]string{"guest", "kind", "status"}),
		denials: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpwasm_grant_denials_total",
			Help: "Capability requests refused because no grant allows them, by guest and kind."},
			[]string{"guest", "kind"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpwasm_manifest_cache_lookups_total",
			Help: "Look-ups of a module in the manifest cache at load (a hit skips compiling before serving), by result (hit, miss)."},
			[]string{"result"}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpwasm_upstream_restarts_total",
			Help: "Restarts of upstream MCP servers after a crash or a closed connection, by upstream."},
			[]string{"upstream"}),
		tracer: tp.Tracer("github.com/mcpwasm/mcpwasm/runtime"),
		kinds:  labelSet{max: maxKinds},
	}
	t.cache.WithLabelValues("hit")
	t.cache.WithLabelValues("miss")
	t.reg.MustRegister(t.calls, t.duration, t.requests, t.denials, t.cache, t.restarts, gauges{t})
	if o.ProcessMetrics {
		t.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return t
}

// WatchHost makes the gauges report h (instances, memory, stop state); call it once h exists.
func (t *Telemetry) WatchHost(h *runtime.Host) {
	t.mu.Lock()
	t.host = h
	t.mu.Unlock()
}

// WatchSessions makes mcpwasm_sessions_open report count(), e.g. the sessions of an
// mcp.Server.
func (t *Telemetry) WatchSessions(count func() int) {
	t.mu.Lock()
	t.sessions = count
	t.mu.Unlock()
}

// Registry returns the registry holding the metrics, to add more or gather in tests.
func (t *Telemetry) Registry() *prometheus.Registry { return t.reg }

// Handler serves the metrics in the Prometheus text exposition format (or OpenMetrics, if the
// scraper asks for it).
func (t *Telemetry) Handler() http.Handler {
	return promhttp.HandlerFor(t.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// callKey names one series of the call counter and histogram.
type callKey struct {
	guest, tool string
	outcome     string
}

type callSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// CallDone implements runtime.Observer. The series of each (guest, tool, outcome) is looked
// up once and kept: hashing the label values on every call cost more than the count.
func (t *Telemetry) CallDone(guest, tool, outcome string, d time.Duration) {
	k := callKey{guest, tool, outcome}
	v, ok := t.series.Load(k)
	if !ok {
		v, _ = t.series.LoadOrStore(k, &callSeries{t.calls.WithLabelValues(guest, tool, outcome),
			t.duration.WithLabelValues(guest, tool, outcome)})
	}
	s := v.(*callSeries)
	s.count.Inc()
	s.duration.Observe(d.Seconds())
}

// RequestStart implements runtime.Observer: it starts a client span "{kind}" (http, exec,
// mcp.call, …) under the call's span, and counts the request and any denial when it ends.
func (t *Telemetry) RequestStart(ctx context.Context, guest, tool, kind string) func(abi.Status) {
	kind = t.kinds.bound(kind)
	_, span := t.tracer.Start(ctx, kind, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("mcpwasm.guest", guest), attribute.String("gen_ai.tool.name", tool),
			attribute.String("mcpwasm.request.kind", kind)))
	return func(st abi.Status) {
		status := statusLabel(st)
		t.requests.WithLabelValues(guest, kind, status).Inc()
		if st == abi.StatusDenied {
			t.denials.WithLabelValues(guest, kind).Inc()
		}
		span.SetAttributes(attribute.String("mcpwasm.request.status", status))
		if st != abi.StatusOK {
			span.SetStatus(codes.Error, status)
		}
		span.End()
	}
}

// CacheLookup implements runtime.Observer.
func (t *Telemetry) CacheLookup(hit bool) {
	if hit {
		t.cache.WithLabelValues("hit").Inc()
	} else {
		t.cache.WithLabelValues("miss").Inc()
	}
}

// UpstreamRestarted counts one restart of upstream name (a configured server name).
func (t *Telemetry) UpstreamRestarted(name string) {
	t.restarts.WithLabelValues(name).Inc()
}

// statusLabel names an abi.Status in lowercase (ok, denied, not_found, …).
func statusLabel(st abi.Status) string {
	switch st {
	case abi.StatusOK:
		return "ok"
	case abi.StatusDenied:
		return "denied"
	case abi.StatusNotFound:
		return "not_found"
	case abi.StatusTooLarge:
		return "too_large"
	case abi.StatusInvalid:
		return "invalid"
	case abi.StatusTimeout:
		return "timeout"
	case abi.StatusFailed:
		return "failed"
	case abi.StatusCancelled:
		return "cancelled"
	case abi.StatusUnavailable:
		return "unavailable"
	}
	return "other"
}

// maxKinds caps the distinct request kinds used as label values.
const maxKinds = 16

var kindPattern = regexp.MustCompile(`^[a-z][a-z0-9_.]{0,31}$`)

// labelSet admits at most max distinct well-formed values; the rest become "other". A guest
// chooses the request kind it sends, so this keeps a hostile guest from growing the series.
type labelSet struct {
	mu   sync.Mutex
	max  int
	seen map[string]bool
}

func (s *labelSet) bound(v string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[v] {
		return v
	}
	if len(s.seen) >= s.max || !kindPattern.MatchString(v) {
		return "other"
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[v] = true
	return v
}

// gauges reads the host's state at scrape time.
type gauges struct{ t *Telemetry }

var (
	instancesDesc = prometheus.NewDesc("mcpwasm_instances", "Guest instances, by guest and state (busy: running a call; idle: waiting for one).", []string{"guest", "state"}, nil)
	memoryDesc    = prometheus.NewDesc("mcpwasm_linear_memory_bytes", "Linear memory of a guest's instances, in bytes (a busy instance as its call started).", []string{"guest"}, nil)
	guestsDesc    = prometheus.NewDesc("mcpwasm_guest_info", "Loaded guests: always 1, with the guest's version and module sha256 as labels.", []string{"guest", "version", "sha256"}, nil)
	stoppedDesc   = prometheus.NewDesc("mcpwasm_stopped", "1 while the operator's kill switch stops all calls, else 0.", nil, nil)
	sessionsDesc  = prometheus.NewDesc("mcpwasm_sessions_open", "Open MCP sessions.", nil, nil)
)

func (g gauges) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{instancesDesc, memoryDesc, guestsDesc, stoppedDesc, sessionsDesc} {
		ch <- d
	}
}

func (g gauges) Collect(ch chan<- prometheus.Metric) {
	g.t.mu.Lock()
	h, sessions := g.t.host, g.t.sessions
	g.t.mu.Unlock()
	if sessions != nil {
		ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(sessions()))
	}
	if h == nil {
		return
	}
	stopped := 0.0
	if h.Stopped() {
		stopped = 1
	}
	ch <- prometheus.MustNewConstMetric(stoppedDesc, prometheus.GaugeValue, stopped)
	// A guest being reloaded is loaded twice for a moment: its versions are summed.
	type sums struct{ busy, idle, mem float64 }
	by := map[string]*sums{}
	var order []string
	info := map[[3]string]bool{}
	for _, s := range h.Stats() {
		v := by[s.Name]
		if v == nil {
			v = &sums{}
			by[s.Name] = v
			order = append(order, s.Name)
		}
		v.busy += float64(s.Busy)
		v.idle += float64(s.Idle)
		v.mem += float64(s.MemoryBytes)
		info[[3]string{s.Name, s.Version, s.SHA256}] = true
	}
	for _, name := range order {
		v := by[name]
		ch <- prometheus.MustNewConstMetric(instancesDesc, prometheus.GaugeValue, v.busy, name, "busy")
		ch <- prometheus.MustNewConstMetric(instancesDesc, prometheus.GaugeValue, v.idle, name, "idle")
		ch <- prometheus.MustNewConstMetric(memoryDesc, prometheus.GaugeValue, v.mem, name)
	}
	for k := range info {
		ch <- prometheus.MustNewConstMetric(guestsDesc, prometheus.GaugeValue, 1, k[0], k[1], k[2])
	}
}
