package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is an MCP server subprocess spoken to over stdio pipes (newline-delimited
// JSON-RPC), with a minimal client that keeps many requests in flight.
type Server struct {
	cmd   *exec.Cmd
	Start time.Time
	in    io.WriteCloser
	wmu   sync.Mutex
	id    atomic.Int64

	mu      sync.Mutex
	pending map[int64]chan rpcReply
	readErr error
	done    chan struct{}
}

type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// StartServer starts argv with extra environment variables and performs the MCP
// initialize handshake.
func StartServer(ctx context.Context, env []string, argv ...string) (*Server, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd, in: in, pending: map[int64]chan rpcReply{}, done: make(chan struct{})}
	s.Start = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go s.read(out)
	if _, err := s.Call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpwasm-bench", "version": "dev"}}); err != nil {
		s.Close()
		return nil, fmt.Errorf("%s: initialize: %w", argv[0], err)
	}
	if err := s.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Server) read(out io.Reader) {
	defer close(s.done)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m struct {
			ID *int64 `json:"id"`
			rpcReply
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.ID == nil {
			continue // notifications, server requests
		}
		s.mu.Lock()
		ch := s.pending[*m.ID]
		delete(s.pending, *m.ID)
		s.mu.Unlock()
		if ch != nil {
			ch <- m.rpcReply
		}
	}
	s.mu.Lock()
	s.readErr = sc.Err()
	if s.readErr == nil {
		s.readErr = io.EOF
	}
	for id, ch := range s.pending {
		close(ch)
		delete(s.pending, id)
	}
	s.mu.Unlock()
}

func (s *Server) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = s.in.Write(append(b, '\n'))
	return err
}

// Call sends one request and waits for its reply.
func (s *Server) Call(method string, params any) (json.RawMessage, error) {
	id := s.id.Add(1)
	ch := make(chan rpcReply, 1)
	s.mu.Lock()
	if s.readErr != nil {
		s.mu.Unlock()
		return nil, s.readErr
	}
	s.pending[id] = ch
	s.mu.Unlock()
	if err := s.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	r, ok := <-ch
	if !ok {
		return nil, fmt.Errorf("server closed stdout before replying to %s", method)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, r.Error.Code, r.Error.Message)
	}
	return r.Result, nil
}

// CallTool calls tool with raw JSON arguments; a tool error (isError) is an error.
func (s *Server) CallTool(tool string, args json.RawMessage) error {
	res, err := s.Call("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return err
	}
	return toolResultErr(res)
}

func toolResultErr(res json.RawMessage) error {
	var r struct {
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.IsError {
		return fmt.Errorf("tool error: %s", res)
	}
	return nil
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Close closes the server's stdin and waits for it to exit (killing it after 5 s).
func (s *Server) Close() error {
	s.in.Close()
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	select {
	case err := <-exited:
		return err
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		return errors.New("server did not exit within 5s of stdin closing; killed")
	}
}

// Proc is a snapshot of a process's CPU time and memory from /proc.
type Proc struct {
	CPU      time.Duration // user + system
	RSS, HWM int64         // bytes: resident now, peak resident
}

// ReadProc reads /proc/<pid>/stat and /proc/<pid>/status (Linux).
func ReadProc(pid int) (Proc, error) {
	var p Proc
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return p, err
	}
	// Fields after the command name (which may hold spaces) start after the last ')'.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64) // field 14 overall
	stime, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	p.CPU = time.Duration(utime+stime) * time.Second / clockTicks
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return p, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			p.RSS = kb << 10
		case "VmHWM":
			p.HWM = kb << 10
		}
	}
	return p, nil
}

// clockTicks is USER_HZ, 100 on every Linux architecture Go supports.
const clockTicks = 100

// LoadResult summarises a load run.
type LoadResult struct {
	Calls       int
	Elapsed     time.Duration
	P50, P99    time.Duration
	CPUPerCall  time.Duration
	RSS         int64
	CallsPerSec float64
	// MachineBusy is how many CPUs the whole machine kept busy during the run, on average
	// (every process: the server, the client, anything else), from /proc/stat; 0 if
	// unreadable. Near runtime.NumCPU(), no CPU was left for the server to use more of.
	MachineBusy float64
}

// machineCPU reads /proc/stat: CPU time busy and in all, in clock ticks summed over the
// machine's CPUs, and how many CPUs there are.
func machineCPU() (busy, total int64, cpus int, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	lines := strings.Split(string(b), "\n")
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "cpu") {
			cpus++
		}
	}
	f := strings.Fields(lines[0])
	if len(f) < 5 || f[0] != "cpu" || cpus == 0 {
		return 0, 0, 0, false
	}
	for i, x := range f[1:] {
		v, _ := strconv.ParseInt(x, 10, 64)
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total, cpus, true
}

// Load calls tool from inflight goroutines until total calls are done (or the duration d
// passes, whichever is first; total 0 means no count limit), after warm calls.
func Load(s Target, tool string, args json.RawMessage, inflight, total int, d time.Duration) (LoadResult, error) {
	for range 50 { // warm up instances, caches, the scheduler
		if err := s.CallTool(tool, args); err != nil {
			return LoadResult{}, err
		}
	}
	before, err := ReadProc(s.Pid())
	if err != nil {
		return LoadResult{}, err
	}
	var (
		n        atomic.Int64
		mu       sync.Mutex
		lats     []time.Duration
		firstErr error
		wg       sync.WaitGroup
	)
	busy0, total0, _, machineOK := machineCPU()
	deadline := time.Now().Add(d)
	start := time.Now()
	for range inflight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 1024)
			for {
				if i := n.Add(1); (total > 0 && i > int64(total)) || time.Now().After(deadline) {
					break
				}
				t0 := time.Now()
				if err := s.CallTool(tool, args); err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					break
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			lats = append(lats, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	busy1, total1, cpus, ok := machineCPU()
	var machineBusy float64
	if machineOK && ok && total1 > total0 {
		// The ticks are summed over the CPUs: busy/total is the busy fraction of all of them.
		machineBusy = float64(busy1-busy0) / float64(total1-total0) * float64(cpus)
	}
	if firstErr != nil {
		return LoadResult{}, firstErr
	}
	after, err := ReadProc(s.Pid())
	if err != nil {
		return LoadResult{}, err
	}
	if len(lats) == 0 {
		return LoadResult{}, fmt.Errorf("no call to %s completed within %v", tool, d)
	}
	slices.Sort(lats)
	return LoadResult{Calls: len(lats), Elapsed: elapsed, RSS: after.RSS,
		P50: lats[len(lats)/2], P99: lats[len(lats)*99/100],
		CPUPerCall:  (after.CPU - before.CPU) / time.Duration(len(lats)),
		CallsPerSec: float64(len(lats)) / elapsed.Seconds(), MachineBusy: machineBusy}, nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// ColdStart starts argv and returns the time from process start to the first tools/list
// reply, and the process's RSS at that moment. The server is left running for the caller.
func ColdStart(ctx context.Context, env []string, argv ...string) (*Server, time.Duration, error) {
	s, err := StartServer(ctx, env, argv...)
	if err != nil {
		return nil, 0, err
	}
	if _, err := s.Call("tools/list", map[string]any{}); err != nil {
		s.Close()
		return nil, 0, err
	}
	return s, time.Since(s.Start), nil
}
