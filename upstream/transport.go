package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/stdio"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// commandTransport spawns a stdio MCP server (MCP spec 2025-11-25 "Transports › stdio") and
// speaks to it with package stdio in client (Peer) mode: lines of any size, and a line that is
// not a valid message is logged and skipped instead of ending the session.
type commandTransport struct {
	spec    Spec
	opts    Options
	cancels *cancelCount
	probe   *probe // told of each write to the server's stderr; nil: none
}

func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	cmd := exec.Command(t.spec.Command[0], t.spec.Command[1:]...)
	cmd.Dir = t.spec.Dir
	cmd.Env = ChildEnv(os.Environ(), t.spec.Env)
	cmd.Stderr = t.opts.Stderr
	if t.probe != nil {
		cmd.Stderr = liveWriter{w: t.opts.Stderr, p: t.probe}
	}
	setProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Our own pipe rather than StdoutPipe: Wait closes that one as soon as the process exits,
	// which could drop its last messages unread.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("starting %s: %w", t.spec.Command[0], err)
	}
	pw.Close()
	max := t.opts.MaxLineBytes
	if max <= 0 {
		max = math.MaxInt
	}
	inner, err := stdio.NewTransport(readOnly{pr}, stdin, &stdio.Options{Peer: true, MaxLineBytes: max, Logger: t.opts.Logger}).Connect(ctx)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		pr.Close()
		return nil, err
	}
	c := &procConn{Connection: inner, cmd: cmd, stdout: pr, grace: t.opts.TerminateGrace, cancels: t.cancels, exited: make(chan struct{})}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// processTransport speaks to a server running in this process (Spec.Start) as
// commandTransport does to a spawned one: package stdio in client mode over its stdin and
// stdout.
type processTransport struct {
	spec    Spec
	opts    Options
	cancels *cancelCount
}

func (t *processTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	p, err := t.spec.Start(ctx)
	if err != nil {
		return nil, err
	}
	max := t.opts.MaxLineBytes
	if max <= 0 {
		max = math.MaxInt
	}
	inner, err := stdio.NewTransport(readOnly{p}, writeOnly{p}, &stdio.Options{Peer: true, MaxLineBytes: max, Logger: t.opts.Logger}).Connect(ctx)
	if err != nil {
		_ = p.Close()
		return nil, err
	}
	return &processConn{Connection: inner, p: p, cancels: t.cancels}, nil
}

// writeOnly hides the process's Close from the stdio connection, which closes its writer:
// closing stdin is the process's CloseWrite.
type writeOnly struct{ p Process }

func (w writeOnly) Write(b []byte) (int, error) { return w.p.Write(b) }
func (w writeOnly) Close() error                { return w.p.CloseWrite() }

// processConn is the connection to a Spec.Start server; Close ends the server.
type processConn struct {
	mcp.Connection
	p       Process
	cancels *cancelCount

	closeOnce sync.Once
	closeErr  error
}

func (c *processConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.Method == "notifications/cancelled" {
		c.cancels.sent.Add(1)
	}
	return err
}

// Close is idempotent; every call returns the first one's result.
func (c *processConn) Close() error {
	c.closeOnce.Do(func() {
		err := c.Connection.Close()
		if errors.Is(err, os.ErrClosed) {
			err = nil
		}
		c.closeErr = errors.Join(err, c.p.Close())
	})
	return c.closeErr
}

// readOnly hides the pipe's Close from the stdio connection: procConn closes it only after the
// process is gone, so the server's last lines are still read.
type readOnly struct{ r io.Reader }

func (r readOnly) Read(p []byte) (int, error) { return r.r.Read(p) }

// procConn is the connection to a spawned server. Close shuts it down as MCP "Lifecycle ›
// Shutdown" prescribes for stdio: close its stdin, wait for it to exit, then SIGTERM, then
// SIGKILL, each after TerminateGrace.
type procConn struct {
	mcp.Connection
	cmd     *exec.Cmd
	stdout  *os.File
	grace   time.Duration
	cancels *cancelCount

	exited  chan struct{}
	waitErr error // set before exited is closed

	closeOnce sync.Once
	closeErr  error
}

func (c *procConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.Method == "notifications/cancelled" {
		c.cancels.sent.Add(1)
	}
	return err
}

// Close is idempotent; every call returns the first one's result.
func (c *procConn) Close() error {
	c.closeOnce.Do(func() {
		err := c.Connection.Close() // closes the server's stdin
		if errors.Is(err, os.ErrClosed) {
			err = nil // the process had exited: Wait closed it already
		}
		if !c.waitExit() {
			_ = signalGroup(c.cmd, sigterm)
			if !c.waitExit() {
				_ = signalGroup(c.cmd, sigkill)
				if !c.waitExit() {
					err = errors.Join(err, fmt.Errorf("%s: still running after SIGKILL", c.cmd.Path))
				}
			}
		}
		c.stdout.Close()
		c.closeErr = err
	})
	return c.closeErr
}

func (c *procConn) waitExit() bool {
	select {
	case <-c.exited:
		return true
	case <-time.After(c.grace):
		return false
	}
}

// httpTransport is the SDK's Streamable HTTP client transport (MCP spec 2025-11-25
// "Transports › Streamable HTTP") with the operator's headers on every request and, unless
// MaxLineBytes says otherwise, no cap on one server-sent event.
func httpTransport(spec Spec, o Options, cancels *cancelCount, raw *rawResults, pr *probe) mcp.Transport {
	base := o.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if spec.WrapTransport != nil {
		rt = spec.WrapTransport(rt)
	}
	hc := *base
	endpoint, _ := url.Parse(spec.URL) // nil (unparsable): no request is the endpoint's origin
	hc.Transport = &headerTransport{base: rt, endpoint: endpoint, headers: spec.Headers, cancels: cancels, raw: raw, probe: pr, relay: spec.Relay}
	hc.CheckRedirect = redirectPolicy(endpoint, spec.Headers, base.CheckRedirect)
	maxEvent := o.MaxLineBytes
	if maxEvent <= 0 {
		maxEvent = -1 // no cap
	}
	return &mcp.StreamableClientTransport{Endpoint: spec.URL, HTTPClient: &hc, MaxEventSize: maxEvent, OAuthHandler: spec.OAuth}
}

// headerTransport adds the operator's headers (never replacing one the SDK set, such as
// Mcp-Session-Id) to requests for the endpoint's origin only (redirect.go), counts the
// notifications/cancelled it delivers, and records the raw results of CallToolExact's calls
// from their response bodies (exact.go, httpRecorder).
type headerTransport struct {
	base     http.RoundTripper
	endpoint *url.URL // the configured URL; nil: unparsable
	headers  map[string]string
	cancels  *cancelCount
	raw      *rawResults // nil: record nothing
	probe    *probe      // told of each HTTP answer to a server/discover POST; nil: none
	relay    *Relay      // relays the log messages of each event stream (logBody); nil: none
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 && t.endpoint != nil && sameOrigin(req.URL, t.endpoint) {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			if req.Header.Get(k) == "" {
				req.Header.Set(k, v)
			}
		}
	}
	cancel, discover := false, false
	var callID string // JSON of the id of a tools/call whose raw result is wanted
	if req.Method == http.MethodPost && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(body)
			body.Close()
			cancel = bytes.Contains(b[:min(len(b), 4096)], []byte(`"notifications/cancelled"`))
			msg, err := jsonrpc.DecodeMessage(b)
			if err == nil && t.raw != nil {
				if m, ok := t.raw.augment(msg); ok {
					if nb, err := jsonrpc.EncodeMessage(m); err == nil {
						msg, b = m, nb
						req = req.Clone(req.Context())
						req.Body = io.NopCloser(bytes.NewReader(nb))
						req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(nb)), nil }
						req.ContentLength = int64(len(nb))
					}
				}
				callID = t.raw.sent(msg)
			}
			if err == nil {
				req = taskNameHeader(req, msg)
				r, ok := msg.(*jsonrpc.Request)
				discover = ok && r.Method == "server/discover"
			}
		}
	}
	resp, err := t.base.RoundTrip(req)
	// A 401 or 403 is no answer to the probe: the transport authorizes (a user at a browser, a
	// token endpoint) and sends it again, and that answer starts the deadline. Counted from the
	// refusal, it ran out when the retry's answer came late on a loaded machine, and the
	// connection started over with a legacy initialize.
	if discover && err == nil && resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		t.probe.answer()
	}
	if cancel && err == nil {
		t.cancels.sent.Add(1)
	}
	sse := err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	if callID != "" && err == nil && resp.Body != nil {
		resp.Body = &httpRecorder{ReadCloser: resp.Body, raw: t.raw, sse: sse}
	}
	if t.relay != nil && sse && resp.Body != nil {
		resp.Body = &logBody{ReadCloser: resp.Body, ctx: req.Context(), relay: t.relay} // relay.go
	}
	return resp, err
}

// taskNameHeader returns req with the Mcp-Name header that SEP-2663 requires on tasks/get,
// tasks/update and tasks/cancel of 2026-07-28 (their params.taskId), which the SDK sets only
// for the methods it knows (tools/call, prompts/get, resources/read).
func taskNameHeader(req *http.Request, msg jsonrpc.Message) *http.Request {
	r, ok := msg.(*jsonrpc.Request)
	if !ok || req.Header.Get("Mcp-Name") != "" || req.Header.Get("MCP-Protocol-Version") == "" {
		return req
	}
	switch r.Method {
	case "tasks/get", "tasks/update", "tasks/cancel":
	default:
		return req
	}
	var p struct {
		TaskID string `json:"taskId"`
	}
	if json.Unmarshal(r.Params, &p) != nil || p.TaskID == "" {
		return req
	}
	req = req.Clone(req.Context())
	req.Header.Set("Mcp-Name", p.TaskID)
	return req
}
