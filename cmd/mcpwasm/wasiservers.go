package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/names"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/mcpwasm/mcpwasm/upstream"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Whole-server guests (WASI commands, JavaScript servers; runtime.Server): each is re-served
// through the upstream path (mcpserver.Expose with Kind "guest": hygiene, pins), its tools and
// prompts under their own names as any guest's (tool_prefix before them when configured, a
// name outside the pattern mapped, a clash refused naming both), with one instance per client
// session instead of one shared process (RATIONALE "Whole MCP servers (WASI commands)").

// serverGuest is a loaded whole-server guest and its tool_prefix (runtime.Server does not
// keep runtime.GuestConfig.ToolPrefix: the names are served here).
type serverGuest struct {
	*runtime.Server
	prefix string
}

// loadServers loads the whole-server guests among specs with Host.LoadServer and returns the
// other specs, to load as guests, and cfg without the servers' entries (so cfg.Guests[i]
// is still specs[i] for what reads the config by index).
func loadServers(ctx context.Context, h *runtime.Host, specs []guestSpec, cfg *config.Config, logger *slog.Logger) ([]guestSpec, []serverGuest, *config.Config, error) {
	var rest []guestSpec
	var servers []serverGuest
	var dropped []int // config entries that are servers
	for i, s := range specs {
		b := s.wasm
		if b == nil && s.path != "" {
			var err error
			if b, err = os.ReadFile(s.path); err != nil {
				return nil, nil, nil, err
			}
		}
		if !h.IsWASIServer(b) {
			rest = append(rest, s)
			continue
		}
		srv, err := h.LoadServer(ctx, b, s.cfg)
		if err != nil {
			for _, l := range servers {
				_ = l.Close(ctx)
			}
			if s.entry != "" {
				err = fmt.Errorf("%s: %w", s.entry, err)
			}
			return nil, nil, nil, err
		}
		logger.Info("whole-server guest loaded", "guest", srv.Name(), "kind", srv.Kind(), "source", s.cfg.Source)
		prefix := ""
		if s.cfg != nil {
			prefix = s.cfg.ToolPrefix
		}
		servers = append(servers, serverGuest{srv, prefix})
		if cfg != nil && i < len(cfg.Guests) {
			dropped = append(dropped, i)
		}
	}
	if len(dropped) > 0 {
		c := *cfg
		c.Guests = nil
		for i, g := range cfg.Guests {
			if !slices.Contains(dropped, i) {
				c.Guests = append(c.Guests, g)
			}
		}
		cfg = &c
	}
	return rest, servers, cfg, nil
}

// serverGrace is how long an instance whose call ran past its time limit has, after the
// notifications/cancelled, to answer a ping before it is stopped.
const serverGrace = time.Second

// servedServer is one whole-server guest on our MCP server: its instances, one per client
// session.
type servedServer struct {
	srv    *runtime.Server
	logger *slog.Logger
	served *mcp.Server // the server it is exposed on (set by exposeServers): resource updates

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*serverSession
	closed   bool
	changed  func(cs *mcp.ClientSession) // set once exposed; nil before
}

// serverSession is one client session's instance (with isolation "shared", everyone's; with
// "call", one call's), started on its first use.
type serverSession struct {
	lock   chan struct{}      // held while starting
	owner  *mcp.ServerSession // the client session (nil: shared)
	client string             // mcpserver.ClientKey of the owner: per-client quotas
	sess   *upstream.Session
	proc   peer.Process

	mu    sync.Mutex
	calls []context.Context // the owner's calls in flight, newest last: the relay sends on one
}

// sendContext is the context the relay sends the owner's requests on: its newest call in
// flight (over Streamable HTTP a request travels on that call's stream), else nil.
func (ss *serverSession) sendContext() context.Context {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if n := len(ss.calls); n > 0 {
		return ss.calls[n-1]
	}
	return nil
}

// inCall notes a call of the owner in flight on ctx; the returned function ends it.
func (ss *serverSession) inCall(ctx context.Context) func() {
	ss.mu.Lock()
	ss.calls = append(ss.calls, ctx)
	ss.mu.Unlock()
	return func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		if i := slices.Index(ss.calls, ctx); i >= 0 {
			ss.calls = slices.Delete(ss.calls, i, i+1)
		}
	}
}

type listerKey struct{} // the instance a refresh lists through (an *upstream.Session)

// exposeServers serves the tools of each whole-server guest on srv under their own names
// (tool_prefix before them, if set). Its tools are listed once, at start, from an instance
// started for that and closed. Errors name the guest; a name another guest holds is refused
// as between two guests. The returned function closes every instance.
func exposeServers(ctx context.Context, srv *mcp.Server, servers []serverGuest, names *mcpserver.NameSet, pins map[string]map[string]mcpserver.ToolPin, logger *slog.Logger) (func(), error) {
	if len(servers) == 0 {
		return func() {}, nil
	}
	srv.AddReceivingMiddleware(downstreamSession) // the session of each tools/call (elicit.go)
	var served []*servedServer
	closeAll := func() {
		for _, s := range served {
			s.close()
		}
	}
	for _, sg := range servers {
		rs := sg.Server
		s := &servedServer{srv: rs, served: srv, logger: logger.With("guest", rs.Name(), "kind", rs.Kind()), sessions: map[*mcp.ServerSession]*serverSession{}}
		served = append(served, s)
		var lister *upstream.Session
		opts := &mcpserver.ExposeOptions{Kind: "guest", Prefix: sg.prefix, Source: rs.Source(), Logger: logger.With("kind", rs.Kind()), Names: names, Pins: pins[rs.Name()], PinnedOnly: pins[rs.Name()] != nil, All: true,
			Session: func(ctx context.Context) (*mcp.ClientSession, error) {
				if cs, ok := ctx.Value(listerKey{}).(*mcp.ClientSession); ok {
					return cs, nil
				}
				if lister != nil {
					return lister.ClientSession, nil
				}
				ss, err := s.session(ctx)
				if err != nil {
					return nil, err
				}
				return ss.sess.ClientSession, nil
			},
			CallTool: s.callTool}
		lctx, cancel := context.WithTimeout(ctx, rs.Limits().Timeout)
		l, _, err := s.dial(lctx, nil)
		if err != nil {
			cancel()
			closeAll()
			return nil, fmt.Errorf("guest %q: listing its tools: %w", rs.Name(), err)
		}
		lister = l
		e, err := mcpserver.Expose(lctx, srv, rs.Name(), nil, opts)
		cancel()
		lister = nil
		_ = l.Close()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("guest %q: %w", rs.Name(), err)
		}
		s.changed = func(cs *mcp.ClientSession) { // an instance said its lists changed: re-list through it
			go func() {
				rctx, cancel := context.WithTimeout(context.WithValue(ctx, listerKey{}, cs), rs.Limits().Timeout)
				defer cancel()
				if err := e.Refresh(rctx); err != nil && ctx.Err() == nil {
					s.logger.Warn("whole-server guest: re-listing after list_changed failed", "err", err)
				}
			}()
		}
	}
	return closeAll, nil
}

// dial starts an instance for the client session owner (nil: for no one, as the instance
// that lists at start) and connects to it, relaying the instance's requests to owner under
// the guest's grants (upstream.Relay). An instance that ended while connecting (it exited,
// wrote what is not JSON, hit its memory limit) is named by its own error.
func (s *servedServer) dial(ctx context.Context, ss *serverSession) (*upstream.Session, peer.Process, error) {
	var owner *mcp.ServerSession
	if ss != nil {
		owner = ss.owner
	}
	var proc peer.Process
	spec := upstream.Spec{Label: fmt.Sprintf("guest %q", s.srv.Name()), Start: func(ctx context.Context) (upstream.Process, error) {
		p, err := s.srv.Start(ctx)
		if err != nil {
			return nil, err
		}
		proc = p
		return p, nil
	}}
	g := s.srv.Grants()
	spec.Relay = &upstream.Relay{Label: spec.Label, Sampling: g.Sampling, Elicitation: g.Elicitation, Roots: g.Roots,
		Client: func(context.Context) (context.Context, *mcp.ServerSession) {
			if owner == nil {
				return nil, nil
			}
			return ss.sendContext(), owner
		},
		Changed: func(_ string, cs *mcp.ClientSession) {
			if s.changed != nil {
				s.changed(cs)
			}
		},
		// An instance's resources/updated is its client session's (if it subscribed); a
		// shared instance's, every subscribed session's.
		Updated: func(ctx context.Context, p *mcp.ResourceUpdatedNotificationParams) {
			switch {
			case s.served == nil:
			case owner != nil:
				_ = mcpserver.ResourceUpdatedTo(ctx, s.served, owner, p)
			case ss != nil:
				_ = s.served.ResourceUpdated(ctx, p)
			}
		}}
	timeout := s.srv.Limits().Timeout
	sess, err := upstream.Dial(ctx, spec, &upstream.Options{Version: version(), Logger: s.logger, ConnectTimeout: timeout, InitializeOnly: true})
	if err != nil {
		if perr := procErr(proc); perr != nil {
			err = perr
		}
		return nil, nil, err
	}
	return sess, proc, nil
}

// procErr is why p ended, if it ended (or ends within a moment: its end and the closed
// connection race), else nil.
func procErr(p peer.Process) error {
	if p == nil {
		return nil
	}
	select {
	case <-p.Done():
		return p.Err()
	case <-time.After(100 * time.Millisecond):
		return nil
	}
}

// session returns the instance of the client session of ctx (one shared by calls without a
// session), starting it on first use; it is closed when the client session ends.
func (s *servedServer) session(ctx context.Context) (*serverSession, error) {
	key, _ := ctx.Value(downstreamKey{}).(*mcp.ServerSession)
	if s.srv.Isolation() == "shared" {
		key = nil // one instance for every client
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, runtime.ErrClosed
	}
	ss := s.sessions[key]
	if ss == nil {
		client := "shared"
		if key != nil {
			client = mcpserver.ClientKey(ctx, key.ID())
			if held, quota := s.heldBy(client), clientQuota(s.srv.Limits().Instances); held >= quota {
				s.mu.Unlock()
				return nil, fmt.Errorf("%w: this client already holds %d of its %d instances (limit instances; one client may hold at most %d)",
					errClientQuota, held, s.srv.Limits().Instances, quota)
			}
		}
		ss = &serverSession{lock: make(chan struct{}, 1), owner: key, client: client}
		s.sessions[key] = ss
		if key != nil {
			go func() {
				_ = key.Wait()
				s.drop(key, ss)
			}()
		}
	}
	s.mu.Unlock()
	select {
	case ss.lock <- struct{}{}:
		defer func() { <-ss.lock }()
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for its instance: %w", context.Cause(ctx))
	}
	if ss.sess != nil {
		select {
		case <-ss.proc.Done(): // it ended: a fresh one
			_ = ss.sess.Close()
			ss.sess, ss.proc = nil, nil
		default:
			return ss, nil
		}
	}
	sess, proc, err := s.dial(ctx, ss)
	if err != nil {
		return nil, err
	}
	ss.sess, ss.proc = sess, proc
	return ss, nil
}

// errClientQuota: a client asked for more of a guest's instances than its share.
var errClientQuota = errors.New("per-client instance quota reached")

// clientQuota is how many of a guest's instances one client may hold: half of them, rounded
// up (all of one, both of two would leave none: at least one is always allowed), so one client
// cannot take them all (as task quotas, "Hardening 4").
func clientQuota(instances int) int {
	if instances <= 2 {
		return 1
	}
	return (instances + 1) / 2
}

// heldBy counts the client sessions of client that hold an instance entry. Called with s.mu.
func (s *servedServer) heldBy(client string) int {
	n := 0
	for k, ss := range s.sessions {
		if k != nil && ss.client == client {
			n++
		}
	}
	return n
}

// drop closes the instance of a client session that ended.
func (s *servedServer) drop(key *mcp.ServerSession, ss *serverSession) {
	s.mu.Lock()
	if s.sessions[key] == ss {
		delete(s.sessions, key)
	}
	s.mu.Unlock()
	ss.lock <- struct{}{}
	defer func() { <-ss.lock }()
	if ss.sess != nil {
		_ = ss.sess.Close()
		ss.sess, ss.proc = nil, nil
	}
}

func (s *servedServer) close() {
	s.mu.Lock()
	s.closed = true
	all := s.sessions
	s.sessions = map[*mcp.ServerSession]*serverSession{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for k, ss := range all {
		wg.Go(func() { s.drop(k, ss) })
	}
	wg.Wait()
}

// callTool makes one tools/call in the instance of the caller's session, under the guest's
// time limit. Past it, the SDK sends notifications/cancelled; an instance that then does not
// answer a ping within serverGrace is stopped, and the session's next call starts a fresh
// one.
func (s *servedServer) callTool(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	timeout := s.srv.Limits().Timeout
	cctx, cancel := context.WithTimeoutCause(ctx, timeout, runtime.ErrTimeLimit)
	defer cancel()
	var ss *serverSession
	if s.srv.Isolation() == "call" { // an instance of its own, closed after the call
		owner, _ := ctx.Value(downstreamKey{}).(*mcp.ServerSession)
		ss = &serverSession{owner: owner}
		sess, proc, err := s.dial(cctx, ss)
		if err != nil {
			return nil, err
		}
		defer sess.Close()
		ss.sess, ss.proc = sess, proc
	} else {
		var err error
		if ss, err = s.session(cctx); err != nil {
			return nil, err
		}
	}
	token, progress := relayProgress(ctx) // the client's progress, under its token (upstreams.go)
	done := ss.inCall(ctx)
	res, err := ss.sess.CallToolExact(cctx, tool, args, token, progress)
	done()
	if err == nil {
		return res.CallToolResult, nil
	}
	if perr := procErr(ss.proc); perr != nil {
		return nil, perr
	}
	if context.Cause(cctx) == runtime.ErrTimeLimit && ctx.Err() == nil {
		pctx, pcancel := context.WithTimeout(context.Background(), serverGrace)
		perr := ss.sess.Ping(pctx, nil)
		pcancel()
		if perr != nil {
			s.logger.Warn("whole-server instance stopped: it ran past its time limit and did not answer a ping", "tool", tool, "limit", timeout)
			ss.proc.Stop()
			return nil, fmt.Errorf("%w (%v); its instance did not answer within %v after the cancellation and was stopped (the next call starts a fresh one)",
				runtime.ErrTimeLimit, timeout, serverGrace)
		}
		return nil, fmt.Errorf("%w (%v)", runtime.ErrTimeLimit, timeout)
	}
	if errors.Is(err, context.Canceled) {
		return nil, runtime.ErrCancelled
	}
	return nil, err
}

// serverInspect is inspect's --json shape for a whole-server guest.
type serverInspect struct {
	Kind   string              `json:"kind"` // "wasi-server"
	Name   string              `json:"name"`
	Source string              `json:"source"`
	SHA256 string              `json:"sha256"`
	Bytes  int                 `json:"bytes"`
	Argv   []string            `json:"argv"`
	Server *mcp.Implementation `json:"server,omitempty"` // what it answered to initialize
	Grants string              `json:"grants"`
	// Tools as serve serves them: under their own names after the tool_prefix (mapped where
	// outside the pattern).
	Tools []*mcp.Tool `json:"tools"`
}

// inspectServer starts one instance of the whole-server guest wasm, lists its tools and
// prints them as serve would serve them.
func inspectServer(ctx context.Context, h *runtime.Host, wasm []byte, gc *runtime.GuestConfig, asJSON bool, logger *slog.Logger, stdout io.Writer) (int, error) {
	out, err := inspectServerOf(ctx, h, wasm, gc, logger)
	if err != nil {
		return ExitLoad, err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return ExitOK, enc.Encode(out)
	}
	writeServerInspect(stdout, out)
	return ExitOK, nil
}

// inspectServerOf is what inspect shows of the whole-server guest wasm.
func inspectServerOf(ctx context.Context, h *runtime.Host, wasm []byte, gc *runtime.GuestConfig, logger *slog.Logger) (*serverInspect, error) {
	rs, err := h.LoadServer(ctx, wasm, gc)
	if err != nil {
		return nil, err
	}
	defer rs.Close(context.Background())
	s := &servedServer{srv: rs, logger: logger.With("guest", rs.Name(), "kind", rs.Kind())}
	lctx, cancel := context.WithTimeout(ctx, rs.Limits().Timeout)
	defer cancel()
	sess, _, err := s.dial(lctx, nil)
	if err != nil {
		return nil, fmt.Errorf("guest %q: %w", rs.Name(), err)
	}
	defer sess.Close()
	tools, err := upstream.ListTools(lctx, sess.ClientSession, 0, logger)
	if err != nil {
		return nil, fmt.Errorf("guest %q: listing its tools: %w", rs.Name(), err)
	}
	sum := sha256.Sum256(wasm)
	out := &serverInspect{Kind: rs.Kind(), Name: rs.Name(), Source: gc.Source, SHA256: hex.EncodeToString(sum[:]), Bytes: len(wasm),
		Argv: append([]string{rs.Name()}, gc.Args...), Grants: describeGrants(gc.Grants), Tools: []*mcp.Tool{}}
	if ir := sess.InitializeResult(); ir != nil {
		out.Server = ir.ServerInfo
	}
	for _, t := range tools {
		cp := *t
		cp.Name = names.MapName(gc.ToolPrefix + t.Name) // as exposeServers serves it
		out.Tools = append(out.Tools, &cp)
	}
	return out, nil
}

func writeServerInspect(w io.Writer, out *serverInspect) {
	fmt.Fprintf(w, "guest %s\n", out.Name)
	if out.Server != nil {
		fmt.Fprintf(w, "  server: %s\n", strings.TrimSpace(out.Server.Name+" "+out.Server.Version))
	}
	fmt.Fprintf(w, "source: %s (%d bytes, sha256 %s)\n", out.Source, out.Bytes, out.SHA256)
	what, net := "a WASI command", "WASI preview 1 has no sockets: no network of its own"
	if out.Kind == "javascript-server" { // runtime/internal/engine/jsserver.go
		what, net = "a JavaScript bundle with its own MCP SDK, run as a process", "fetch goes through the net grant; no sockets of its own"
	}
	fmt.Fprintf(w, "kind: %s (a whole MCP server: %s, one instance per client session)\n", out.Kind, what)
	fmt.Fprintf(w, "argv: %s\n", strings.Join(out.Argv, " "))
	fmt.Fprintf(w, "granted: %s (%s)\n", out.Grants, net)
	fmt.Fprintf(w, "tools (%d):\n", len(out.Tools))
	for _, t := range out.Tools {
		fmt.Fprintf(w, "\n  %s", t.Name)
		if t.Title != "" {
			fmt.Fprintf(w, " — %s", t.Title)
		}
		fmt.Fprintln(w)
		if t.Description != "" {
			fmt.Fprintf(w, "    %s\n", t.Description)
		}
		in, _ := json.Marshal(t.InputSchema)
		fmt.Fprintf(w, "    input:  %s\n", in)
		if t.OutputSchema != nil {
			o, _ := json.Marshal(t.OutputSchema)
			fmt.Fprintf(w, "    output: %s\n", o)
		}
	}
}
