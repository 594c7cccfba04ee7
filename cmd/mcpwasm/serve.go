package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/mcpwasm/mcpwasm/internal/gctune"
	"io"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/stdio"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/mcpserver/codemode"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/upstream"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve is `mcpwasm serve`, in steps: flags (parseServeFlags), config and guest sources
// (readConfig), host (startHost), guests (loadGuests), MCP server (newServer), transports
// (runTransports). Each step returns the exit code of its failure; what a step starts is
// stopped, in reverse order, when serve returns (serving.close).
func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	o, code, err := parseServeFlags(args, stderr)
	if err != nil {
		return code, err
	}
	gctune.Start() // a small live heap collected every few calls otherwise (internal/gctune)
	s := &serving{o: o}
	defer s.close()
	if code, err := s.readConfig(ctx, stderr); err != nil {
		return code, err
	}
	if code, err := s.startHost(ctx); err != nil {
		return code, err
	}
	// Every goroutine serve starts is joined before it returns (and before the host closes).
	signalled := ctx // done on SIGINT/SIGTERM
	ctx, cancel := context.WithCancel(ctx)
	s.onClose(func() { cancel(); s.wg.Wait() })
	if code, err := s.loadGuests(ctx); errors.Is(err, errStopped) {
		return ExitOK, nil // asked to stop (SIGINT/SIGTERM) while loading: not a failure
	} else if err != nil {
		return code, err
	}
	if code, err := s.newServer(ctx); err != nil {
		return code, err
	}
	return s.runTransports(ctx, signalled, stdin, stdout, stderr)
}

// serveOptions are serve's flags, parsed and checked.
type serveOptions struct {
	host    hostFlags
	http    httpFlags
	ship    shipFlags
	maxLine int
	watch   bool
	lazy    bool
	prewarm bool
	status  bool
	code    bool // --code-mode: serve code mode's tool (mcpserver/codemode)
	idle    time.Duration
	// stopFile is the operator's kill switch file; metricsAddr the address of GET /metrics.
	stopFile, metricsAddr string
	paths                 []string // the guest modules named on the command line
}

// parseServeFlags reads serve's flags (before, between or after the module arguments:
// parseArgs) and rejects bad values before anything is loaded: ExitUsage, or
// ExitPublicNoToken for --http on a public address without a token.
func parseServeFlags(args []string, stderr io.Writer) (*serveOptions, int, error) {
	o := &serveOptions{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o.host.register(fs)
	fs.IntVar(&o.maxLine, "max-line-bytes", stdio.DefaultMaxLineBytes, "largest accepted MCP message line, in bytes")
	o.http.register(fs)
	o.ship.register(fs)
	fs.BoolVar(&o.watch, "watch", false, "reload a guest when its file changes (tools/list_changed is sent; a failed reload keeps the old version)")
	fs.StringVar(&o.stopFile, "stop-file", "", "operator kill switch: while this file exists, calls are stopped and refused (SIGUSR1/SIGUSR2 work too)")
	fs.BoolVar(&o.lazy, "lazy", true, "serve a guest whose manifest is cached before compiling it; it compiles in the background and a failure there becomes a tool error (false: compile and describe every guest first, exit 3 on failure)")
	fs.BoolVar(&o.prewarm, "prewarm", true, "over stdio, make the first instance of the first two guests (its start run with its grants) as soon as its code is compiled, while the client initializes, instead of at its first call; an unused one is closed after --idle-timeout like any idle instance")
	fs.BoolVar(&o.code, "code-mode", false, "serve one tool, run_code, that runs a TypeScript or JavaScript program against the served tools in a fresh sandbox per run (docs/code-mode.md); the config's \"code_mode\" sets its name, allowlist and budgets")
	fs.BoolVar(&o.status, "status", false, "serve the resource mcpwasm://status and the tools mcpwasm_status and mcpwasm_stop (engages the kill switch; resuming stays SIGUSR2 or --stop-file) to MCP clients; the config's \"status\": true does too")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at GET /metrics on ADDR (\":9464\" binds 127.0.0.1:9464); with --http they are also at /metrics there")
	fs.DurationVar(&o.idle, "idle-timeout", 0, "close guest instances idle longer than this (0: the config's idle_timeout_ms, else 60s; negative: never)")
	paths, err := parseArgs(fs, args) // flagparse.go
	if err != nil {
		return nil, ExitUsage, err
	}
	o.paths = paths
	if err := o.host.validate(); err != nil {
		return nil, ExitUsage, err
	}
	if o.maxLine < 0 {
		return nil, ExitUsage, fmt.Errorf("--max-line-bytes %d: must be positive (0 means the default)", o.maxLine)
	}
	if err := o.http.guard.validate(); err != nil {
		return nil, ExitUsage, err
	}
	if o.http.addr != "" {
		if err := checkPublicHTTP(o.http.addr, o.http.token(), o.http.tokenEnv, o.http.guard.allowPublic); err != nil {
			if o.host.config == "" {
				return nil, ExitPublicNoToken, err // before loading anything (httpguard.go)
			}
			o.http.publicErr = err // unless the config's http_auth protects it (readConfig)
		}
	}
	return o, ExitOK, nil
}

// serving is what serve has started so far, each step adding to it.
type serving struct {
	o      *serveOptions
	logger *slog.Logger

	cfg   *config.Config // nil without --config
	specs []guestSpec    // the guests to load, in order (readConfig)

	obs *observability
	ups *upstream.Manager // nil: the config names no upstream servers
	h   *runtime.Host
	cm  *codemode.Mode // nil: code mode is off

	gs      []*runtime.Guest // specs[i] loaded (loadGuests)
	servers []serverGuest    // whole-server guests (WASI commands), not in specs (wasiservers.go)
	ready   *readiness       // GET /readyz (http.go)

	srv      *mcp.Server
	names    *mcpserver.NameSet // the one registry of tool names: guests, reloads, the gateway
	stateKey []byte             // mcpserver.Options.RequestStateKey
	tools    int                // tools served (withheld ones not counted)

	wg     sync.WaitGroup // serve's goroutines, joined before the host closes
	closes []func()       // run in reverse by close
}

// onClose runs f when serve returns, before what was registered earlier.
func (s *serving) onClose(f func()) { s.closes = append(s.closes, f) }

// close stops what the steps started, last first.
func (s *serving) close() {
	for i := len(s.closes) - 1; i >= 0; i-- {
		s.closes[i]()
	}
}

// readConfig makes the logger and gathers the guests to load: the config's (fetched or read
// from the store as ship.go says), the command line's, or the bundled ones.
func (s *serving) readConfig(ctx context.Context, stderr io.Writer) (int, error) {
	o := &s.o.host
	logger, err := o.logger(stderr)
	if err != nil {
		return ExitUsage, err
	}
	s.logger = logger
	// --watch compares a file's bytes with the loaded ones, so it reads them up front; the
	// isolation mode was validated by parseServeFlags.
	if s.specs, s.cfg, err = guestSpecs(ctx, &s.o.ship, stderr, o.config, s.o.paths, o.limits(), o.isolation, s.o.watch); err != nil {
		return ExitLoad, err
	}
	if s.o.http.publicErr != nil && (s.cfg == nil || s.cfg.HTTPAuth == nil) {
		return ExitPublicNoToken, s.o.http.publicErr
	}
	if s.cfg != nil && s.cfg.HTTPAuth != nil && s.o.http.addr != "" {
		s.o.http.auth = resourceServer(s.cfg.HTTPAuth, s.o.http.token(), logger) // http.go
		if err := s.o.http.auth.Validate(); err != nil {
			return ExitUsage, err
		}
	}
	return ExitOK, nil
}

// startHost sets up metrics and tracing, the upstream servers (started when first used) and
// the runtime host.
func (s *serving) startHost(ctx context.Context) (int, error) {
	hf := &s.o.host
	hf.lazy, hf.idleTimeout = s.o.lazy, s.o.idle
	if hf.idleTimeout == 0 && s.cfg != nil {
		hf.idleTimeout = time.Duration(s.cfg.IdleTimeoutMS) * time.Millisecond
	}
	obs, err := newObservability(ctx, s.o.http.addr != "" || s.o.metricsAddr != "") // observe.go
	if err != nil {
		return ExitUsage, err
	}
	s.obs = obs
	s.onClose(obs.close)
	if obs.tel != nil {
		hf.observer = obs.tel
	}
	s.ups = newUpstreams(s.cfg, s.logger, obs.upstreamRestarted) // started lazily (upstreams.go)
	if s.ups != nil {
		s.onClose(func() { s.ups.Close() })
		hf.upstreams = s.ups
	}
	if cmc := codeModeConfig(s.o.code, s.cfg); cmc.Enabled {
		s.cm = codemode.New(cmc, hf.upstreams)
		hf.upstreams = s.cm.Upstreams()
	}
	if s.h, err = hf.host(ctx, s.logger); err != nil {
		return ExitError, err
	}
	s.onClose(func() { s.h.Close(context.Background()) })
	if obs.tel != nil {
		obs.tel.WatchHost(s.h)
	}
	return ExitOK, nil
}

// errStopped is loadGuests' answer when serve was asked to stop while loading.
var errStopped = errors.New("stopped while loading")

// loadGuests loads every guest (errStopped if ctx ends meanwhile); with --lazy a guest whose manifest is cached compiles in the
// background, and readiness reports when all have.
func (s *serving) loadGuests(ctx context.Context) (int, error) {
	specs, servers, cfg, err := loadServers(ctx, s.h, s.specs, s.cfg, s.logger) // wasiservers.go
	if err != nil {
		return ExitLoad, err
	}
	s.specs, s.servers, s.cfg = specs, servers, cfg
	if s.o.prewarm && s.o.http.addr == "" {
		// The guests prewarm readies keep the code their background compile makes: it starts
		// during the load and may end before prewarm asks for it (runtime.GuestConfig.KeepCode).
		for i := range s.specs[:min(len(s.specs), prewarmGuests)] {
			if s.specs[i].cfg == nil {
				s.specs[i].cfg = &runtime.GuestConfig{}
			}
			s.specs[i].cfg.KeepCode = true
		}
	}
	s.onClose(func() {
		for _, srv := range servers {
			_ = srv.Close(context.Background())
		}
	})
	gs, err := loadAll(ctx, s.h, s.specs, s.logger)
	if err != nil {
		if ctx.Err() != nil {
			return ExitOK, errStopped
		}
		return ExitLoad, err
	}
	s.gs = gs
	// Loading decodes and rewrites whole modules; hand that garbage back to the OS now rather
	// than letting an idle server sit on it — once the background compiles of lazily loaded
	// guests are done, so the first tools/list need not wait for it.
	s.ready = newReadiness()
	go func() {
		var first error
		for _, g := range gs {
			// A failure is logged by the runtime and answered by the guest's tools.
			if err := g.Ready(ctx); err != nil && first == nil {
				first = fmt.Errorf("guest %s: %w", g.Name(), err)
			}
		}
		s.ready.loaded(first)
		debug.FreeOSMemory()
	}()
	if s.o.prewarm && s.o.http.addr == "" {
		s.wg.Go(func() { prewarm(ctx, gs, s.logger) })
	}
	for _, g := range gs {
		if missing := g.Ungranted(); len(missing) > 0 {
			s.logger.Warn("requested capabilities not granted", "guest", g.Name(), "missing", strings.Join(missing, "; "))
		}
	}
	return ExitOK, nil
}

// prewarmGuests bounds how many guests prewarm readies: each holds its compiled code and one
// instance until the idle timeout, which a server of many guests should not pay at every
// start (RATIONALE, "Why drop a guest's code after the background compile?"); a server of one
// or two — an npm server, the bundled calc and text — answers its first call without waiting
// for a start.
const prewarmGuests = 2

// prewarm makes the first instance of the first prewarmGuests guests ahead of their first
// call (serve --prewarm, on by default over stdio, where one client is about to call): the
// start of an npm server's script is most of its first call (bench/npmstart). One guest at a
// time, leaving the other core to the session. A failure is logged at debug only: the first
// call meets it again and reports it.
func prewarm(ctx context.Context, gs []*runtime.Guest, logger *slog.Logger) {
	for _, g := range gs[:min(len(gs), prewarmGuests)] {
		if err := g.Prewarm(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			logger.Debug("prewarm: the guest's first instance was not made ahead of its first call", "guest", g.Name(), "err", err)
		}
	}
}

// newServer builds the MCP server of the loaded guests: tools changed since the lock are
// withheld; --status, --metrics-addr and the gateway's exposed upstreams are added.
func (s *serving) newServer(ctx context.Context) (int, error) {
	cfg, logger := s.cfg, s.logger
	s.names = &mcpserver.NameSet{}
	var err error
	if s.stateKey, err = requestStateKey(cfg); err != nil {
		return ExitUsage, err
	}
	sopts := &mcp.ServerOptions{Logger: sdkLogger(logger)}
	if exposesUpstreams(cfg) || len(s.servers) > 0 {
		// Tools of an exposed upstream arrive after initialize (or never, while it is down):
		// declare tools (with listChanged) from the start, so that a client heeds the
		// notifications/tools/list_changed sent when they come (MCP "Server Features › Tools").
		sopts.Capabilities = &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{},
			Tools: &mcp.ToolCapabilities{ListChanged: true}}
		if exposesUpstreams(cfg) { // and its prompts and resources, for the same reason
			sopts.Capabilities.Prompts = &mcp.PromptCapabilities{ListChanged: true}
			sopts.Capabilities.Resources = &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true}
		}
	}
	status := s.o.status || cfg != nil && cfg.Status
	// Every clash of tool names at once, in inspect's words (clashes.go); NewServer would
	// refuse the first.
	if err := toolNameClashes(s.gs, status); err != nil {
		return ExitLoad, err
	}
	allowed := allowHiddenText(cfg, s.gs)
	name, ver := serverInfo(s.gs, status || exposesUpstreams(cfg))
	s.srv, err = mcpserver.NewServer(s.gs, &mcpserver.Options{Name: name, Version: ver, Completions: len(s.servers) > 0 || exposesUpstreams(cfg),
		ServerOptions: sopts, AllowHiddenText: allowed, Logger: logger, Names: s.names,
		TracerProvider: s.obs.tp, RequestStateKey: s.stateKey, GuestTasks: guestTasks(cfg, s.gs), Tasks: taskOptions(cfg)})
	if err != nil {
		return ExitLoad, err
	}
	srv := s.srv
	s.onClose(func() { // before the host closes (registered earlier)
		ctx, cancel := context.WithTimeout(context.Background(), taskStopWait)
		defer cancel()
		_ = mcpserver.StopTasks(ctx, srv)
	})
	withheld := 0
	for i, sp := range s.specs {
		withheld += withholdChanged(s.srv, s.gs[i], sp.locked, logger) // ship.go: changed since locked
	}
	s.obs.watchServer(s.srv)
	if status {
		if err := mcpserver.AddStatus(s.srv, s.h, s.names); err != nil {
			return ExitLoad, statusError(err)
		}
	}
	if s.o.metricsAddr != "" {
		if err := serveMetrics(ctx, &s.wg, s.o.metricsAddr, s.obs.metricsHandler(), s.o.http.token(), logger); err != nil {
			return ExitError, err
		}
	}
	s.o.http.metrics = s.obs.metricsHandler()
	exposeUpstreams(ctx, &s.wg, s.srv, s.ups, cfg, s.names, upstreamPins(s.o.host.config), logger)            // the gateway (upstreams.go)
	closeServers, err := exposeServers(ctx, s.srv, s.servers, s.names, upstreamPins(s.o.host.config), logger) // wasiservers.go
	if err != nil {
		return ExitLoad, err
	}
	s.onClose(closeServers)
	if s.cm != nil { // after every other tool is served: its declarations list them
		co := &codemode.ServeOptions{Group: s.names.ToolServer, RequestStateKey: s.stateKey, Logger: logger}
		if s.o.http.auth != nil { // the declarations and a run's calls follow the policy per identity
			co.Policy = s.o.http.auth.Policy
		}
		if err := s.cm.Serve(ctx, s.h, s.srv, co); err != nil {
			return ExitLoad, err
		}
		cm := s.cm
		s.onClose(func() { _ = cm.Close(context.Background()) })
	}
	for _, g := range s.gs {
		for _, t := range g.Manifest().Tools {
			if mcpserver.CheckGuestTool(t) == nil || slices.Contains(allowed, g.Name()) {
				s.tools++ // withheld tools are not served, so not counted
			}
		}
	}
	s.tools -= withheld
	return ExitOK, nil
}

// serverInfo is the name and version initialize reports (MCP "Lifecycle › Initialization",
// serverInfo): those of the one guest served, as the same server run under Node reports them
// (a script's new McpServer({name: "Team Tools", version: "1.2.0"})), when it is the only
// thing served; mcpwasm and its version when several guests, an exposed upstream or the
// status tools share the server, since no one guest speaks for it then. A guest that
// declares no version is named by its guest name, with mcpwasm's version.
func serverInfo(gs []*runtime.Guest, more bool) (name, ver string) {
	name, ver = "mcpwasm", version()
	if len(gs) != 1 || more {
		return name, ver
	}
	name = gs[0].Name()
	if m := gs[0].Manifest(); m.Name != "" && m.Version != "" {
		// The guest describes itself (an SDK's SetInfo, a script's McpServer): its own
		// name, which may be a title ("Team Tools"). Without a version (an Extism plugin,
		// whose manifest name is a placeholder) the guest's served name stands.
		name, ver = m.Name, m.Version
	}
	return name, ver
}

// runTransports starts the operator's controls (kill switch signals, --stop-file, --watch)
// and serves over HTTP (--http) or stdio until the session or the process ends.
func (s *serving) runTransports(ctx, signalled context.Context, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	kill := &killSwitch{h: s.h, logger: s.logger}
	s.wg.Go(func() { watchStopSignals(ctx, kill) })
	if s.o.stopFile != "" {
		s.wg.Go(func() { watchStopFile(ctx, kill, s.o.stopFile) })
	}
	if s.o.watch {
		ws := s.watched()
		s.wg.Go(func() { watchGuests(ctx, &s.wg, s.h, s.srv, ws, s.logger) })
	}
	names := make([]string, 0, len(s.gs)+len(s.servers))
	for _, g := range s.gs {
		names = append(names, g.Name())
	}
	for _, sg := range s.servers { // whole servers: their tools are counted once listed (gateway's log)
		names = append(names, sg.Name())
	}
	if s.o.http.addr != "" {
		s.o.http.stopCalls = func() { _ = s.h.Shutdown(context.Background()) } // at the drain timeout (http.go)
		return serveHTTP(ctx, s.srv, &s.o.http, s.o.maxLine, s.logger, strings.Join(names, ","), s.tools, s.ready)
	}
	s.logger.Info("serving", "transport", "stdio", "guests", strings.Join(names, ","), "tools", s.tools)
	hintIfTerminal(stdin, stderr) // notice.go
	return s.serveStdio(ctx, signalled, stdin, stdout)
}

// watched lists the guests --watch reloads: those loaded from a file that no lock pins.
func (s *serving) watched() []*watchedGuest {
	allowed := allowHiddenText(s.cfg, s.gs)
	var ws []*watchedGuest
	for i, sp := range s.specs {
		if sp.path != "" && sp.locked != nil {
			s.logger.Warn("--watch: a locked guest is not reloaded (run mcpwasm lock --update and restart)", "guest", s.gs[i].Name())
			continue
		}
		if sp.path != "" {
			ws = append(ws, &watchedGuest{spec: sp, path: sp.path, guest: s.gs[i],
				opts: &mcpserver.GuestOptions{AllowHiddenText: slices.Contains(allowed, s.gs[i].Name()), Logger: s.logger, Names: s.names, RequestStateKey: s.stateKey, Tasks: guestTasks(s.cfg, s.gs)[s.gs[i].Name()]}})
		}
	}
	return ws
}

// drainGrace is how long calls still running when the client closes stdin may finish before
// they are cancelled (MCP "Lifecycle › Shutdown": the client closes stdin, then waits for the
// server to exit).
const drainGrace = time.Second

// serveStdio serves one MCP session on stdin and stdout.
//
// When the client closes stdin, calls still running get drainGrace to finish; then the host
// is closed, which stops them, so their answers are written and the process exits. Calls may
// be waiting for a lazily loaded guest's code: the grace starts once it is there.
// SIGINT/SIGTERM (signalled done) end the input the same way, so every call read is answered
// too.
func (s *serving) serveStdio(ctx, signalled context.Context, stdin io.Reader, stdout io.Writer) (int, error) {
	h := s.h
	defer writeErrorsOnBrokenPipe()() // a client that closed stdout ends the session as EOF does (internal/stdio), not SIGPIPE
	in := stdin
	if signalled.Done() != nil {
		pr, pw := io.Pipe()
		go func() { _, err := io.Copy(pw, stdin); pw.CloseWithError(err) }() // nil: EOF
		stopEOF := context.AfterFunc(signalled, func() { pw.Close() })
		defer stopEOF()
		in = pr
	}
	t := stdio.NewTransport(in, stdout, &stdio.Options{MaxLineBytes: s.o.maxLine, Logger: s.logger,
		EOFGrace: drainGrace, StopPending: func() { _ = h.Close(context.Background()) },
		AwaitReady: func(ctx context.Context) {
			for _, g := range s.gs {
				_ = g.Ready(ctx)
			}
		}})
	// SIGINT/SIGTERM: the same grace, then the host is closed, so a running call cannot hold
	// the process until its time limit.
	var graceTimer atomic.Pointer[time.Timer]
	stopWatch := context.AfterFunc(signalled, func() {
		graceTimer.Store(time.AfterFunc(drainGrace, func() { _ = h.Close(context.Background()) }))
	})
	defer func() {
		stopWatch()
		if t := graceTimer.Load(); t != nil {
			t.Stop()
		}
	}()
	// Not ctx: a signal ends the session through its input (above), not by cancelling it,
	// which would drop the answers of the calls still running.
	err := s.srv.Run(context.WithoutCancel(ctx), t)
	if err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
		return ExitError, err
	}
	return ExitOK, nil
}

// codeModeConfig is code mode's configuration: the config's "code_mode", enabled also by
// --code-mode.
func codeModeConfig(flag bool, cfg *config.Config) codemode.Config {
	var c codemode.Config
	if cfg != nil && cfg.CodeMode != nil {
		c = *cfg.CodeMode
	}
	c.Enabled = c.Enabled || flag
	return c
}
