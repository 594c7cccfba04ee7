package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Target is a running MCP server a load run calls.
type Target interface {
	CallTool(tool string, args json.RawMessage) error
	Pid() int
	Close() error
}

// HTTPServer is an MCP server subprocess spoken to over Streamable HTTP (one session,
// application/json responses, keep-alive connections).
type HTTPServer struct {
	cmd     *exec.Cmd
	url     string
	session string
	client  *http.Client
	id      atomic.Int64
}

// FreeAddr returns a loopback address with a port free right now.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// StartHTTPServer starts argv (which must serve MCP at http://addr/) and performs the
// initialize handshake, retrying until the server listens (up to 60 s: guests compile first).
func StartHTTPServer(ctx context.Context, env []string, addr string, argv ...string) (*HTTPServer, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCPWASM_HTTP_TOKEN=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &HTTPServer{cmd: cmd, url: "http://" + addr + "/", client: &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxIdleConns: 64}, Timeout: time.Minute}}
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, hdr, err := s.post(map[string]any{"jsonrpc": "2.0", "id": s.id.Add(1), "method": "initialize", "params": map[string]any{
			"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "mcpwasm-bench", "version": "dev"}}})
		if err == nil {
			_ = res
			s.session = hdr.Get("Mcp-Session-Id")
			break
		}
		if time.Now().After(deadline) {
			s.Close()
			return nil, fmt.Errorf("%s: initialize over HTTP: %w", argv[0], err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, _, err := s.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *HTTPServer) post(msg map[string]any) (json.RawMessage, http.Header, error) {
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, nil, err
	}
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("HTTP %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	if _, isRequest := msg["id"]; !isRequest {
		return nil, resp.Header, nil
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/event-stream") {
		// One JSON-RPC response as an SSE "data:" line.
		for _, line := range strings.Split(string(body), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok && strings.Contains(d, `"id"`) {
				body = []byte(d)
			}
		}
	}
	var r rpcReply
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, nil, fmt.Errorf("decoding reply %.100q: %w", body, err)
	}
	if r.Error != nil {
		return nil, nil, fmt.Errorf("JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	}
	return r.Result, resp.Header, nil
}

// CallTool calls tool with raw JSON arguments; a tool error (isError) is an error.
func (s *HTTPServer) CallTool(tool string, args json.RawMessage) error {
	res, _, err := s.post(map[string]any{"jsonrpc": "2.0", "id": s.id.Add(1), "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		return err
	}
	return toolResultErr(res)
}

// DialHTTP opens one MCP session (initialize, notifications/initialized) with a server that
// already listens at url (e.g. one the driver runs in-process). Close then only closes the
// session's idle connections.
func DialHTTP(url string) (*HTTPServer, error) {
	s := &HTTPServer{url: url, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: time.Minute}}
	if _, hdr, err := s.post(map[string]any{"jsonrpc": "2.0", "id": s.id.Add(1), "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "mcpwasm-bench", "version": "dev"}}}); err != nil {
		return nil, fmt.Errorf("initialize over HTTP: %w", err)
	} else {
		s.session = hdr.Get("Mcp-Session-Id")
	}
	if _, _, err := s.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	return s, nil
}

// Pid is the server's process id (the driver's own for a DialHTTP session).
func (s *HTTPServer) Pid() int {
	if s.cmd == nil {
		return os.Getpid()
	}
	return s.cmd.Process.Pid
}

// Close stops the server with SIGTERM and waits (killing it after 5 s); for a DialHTTP
// session it closes the idle connections.
func (s *HTTPServer) Close() error {
	s.client.CloseIdleConnections()
	if s.cmd == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	select {
	case <-exited:
		return nil
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-exited
		return errors.New("server did not exit within 5s of SIGTERM; killed")
	}
}
