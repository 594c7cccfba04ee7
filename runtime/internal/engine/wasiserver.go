package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/names"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind/quickjs"
	"github.com/mcpwasm/mcpwasm/runtime/internal/memory"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/internal/wasm"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// Whole-server guests: a module that is a WASI command (exports _start, imports functions
// only from WASI preview 1) is a whole MCP server speaking JSON-RPC on stdin/stdout (MCP
// 2025-11-25 "Transports › stdio"), such as a go-sdk server built with GOOS=wasip1. mcpwasm is
// its process: a Server starts one instance (a Process) per client session, with OS pipes
// for stdin and stdout, and package upstream speaks MCP to it (upstream.Spec.Start) as to a
// command upstream. RATIONALE "Whole MCP servers (WASI commands)" says why this kind uses the upstream path and
// not the guest-kind seam.

// kindWASIServer is the kind name of a whole-server guest (inspect, logs): Server.Kind.
const kindWASIServer = "wasi-server"

// errWASIServer is Load's refusal of a whole-server guest (a WASI command), wrapping ErrABI.
var errWASIServer = fmt.Errorf("%w: module is a whole MCP server (a WASI command: exports _start, imports only wasi_snapshot_preview1); load it with LoadServer", ErrABI)

// IsWASIServer implements runtime.Host.IsWASIServer, whose doc comment says what it does.
func (h *Host) IsWASIServer(wasm []byte) bool { return isWASIServer(wasm) }

func isWASIServer(wasm []byte) bool {
	if isJSServer(wasm) { // jsserver.go
		return true
	}
	m, err := parseModule(wasm)
	if err != nil {
		return false
	}
	return isWASICommand(m)
}

func parseModule(b []byte) (*wasm.Module, error) { return wasm.Parse(b) }

func isWASICommand(m *wasm.Module) bool {
	imports, err := m.Imports()
	if err != nil {
		return false
	}
	exports, err := m.Exports()
	if err != nil {
		return false
	}
	n := 0
	for _, im := range imports {
		if im.Kind != wasm.KindFunc {
			continue
		}
		if im.Module != wasi_snapshot_preview1.ModuleName {
			return false
		}
		n++
	}
	if n == 0 {
		return false
	}
	for _, e := range exports {
		if e.Kind == wasm.KindFunc && e.Name == "_start" {
			return true
		}
	}
	return false
}

// serverRuntime is the Host's runtime for JavaScript whole servers (jsserver.go), made on
// first use. It has WithCloseOnContextDone, which the guest runtime has not: cancelling its
// context is how a looping script is stopped. A WASI command does not run here: it is
// instrumented as guests are (instrument.Calls) and runs on the guest runtime, stopped by its
// interrupt global, because WithCloseOnContextDone's check at every loop header (an indirect
// call in wazero's compiler) made a go-sdk server 3–4× slower (RATIONALE.md, "Whole MCP
// servers (WASI commands)"). It shares the Host's compilation cache.
type serverRuntime struct {
	mu      sync.Mutex
	rt      wazero.Runtime
	closed  bool
	servers map[*Server]struct{} // loaded and not closed, for the kill switch
}

func (s *serverRuntime) add(srv *Server) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.servers == nil {
		s.servers = map[*Server]struct{}{}
	}
	s.servers[srv] = struct{}{}
}

func (s *serverRuntime) remove(srv *Server) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.servers, srv)
}

// stopAll ends every running instance of every whole-server guest with err (ErrStopped: the
// kill switch; ErrClosed: Host.Close). It sets each instance's interrupt global, or marks it
// stopped before it runs, so an instance still being instantiated ends too.
func (s *serverRuntime) stopAll(err error) {
	s.mu.Lock()
	var ps []*process
	for srv := range s.servers {
		srv.mu.Lock()
		for p := range srv.running {
			ps = append(ps, p)
		}
		srv.mu.Unlock()
	}
	s.mu.Unlock()
	for _, p := range ps {
		p.fail(err)
	}
}

func (s *serverRuntime) get(ctx context.Context, cache wazero.CompilationCache) (wazero.Runtime, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.rt != nil {
		return s.rt, nil
	}
	rt := wazero.NewRuntimeWithConfig(context.Background(), wazero.NewRuntimeConfig().
		WithCompilationCache(cache).WithCloseOnContextDone(true))
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("instantiating WASI: %w", err)
	}
	if err := instantiateJSEnv(ctx, rt); err != nil { // jsserver.go
		_ = rt.Close(ctx)
		return nil, err
	}
	s.rt = rt
	return rt, nil
}

func (s *serverRuntime) close(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.rt == nil {
		return nil
	}
	return s.rt.Close(ctx)
}

// Server is a loaded whole-server guest: compiled once, started once per client session
// (Start). It is safe for concurrent use.
type Server struct {
	h         *Host
	isolation string
	name      string
	source    string
	compiled  wazero.CompiledModule
	limits    Limits
	profile   sandbox.Profile
	config    wazero.ModuleConfig // the profile applied: fs, env, clocks, random
	mounts    io.Closer
	args      []string
	grants    Grants        // as configured (copied at load)
	tokens    chan struct{} // one per running instance: the instances limit
	js        quickjs.Code  // a JavaScript whole server's script (jsserver.go); else empty
	sandbox   quickjs.Requester
	logger    *slog.Logger

	mu      sync.Mutex
	running map[*process]struct{}
	closed  bool
}

// LoadServer implements runtime.Host.LoadServer, whose doc comment says what it does.
func (h *Host) LoadServer(ctx context.Context, wasm []byte, cfg *GuestConfig) (*Server, error) {
	var c GuestConfig
	if cfg != nil {
		c = *cfg
	}
	src := c.Source
	if src == "" {
		src = "guest module"
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	limits := c.Limits.Merge(policy.DefaultLimits())
	if err := checkSHA256(wasm, c.SHA256, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if err := checkModuleSize(wasm, limits); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	m, err := parseModule(wasm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", src, ErrABI, err)
	}
	jsServer := isJSServer(wasm) // jsserver.go
	if !isWASICommand(m) && !jsServer {
		return nil, fmt.Errorf("%s: %w: not a WASI command (it must export _start and import only wasi_snapshot_preview1)", src, ErrABI)
	}
	if err := checkModuleCaps(wasm, limits); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if err := checkCompileMemory(wasm, limits); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	name := c.Name
	if name == "" {
		base := filepath.Base(src)
		name = names.DeriveGuestName(strings.TrimSuffix(base, filepath.Ext(base)))
	}
	if !abi.ValidName(name) {
		return nil, fmt.Errorf("%s: guest name %q does not match %s", src, name, abi.NamePattern)
	}
	rt := h.rt // a WASI command: instrumented, on the guest runtime (serverRuntime says why)
	code := wasm
	if jsServer {
		if rt, err = h.servers.get(ctx, h.cache); err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
	} else if code, err = instrument.Calls(wasm); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", src, ErrABI, err)
	}
	compiled, err := h.compileOn(ctx, rt, code, limits.CompileTimeout) // the authenticated cache, as guests
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if mem, ok := compiled.ExportedMemories()[abi.ExportMemory]; ok {
		if minBytes := uint64(mem.Min()) * pageSize; minBytes > limits.MemoryBytes {
			_ = compiled.Close(ctx)
			return nil, fmt.Errorf("%s: minimum linear memory %s exceeds the memory limit %s", src, size.Format(minBytes), size.Format(limits.MemoryBytes))
		}
	}
	g := c.Grants
	req := abi.Requests{Clock: g.Clock, Random: g.Random}
	if jsServer { // fetch goes through the sandbox's net grant (jsserver.go)
		req.Net = g.Net
	}
	for _, f := range g.FS {
		req.FS = append(req.FS, abi.FSRequest{Path: f.Guest, RW: f.RW})
	}
	for _, e := range g.Env {
		n, _, _ := strings.Cut(e, "=")
		req.Env = append(req.Env, n)
	}
	sb, err := sandbox.NewTool(name, "", g, false, req, sandbox.Env{Net: h.net, Upstreams: h.upstreams})
	if err != nil {
		_ = compiled.Close(ctx)
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	prof := sb.Profile(limits.MemoryBytes)
	mcfg, mounts, err := prof.ModuleConfig(wazero.NewModuleConfig().WithName(""))
	if err != nil {
		_ = compiled.Close(ctx)
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	iso, _ := parseIsolation(c.Isolation)
	s := &Server{h: h, name: name, source: src, isolation: iso.String(), compiled: compiled, limits: limits, profile: prof,
		config: mcfg, mounts: mounts, args: append([]string(nil), c.Args...), grants: g.Clone(),
		tokens: make(chan struct{}, limits.Instances), logger: h.logger.With("guest", name, "kind", kindWASIServer),
		running: map[*process]struct{}{}}
	if jsServer { // jsserver.go
		s.js, _ = quickjs.Script(wasm)
		s.sandbox = sb
		s.logger = h.logger.With("guest", name, "kind", kindJSServer)
	}
	h.servers.add(s)
	h.logger.Debug("whole-server guest loaded", "guest", name, "source", src)
	return s, nil
}

// Kind implements runtime.Server.Kind, whose doc comment says what it does.
func (s *Server) Kind() string {
	if s.js.Source != nil {
		return kindJSServer
	}
	return kindWASIServer
}

// Name is the guest's name.
func (s *Server) Name() string { return s.name }

// Source is where the module came from, as GuestConfig.Source said.
func (s *Server) Source() string { return s.source }

// Isolation implements runtime.Server.Isolation, whose doc comment says what it does.
func (s *Server) Isolation() string { return s.isolation }

// Limits are the guest's limits (policy defaults filled in).
func (s *Server) Limits() Limits { return s.limits }

// Grants implements runtime.Server.Grants, whose doc comment says what it does.
func (s *Server) Grants() Grants { return s.grants.Clone() }

// Start implements runtime.Server.Start, whose doc comment says what it does.
func (s *Server) Start(ctx context.Context) (peer.Process, error) {
	select {
	case s.tokens <- struct{}{}:
	default:
		select {
		case s.tokens <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: all %d instances are in use by other sessions (limit instances): %w", errInstanceLimit, s.limits.Instances, context.Cause(ctx))
		}
	}
	p, err := s.start(ctx)
	if err != nil {
		<-s.tokens
		return nil, err
	}
	return p, nil
}

func (s *Server) start(ctx context.Context) (*process, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if s.h.Stopped() {
		return nil, ErrStopped
	}
	rt := s.h.rt // a WASI command's (LoadServer)
	if s.js.Source != nil {
		var err error
		if rt, err = s.h.servers.get(ctx, s.h.cache); err != nil {
			return nil, err
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &process{s: s, stdin: inW, stdout: outR, done: make(chan struct{}), grace: time.Second}
	p.lines = &jsonLines{r: bufio.NewReaderSize(outR, 64<<10), fail: p.fail}
	stderr := &stderrLog{logger: s.logger}
	cfg := s.config.WithStdin(inR).WithStdout(outW).WithStderr(stderr).
		WithArgs(append([]string{s.name}, s.args...)...)
	runCtx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	if !s.profile.Random() {
		cfg = cfg.WithRandSource(&fakeSources{}) // seeded 42, as other kinds
	}
	if !s.profile.Clock() {
		// Not the 1 ms-per-reading clocks of other kinds: the program waits for its input
		// in poll_oneoff, which wazero serves with a real poll of the stdin pipe for the
		// timeout the program's scheduler asked for; with a clock that does not follow real
		// time, a 300 ms time.Sleep never ended (measured: over 20 s). So both clocks count
		// the real time since the instance started, the wall clock from 2022-01-01: the
		// program can time what it does, not learn the date.
		t0 := time.Now()
		cfg = cfg.WithNanotime(func() int64 { return int64(time.Since(t0)) }, sys.ClockResolution(time.Microsecond)).
			WithWalltime(func() (int64, int32) {
				t := fakeEpoch + int64(time.Since(t0))
				return t / 1e9, int32(t % 1e9)
			}, sys.ClockResolution(time.Microsecond))
	}
	// A sleep (poll_oneoff with only a clock) really waits, and ends when the instance is
	// stopped.
	cfg = cfg.WithNanosleep(func(ns int64) {
		if ns <= 0 {
			return
		}
		t := time.NewTimer(time.Duration(ns))
		defer t.Stop()
		select {
		case <-t.C:
		case <-runCtx.Done():
		}
	})
	var mem *memory.Limited
	runCtx = experimental.WithMemoryAllocator(runCtx, memory.NewAllocator(s.limits.MemoryBytes, func(m *memory.Limited) { mem = m }))
	s.mu.Lock()
	s.running[p] = struct{}{}
	s.mu.Unlock()
	go func() {
		var err error
		if s.js.Source != nil {
			err = s.runJS(runCtx, rt, cfg, inR, outW, stderr) // jsserver.go
		} else {
			err = p.run(runCtx, rt, cfg)
		}
		stderr.flush()
		p.mu.Lock()
		stopped, why := p.stopped, p.why
		p.mu.Unlock()
		var exit *sys.ExitError
		switch {
		case why != nil:
			err = why
		case mem != nil && mem.Hit:
			err = fmt.Errorf("%w: its linear memory would exceed %s; the instance ended", ErrMemoryLimit, size.Format(s.limits.MemoryBytes))
		case stopped:
			err = errStoppedInstance
		case errors.As(err, &exit) && exit.ExitCode() == 0:
			err = fmt.Errorf("%w (exit code 0)", errServerExited)
		case errors.As(err, &exit):
			err = fmt.Errorf("%w with exit code %d%s", errServerExited, exit.ExitCode(), stderr.tail())
		case err != nil:
			err = fmt.Errorf("%w: %w%s", errServerExited, err, stderr.tail())
		default: // _start returned: exit code 0
			err = fmt.Errorf("%w (exit code 0)", errServerExited)
		}
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		outW.Close() // the reader sees EOF after what the program wrote
		inR.Close()
		cancel()
		s.mu.Lock()
		delete(s.running, p)
		s.mu.Unlock()
		<-s.tokens
		s.logger.Debug("whole-server instance ended", "reason", err)
		close(p.done) // last: Running and the instances limit already count it out
	}()
	return p, nil
}

// run instantiates a WASI command and runs its start section (instrument.ExportStart) and
// _start until the program exits or Stop sets its interrupt global (instrument.Calls' checks
// then trap within instrument.FuelInterval units of work).
func (p *process) run(ctx context.Context, rt wazero.Runtime, cfg wazero.ModuleConfig) error {
	mod, err := rt.InstantiateModule(ctx, p.s.compiled, cfg.WithStartFunctions())
	if err != nil {
		return err
	}
	defer mod.Close(context.Background())
	flag, _ := mod.ExportedGlobal(instrument.ExportInterrupt).(api.MutableGlobal)
	p.mu.Lock()
	p.flag = flag
	stopped := p.stopped
	p.mu.Unlock()
	if stopped {
		return errStoppedInstance
	}
	for _, name := range [...]string{instrument.ExportStart, "_start"} {
		if fn := mod.ExportedFunction(name); fn != nil {
			if _, err := fn.Call(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// errServerExited is wrapped by the error of a whole-server instance whose program ended (at
// start, or while serving): it closes its MCP session.
var errServerExited = errors.New("the server exited")

// errInstanceLimit is wrapped by Start's error when every instance the guest's instances
// limit allows was running for as long as the caller's context allowed waiting.
var errInstanceLimit = errors.New("instance limit reached")

var errStoppedInstance = errors.New("instance stopped")

// Running is the number of instances running now.
func (s *Server) Running() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.running)
}

// Close stops every running instance and releases the compiled module. Close is idempotent.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	ps := make([]*process, 0, len(s.running))
	for p := range s.running {
		ps = append(ps, p)
	}
	s.mu.Unlock()
	s.h.servers.remove(s) // not under s.mu: stopAll locks the runtime, then each server
	for _, p := range ps {
		p.Stop()
	}
	for _, p := range ps {
		<-p.done
	}
	if s.mounts != nil {
		s.mounts.Close()
	}
	return s.compiled.Close(ctx)
}

// process is one running instance of a whole-server guest (peer.Process): its stdin (Write)
// and stdout (Read, JSON-RPC lines only). Close ends it as MCP "Lifecycle › Shutdown" says
// for stdio: stdin closed, then after a grace (1 s) stopped.
type process struct {
	s      *Server
	stdin  *os.File
	stdout *os.File
	lines  *jsonLines
	cancel context.CancelFunc
	grace  time.Duration
	done   chan struct{}

	mu      sync.Mutex
	err     error // why it ended, set before done is closed
	why     error // set by fail: the reason that overrides what the exit says
	stopped bool
	flag    api.MutableGlobal // a WASI command's interrupt global, once instantiated (run)

	closeOnce sync.Once
}

// Write writes to the program's stdin.
func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Read reads the program's stdout. A line that is not a JSON object or array stops the
// program, and Read fails with an error naming the guest and quoting the line.
func (p *process) Read(b []byte) (int, error) { return p.lines.Read(b) }

// CloseWrite closes the program's stdin (a stdio MCP server exits at its end).
func (p *process) CloseWrite() error { return p.stdin.Close() }

// Done is closed when the program has ended.
func (p *process) Done() <-chan struct{} { return p.done }

// Err is why the program ended (wrapping errServerExited, ErrMemoryLimit, or saying it was
// stopped), once Done is closed; nil before.
func (p *process) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Stop ends the program now: its interrupt global is set (a WASI command's code traps at its
// next check), its context is cancelled (a JavaScript server's code ends at its next function
// entry or loop; a sleep ends) and its stdin is closed (which ends a host call blocked waiting for input;
// one blocked writing stdout ends when the reader, Close, closes it).
func (p *process) Stop() {
	p.mu.Lock()
	p.stopped = true
	if p.flag != nil {
		p.flag.Set(1)
	}
	p.mu.Unlock()
	p.cancel()
	p.stdin.Close() // the program's end closes stdout's write end: the reader sees EOF
}

func (p *process) fail(err error) {
	p.mu.Lock()
	if p.why == nil {
		p.why = err
	}
	p.mu.Unlock()
	p.Stop()
}

// Close closes stdin, waits up to the grace for the program to exit, then stops it, and
// waits for it to end. Close is idempotent; it returns nil.
func (p *process) Close() error {
	p.closeOnce.Do(func() {
		p.stdin.Close()
		t := time.NewTimer(p.grace)
		defer t.Stop()
		select {
		case <-p.done:
		case <-t.C:
			p.Stop()
			<-p.done
		}
		p.stdout.Close()
	})
	return nil
}

// jsonLines passes a program's stdout through line by line, failing at the first line that
// does not start (after blanks) with "{" or "[": MCP's stdio transport carries only JSON-RPC
// messages, one per line.
type jsonLines struct {
	r    *bufio.Reader
	fail func(error)
	buf  []byte // the rest of the current line, to hand out
	mid  bool   // the last chunk did not end a line: the next is its middle, not checked
	err  error
}

func (j *jsonLines) Read(b []byte) (int, error) {
	for len(j.buf) == 0 {
		if j.err != nil {
			return 0, j.err
		}
		line, err := j.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			err = nil // a long line: its start was checked; pass the rest through
		}
		if t := bytes.TrimLeft(line, " \t\r"); len(t) > 0 && t[0] != '{' && t[0] != '[' && t[0] != '\n' && !j.mid {
			j.err = fmt.Errorf("%w: wrote to stdout a line that is not JSON: %q", errServerExited, clipLine(t))
			j.fail(j.err)
			return 0, j.err
		}
		j.mid = len(line) > 0 && line[len(line)-1] != '\n'
		j.buf = append(j.buf[:0], line...)
		if err != nil {
			j.err = err
		}
	}
	n := copy(b, j.buf)
	j.buf = j.buf[n:]
	return n, nil
}

func clipLine(b []byte) string {
	b = bytes.TrimRight(b, "\r\n")
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// stderrLog logs a program's stderr line by line, naming the guest, and keeps its first and
// last lines for an exit's error (tail).
type stderrLog struct {
	logger *slog.Logger
	mu     sync.Mutex
	buf    []byte
	head   []string // the first lines, or the first of the last panic (stderrKept each)
	last   []string // the last lines
	n      int      // lines since head's first
}

// stderrKept is how many lines of a whole server's stderr its exit error quotes at each end:
// a Go program's cause comes first (flag's "flag provided but not defined: -x" before a
// usage of many lines; "panic: …" before its goroutine dump) and its last words last.
const stderrKept = 3

func (l *stderrLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.line(string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > 64<<10 {
		l.line(string(l.buf))
		l.buf = l.buf[:0]
	}
	return len(b), nil
}

func (l *stderrLog) line(s string) {
	if s == "" {
		return
	}
	l.logger.Info("guest stderr", "line", s)
	if strings.HasPrefix(s, "panic: ") || strings.HasPrefix(s, "fatal error: ") {
		l.head, l.last, l.n = nil, nil, 0 // what the program wrote before it crashed is in the log
	}
	l.n++
	if len(l.head) < stderrKept {
		l.head = append(l.head, s)
		return
	}
	l.last = append(l.last, s)
	if len(l.last) > stderrKept {
		l.last = l.last[1:]
	}
}

func (l *stderrLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.line(string(l.buf))
	l.buf = nil
}

// tail is "; it wrote: …" quoting stderr — its first lines (from the last "panic: " or
// "fatal error: " line, if any) and its last, "…" between when lines were left out — or "".
// Each end is at most 300 bytes.
func (l *stderrLog) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.head) == 0 {
		return ""
	}
	s := strings.Join(l.head, " | ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if len(l.last) > 0 {
		end := strings.Join(l.last, " | ")
		if len(end) > 300 {
			end = "…" + end[len(end)-300:]
		}
		sep := " | "
		if l.n > len(l.head)+len(l.last) {
			sep = fmt.Sprintf(" | … (%d lines) … | ", l.n-len(l.head)-len(l.last))
		}
		s += sep + end
	}
	return "; it wrote: " + s
}
