package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/mcpserver/internal/taskstore"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tasks: a guest tool call that runs detached from its request (the MCP tasks extension,
// io.modelcontextprotocol/tasks, SEP-2663 — the shape the official conformance suite checks).
//
//   - A tool may run as a task when its manifest says so (abi.ToolExecution.TaskSupport:
//     "optional" or "required"), narrowed by the operator (GuestOptions.Tasks).
//   - The server decides: a tools/call of such a tool from a client that declared the
//     extension — in its initialize capabilities, or in the request's
//     _meta["io.modelcontextprotocol/clientCapabilities"].extensions — answers at once with a
//     CreateTaskResult, a flat object {"resultType": "task", "taskId", "status": "working",
//     "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"}; the guest runs on. A client
//     without the extension gets the plain result of an "optional" tool, and the JSON-RPC
//     error -32021 (MissingRequiredClientCapability, data {"requiredCapabilities":
//     {"extensions": {"io.modelcontextprotocol/tasks": {}}}}) for a "required" one. A legacy
//     "task" request param is ignored: it never makes a task of a tool that does not support one.
//   - tasks/get {"taskId"} answers the task (DetailedTask): status "working",
//     "input_required" (with "inputRequests", the guest's client requests not answered yet),
//     "completed" (with "result", the CallToolResult — a tool error is completed with
//     isError true), "failed" (with "error" {code, message}: the guest trapped, ran out of
//     time or memory, or broke the ABI) or "cancelled".
//   - tasks/update {"taskId", "inputResponses"} answers input requests by key (others are
//     ignored); when none is left the guest runs again with every answer (the replay of
//     clientreq.go). tasks/cancel {"taskId"} stops the guest; the task is "cancelled" (a
//     finished task stays as it is). Both answer {"resultType": "complete"}. tasks/result
//     and tasks/list do not exist in this shape (-32601). An unknown or expired taskId is
//     -32602; tasks/* from a client that did not declare the extension is -32021.
//   - A task outlives its request and the client's connection, but not its session: when a
//     session of a revision before 2026-07-28 ends, its tasks are cancelled, and another
//     session does not see them. A 2026-07-28 request has no session: its task is reachable
//     by its id alone (128 random bits) until it expires.
//   - A finished task is kept TaskOptions.TTL; a task waiting for input expires after
//     TaskOptions.InputTTL (it fails naming input_ttl). Everything a task holds — the call's
//     arguments, the guest's input requests, the round's requestState, the answers, the
//     result — counts against a byte budget per client and one per server, and the tasks
//     against a count per client and one per server (TaskOptions; the table and its quotas
//     are mcpserver/internal/taskstore). A client is its authenticated subject (TaskOptions.Subject),
//     else its session, else the one anonymous bucket shared by every sessionless request.
//     When a task cannot be created, an "optional" tool runs inside its request (its plain
//     result) and a "required" one is refused with -32603 naming the limit; a new task may
//     push out its own client's oldest finished tasks, never another client's before their
//     TTL.
//   - StopTasks cancels every task and refuses the ones that arrive after it.
//   - Across replicas the task lives in the process that created it: route tasks/* by the
//     Mcp-Name header (SEP-2663: it carries the taskId) to that replica; elsewhere the id is
//     unknown (-32602).

// TasksExtension is the capability key of the tasks extension in
// capabilities.extensions (SEP-2663).
const TasksExtension = "io.modelcontextprotocol/tasks"

// Task statuses (SEP-2663).
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// Defaults of TaskOptions (docs/tasks.md explains them to operators).
const (
	DefaultTaskTTL          = time.Hour
	DefaultTaskInputTTL     = 10 * time.Minute
	DefaultMaxTasks         = 1000
	DefaultMaxTaskBytes     = 256 << 20
	DefaultClientTasks      = 100
	DefaultClientTaskBytes  = 32 << 20
	DefaultAnonymousTasks   = 200
	DefaultAnonymousBytes   = 32 << 20
	DefaultTaskPollInterval = time.Second
)

// TaskOptions bound a server's tasks. Zero fields take the defaults; a client's share is
// capped at the server's.
type TaskOptions struct {
	// TTL is how long a task is kept after it finished (ttlMs on the wire); default
	// DefaultTaskTTL.
	TTL time.Duration
	// InputTTL is how long a task may wait in input_required for tasks/update; then it
	// fails naming the limit. Default DefaultTaskInputTTL.
	InputTTL time.Duration
	// MaxTasks caps the tasks a server holds, running, waiting or kept; default
	// DefaultMaxTasks.
	MaxTasks int
	// MaxBytes caps the bytes all tasks hold: the JSON of the call's arguments, of the
	// input requests, answers and requestState of a waiting task, and of a kept result.
	// Default DefaultMaxTaskBytes.
	MaxBytes int64
	// ClientTasks and ClientBytes are one client's share (a subject or a session); defaults
	// DefaultClientTasks and DefaultClientTaskBytes.
	ClientTasks int
	ClientBytes int64
	// AnonymousTasks and AnonymousBytes are the share of the one bucket every request
	// without subject or session (2026-07-28) falls in; defaults DefaultAnonymousTasks and
	// DefaultAnonymousBytes.
	AnonymousTasks int
	AnonymousBytes int64
	// Subject names the authenticated client of a tools/call ("" if none); its tasks are
	// counted under it rather than its session. Nil: no request has a subject.
	Subject func(ctx context.Context, r *mcp.CallToolRequest) string
	// PollInterval is the pollIntervalMs suggested to clients; default
	// DefaultTaskPollInterval.
	PollInterval time.Duration
}

// withDefaults fills o's zero fields; a client's share is capped at the server's.
func (o TaskOptions) withDefaults() TaskOptions {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	ttl, ittl, poll := int64(o.TTL), int64(o.InputTTL), int64(o.PollInterval)
	mt, ct, at := int64(o.MaxTasks), int64(o.ClientTasks), int64(o.AnonymousTasks)
	def(&ttl, int64(DefaultTaskTTL))
	def(&ittl, int64(DefaultTaskInputTTL))
	def(&poll, int64(DefaultTaskPollInterval))
	def(&mt, DefaultMaxTasks)
	def(&ct, DefaultClientTasks)
	def(&at, DefaultAnonymousTasks)
	def(&o.MaxBytes, DefaultMaxTaskBytes)
	def(&o.ClientBytes, DefaultClientTaskBytes)
	def(&o.AnonymousBytes, DefaultAnonymousBytes)
	o.TTL, o.InputTTL, o.PollInterval = time.Duration(ttl), time.Duration(ittl), time.Duration(poll)
	o.MaxTasks, o.ClientTasks, o.AnonymousTasks = int(mt), int(min(ct, mt)), int(min(at, mt))
	o.ClientBytes, o.AnonymousBytes = min(o.ClientBytes, o.MaxBytes), min(o.AnonymousBytes, o.MaxBytes)
	return o
}

// limits are o's store limits (o has its defaults).
func (o TaskOptions) limits() taskstore.Limits {
	return taskstore.Limits{MaxTasks: o.MaxTasks, MaxBytes: o.MaxBytes, ClientTasks: o.ClientTasks,
		ClientBytes: o.ClientBytes, AnonymousTasks: o.AnonymousTasks, AnonymousBytes: o.AnonymousBytes,
		TTL: o.TTL, InputTTL: o.InputTTL}
}

// TaskCaps is the operator's narrowing of a guest's task support (config "tasks"): Max caps
// every tool, Tools caps one tool by name (over Max). Each value is abi.TaskForbidden,
// abi.TaskOptional or abi.TaskRequired; "" means no cap. A cap narrows, never widens: a tool
// declaring "optional" under a cap "required" stays "optional".
type TaskCaps struct {
	Max   string
	Tools map[string]string
}

// taskRank orders task support for narrowing; -1 for an unknown value.
func taskRank(s string) int {
	switch s {
	case "", abi.TaskForbidden:
		return 0
	case abi.TaskOptional:
		return 1
	case abi.TaskRequired:
		return 2
	}
	return -1
}

// CheckTaskSupport reports an error naming field if s is not a task support value
// ("forbidden", "optional", "required"; "" is allowed and means "forbidden").
func CheckTaskSupport(field, s string) error {
	if taskRank(s) < 0 {
		return fmt.Errorf("%s: %q is not one of forbidden, optional, required", field, s)
	}
	return nil
}

// effectiveTaskSupport is the declared support of tool narrowed by caps: "" for forbidden.
func effectiveTaskSupport(declared string, caps TaskCaps, tool string) string {
	r := taskRank(declared)
	for _, c := range []string{caps.Max, caps.Tools[tool]} {
		if c != "" && taskRank(c) < r {
			r = taskRank(c)
		}
	}
	switch r {
	case 1:
		return abi.TaskOptional
	case 2:
		return abi.TaskRequired
	}
	return ""
}

// taskServer holds the tasks of one *mcp.Server and which of its tools support them.
type taskServer struct {
	opts TaskOptions
	now  func() time.Time

	store *taskstore.Store[*task] // the table: ids, clients, bytes, quotas, expiry

	mu       sync.Mutex
	support  map[string]string // tool name → abi.TaskOptional or abi.TaskRequired
	stopped  bool              // StopTasks ran: no new task
	watchers map[*mcp.ServerSession]*sessionWatch

	running sync.WaitGroup // guest calls of tasks (run) not yet returned
}

// sessionWatch cancels the tasks of one session when it ends: one goroutine per session that
// has made a task, not one per task.
type sessionWatch struct {
	tasks map[*task]struct{} // its tasks not finished yet; guarded by taskServer.mu
}

// task is one detached tools/call.
type task struct {
	id      string
	entry   *taskstore.Entry[*task]
	owner   *mcp.ServerSession // nil: reachable by id alone (2026-07-28)
	client  string             // the store's client key (clientKey)
	created time.Time
	cancel  context.CancelFunc
	input   int64 // bytes of the call's arguments and requestState (counted while it runs)
	held    int64 // bytes counted for it in the store while it waits for input; guarded by taskServer.mu

	// guarded by taskServer.mu
	status   string
	message  string
	updated  time.Time
	finished time.Time // zero while running
	result   json.RawMessage
	rpcErr   *jsonrpc.Error
	asked    mcp.InputRequestMap          // input requests not answered yet
	answered map[string]mcp.InputResponse // answers of the current round
	answerCh chan struct{}                // closed when asked is empty
	changed  chan struct{}                // closed (and replaced) at every change of status
}

// touch records a change of t's status. ts.mu is held.
func (t *task) touch() {
	if t.changed != nil {
		close(t.changed)
	}
	t.changed = make(chan struct{})
}

// taskServers maps an *mcp.Server to its *taskServer, made when a first tool supporting
// tasks is registered.
var taskServers sync.Map

// taskOptions are the options a server's taskServer is made with (SetTaskOptions).
var taskOptions sync.Map

// SetTaskOptions sets the task bounds of s; call it before the first guest is added (NewServer
// takes Options.Tasks). Later calls do not change a server already holding tasks.
func SetTaskOptions(s *mcp.Server, o TaskOptions) {
	taskOptions.Store(s, o)
}

func tasksOf(s *mcp.Server) *taskServer {
	v, _ := taskServers.Load(s)
	ts, _ := v.(*taskServer)
	return ts
}

// enableTasks returns the taskServer of s, making it (and installing its middleware and
// methods) on first use.
func enableTasks(s *mcp.Server) *taskServer {
	if ts := tasksOf(s); ts != nil {
		return ts
	}
	var o TaskOptions
	if v, ok := taskOptions.Load(s); ok {
		o = v.(TaskOptions)
	}
	o = o.withDefaults()
	ts := &taskServer{opts: o, now: time.Now, support: map[string]string{},
		store: taskstore.New[*task](o.limits()), watchers: map[*mcp.ServerSession]*sessionWatch{}}
	if v, loaded := taskServers.LoadOrStore(s, ts); loaded {
		return v.(*taskServer)
	}
	s.AddReceivingMiddleware(ts.middleware)
	// The names are not standard MCP methods, so registering cannot fail.
	_ = mcp.AddReceivingCustomMethod(s, "tasks/get", ts.get)
	_ = mcp.AddReceivingCustomMethod(s, "tasks/update", ts.update)
	_ = mcp.AddReceivingCustomMethod(s, "tasks/cancel", ts.cancelTask)
	return ts
}

// setSupport records the effective task support of tool ("" removes it).
func (ts *taskServer) setSupport(tool, support string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if support == "" {
		delete(ts.support, tool)
		return
	}
	ts.support[tool] = support
}

func (ts *taskServer) supportOf(tool string) string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.support[tool]
}

// advertised reports whether some tool supports tasks (the capability is declared then).
func (ts *taskServer) advertised() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.support) > 0
}

// declaresTasks reports whether caps declares the tasks extension.
func declaresTasks(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// missingTasks is -32021 MissingRequiredClientCapability for subject.
func missingTasks(subject string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data,
		Message: fmt.Sprintf("%s needs the client capability extensions[%q], which the client did not declare", subject, TasksExtension)}
}

// middleware starts tasks on tools/call, declares the extension in initialize and
// server/discover while a tool supports tasks, and adds "execution" to tools/list.
func (ts *taskServer) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			r, ok := req.(*mcp.CallToolRequest)
			if !ok || r.Params == nil {
				break
			}
			support := ts.supportOf(r.Params.Name)
			if support == "" {
				break
			}
			if !declaresTasks(r.ClientCapabilities()) {
				if support == abi.TaskRequired {
					return nil, missingTasks("tool " + strconv.Quote(r.Params.Name))
				}
				break
			}
			return ts.start(ctx, next, r, support)
		case "initialize", "server/discover":
			res, err := next(ctx, method, req)
			if err != nil || !ts.advertised() {
				return res, err
			}
			return withTasksCapability(res), nil
		case "tools/list":
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			return ts.withExecution(res), nil
		}
		return next(ctx, method, req)
	}
}

// withTasksCapability returns res (an initialize or server/discover result) with
// capabilities.extensions[TasksExtension] = {}, on a copy.
func withTasksCapability(res mcp.Result) mcp.Result { return withExtension(res, TasksExtension) }

// withExtension returns res (an initialize or server/discover result) with
// capabilities.extensions[name] = {}, on a copy; any other result as it is.
func withExtension(res mcp.Result, name string) mcp.Result {
	add := func(c *mcp.ServerCapabilities) *mcp.ServerCapabilities {
		var cp mcp.ServerCapabilities
		if c != nil {
			cp = *c
		}
		cp.Extensions = maps.Clone(cp.Extensions)
		cp.AddExtension(name, nil)
		return &cp
	}
	switch r := res.(type) {
	case *mcp.InitializeResult:
		cp := *r
		cp.Capabilities = add(r.Capabilities)
		return &cp
	case *mcp.DiscoverResult:
		cp := *r
		cp.Capabilities = add(r.Capabilities)
		return &cp
	}
	return res
}

// listWithExecution is a tools/list result whose tools carry MCP's "execution" object,
// which mcp.Tool lacks. It is the SDK's result (which the SDK still completes after the
// middleware — resultType, caching fields), with "execution" added when it is encoded.
type listWithExecution struct {
	*mcp.ListToolsResult
	support map[string]string // tool name → task support
}

// MarshalJSON encodes the SDK's result and adds "execution": {"taskSupport": …} to each tool
// that supports tasks.
func (l *listWithExecution) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(l.ListToolsResult)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(top["tools"], &tools); err != nil {
		return nil, err
	}
	for _, t := range tools {
		var name string
		_ = json.Unmarshal(t["name"], &name)
		if s := l.support[name]; s != "" {
			t["execution"], _ = json.Marshal(abi.ToolExecution{TaskSupport: s})
		}
	}
	if top["tools"], err = json.Marshal(tools); err != nil {
		return nil, err
	}
	return json.Marshal(top)
}

// withExecution wraps res so that its tools that support tasks carry "execution"; res is
// returned as it is when none does.
func (ts *taskServer) withExecution(res mcp.Result) mcp.Result {
	r, ok := res.(*mcp.ListToolsResult)
	if !ok {
		return res
	}
	ts.mu.Lock()
	support := maps.Clone(ts.support)
	ts.mu.Unlock()
	if !slices.ContainsFunc(r.Tools, func(t *mcp.Tool) bool { return t != nil && support[t.Name] != "" }) {
		return res
	}
	return &listWithExecution{ListToolsResult: r, support: support}
}

// taskEnvelope is the Task object of SEP-2663, flat in a CreateTaskResult and in tasks/get's
// DetailedTask (which adds result, error or inputRequests).
type taskEnvelope struct {
	mcp.ResultBase
	ResultType     string              `json:"resultType"`
	TaskID         string              `json:"taskId"`
	Status         string              `json:"status"`
	StatusMessage  string              `json:"statusMessage,omitempty"`
	CreatedAt      string              `json:"createdAt"`
	LastUpdatedAt  string              `json:"lastUpdatedAt"`
	TTLMs          int64               `json:"ttlMs"`
	PollIntervalMs int64               `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage     `json:"result,omitempty"`
	Error          *jsonrpc.Error      `json:"error,omitempty"`
	InputRequests  mcp.InputRequestMap `json:"inputRequests,omitempty"`
}

// ackResult is the {"resultType": "complete"} answer of tasks/update and tasks/cancel.
type ackResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// taskIDParams are the params of tasks/get, tasks/cancel and tasks/update. inputResponses
// stays raw: an answer to a key the task did not ask is ignored, whatever its shape.
type taskIDParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// wireTime is a task timestamp: RFC 3339 in UTC with milliseconds.
func wireTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// envelope is t as the wire shows it; detailed adds result, error and inputRequests.
// ts.mu is held.
func (ts *taskServer) envelope(t *task, detailed bool) *taskEnvelope {
	e := &taskEnvelope{ResultType: "complete", TaskID: t.id, Status: t.status, StatusMessage: t.message,
		CreatedAt: wireTime(t.created), LastUpdatedAt: wireTime(t.updated),
		TTLMs: ts.opts.TTL.Milliseconds(), PollIntervalMs: ts.opts.PollInterval.Milliseconds()}
	if detailed {
		switch t.status {
		case TaskCompleted:
			e.Result = t.result
		case TaskFailed:
			e.Error = t.rpcErr
		case TaskInputRequired:
			e.InputRequests = maps.Clone(t.asked)
		}
	}
	return e
}

// start runs r's guest call detached and answers tools/call at the first of these events:
//
//   - the guest reports progress: the call becomes a task, registered before the
//     CreateTaskResult goes out (SEP-2663 "durable create"), and the guest runs on — unless
//     the task cannot be created (a quota, taskstore): an "optional" tool then runs on inside
//     its request, a "required" one is stopped and refused naming the limit;
//   - the call ends with input requests (2026-07-28, clientreq.go) before that: the
//     input-required result is the answer, a synchronous round (SEP-2322) — input asked up
//     front is gathered before the task exists (SEP-2663 "MRTR → Tasks composition");
//   - the call ends otherwise: a "required" tool answers a task that has already finished,
//     an "optional" one its result as it is (SEP-2663's immediate-result shortcut);
//   - the client goes away first: the guest is stopped.
func (ts *taskServer) start(ctx context.Context, next mcp.MethodHandler, r *mcp.CallToolRequest, support string) (mcp.Result, error) {
	// A session of a revision before 2026-07-28 owns its tasks; a 2026-07-28 request's
	// session lasts the request only.
	var owner *mcp.ServerSession
	if !ProtocolAtLeast(revisionOf(r), sessionlessVersion) {
		owner = r.Session
	}
	ts.mu.Lock()
	if ts.stopped {
		ts.mu.Unlock()
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool %q: %v", r.Params.Name, taskstore.ErrStopped)}
	}
	ts.running.Add(1)
	ts.mu.Unlock()
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	t := &task{owner: owner, client: ts.clientKey(ctx, r, owner), status: TaskWorking, cancel: cancel,
		input: int64(len(r.Params.Arguments) + len(r.Params.RequestState))}
	progressed := make(chan struct{})
	var once sync.Once
	signal := func() { once.Do(func() { close(progressed) }) }
	first := make(chan roundResult, 1)
	created := make(chan struct{}) // closed once t is registered (or never will be)
	go ts.run(context.WithValue(tctx, taskStartKey{}, signal), t, next, r, first, created)

	var rr roundResult
	got := false
	select {
	case <-ctx.Done():
		cancel()
		close(created)
		return nil, ctx.Err()
	case rr = <-first:
		got = true
	case <-progressed:
	}
	select {
	case <-progressed: // the guest reported progress (perhaps finishing soon after): a task
		e, limited, err := ts.register(t, r.Params.Name)
		if err == nil {
			close(created) // run settles t from its first round on
			return e, nil
		}
		if support == abi.TaskRequired || !limited {
			cancel()
			close(created)
			return nil, err
		}
		// No room for a task: the optional tool answers in its request.
		if !got {
			select {
			case <-ctx.Done():
				cancel()
				close(created)
				return nil, ctx.Err()
			case rr = <-first:
			}
		}
		cancel()
		close(created)
		return rr.res, rr.err
	default:
	}
	// The call ended before it reported progress.
	if rr.err != nil || rr.inputRequired() || support != abi.TaskRequired {
		cancel()
		close(created)
		return rr.res, rr.err
	}
	defer close(created)
	e, _, err := ts.register(t, r.Params.Name)
	if err != nil {
		cancel()
		return nil, err
	}
	ts.settle(t, rr)
	ts.mu.Lock()
	e = ts.envelope(t, false)
	ts.mu.Unlock()
	e.ResultType = "task"
	return e, nil
}

// clientKey is the store's key of r's client: "subject:" and TaskOptions.Subject's answer,
// else "session:" and the owning session's id (its address when it has none: stdio), else
// taskstore.Anonymous — also for a stateless HTTP request, whose session lasts the request.
func (ts *taskServer) clientKey(ctx context.Context, r *mcp.CallToolRequest, owner *mcp.ServerSession) string {
	if ts.opts.Subject != nil {
		if sub := ts.opts.Subject(ctx, r); sub != "" {
			return "subject:" + sub
		}
	}
	if owner != nil {
		if id := owner.ID(); id != "" {
			return "session:" + id
		}
		if r.Extra != nil && r.Extra.Header != nil {
			return taskstore.Anonymous // stateless HTTP: a session per request is no client
		}
		return fmt.Sprintf("session:%p", owner)
	}
	return taskstore.Anonymous
}

// register gives t its id and keeps it: the CreateTaskResult of t, or -32603 naming the
// limit (limited) when its client or the server has no room, or the server stopped its tasks.
func (ts *taskServer) register(t *task, tool string) (e *taskEnvelope, limited bool, err error) {
	now := ts.now()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.stopped {
		return nil, false, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool %q: %v", tool, taskstore.ErrStopped)}
	}
	entry, err := ts.store.Add(t.client, t.input, t)
	if err != nil {
		var le *taskstore.LimitError
		return nil, errors.As(err, &le), &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("tool %q: %v; try again when a task has finished", tool, err)}
	}
	t.entry, t.id, t.created, t.updated = entry, entry.ID, now, now
	t.touch()
	if t.owner != nil {
		w := ts.watchers[t.owner]
		if w == nil {
			w = &sessionWatch{tasks: map[*task]struct{}{}}
			ts.watchers[t.owner] = w
			go ts.watch(t.owner, w)
		}
		w.tasks[t] = struct{}{}
	}
	e = ts.envelope(t, false)
	e.ResultType = "task"
	return e, false, nil
}

// watch waits for ss to end and cancels its tasks not finished by then. It is the session's
// one watcher (register starts it with the session's first task); its tasks leave w when they
// finish, so nothing of a finished task is held here.
func (ts *taskServer) watch(ss *mcp.ServerSession, w *sessionWatch) {
	_ = ss.Wait()
	ts.mu.Lock()
	delete(ts.watchers, ss)
	live := slices.Collect(maps.Keys(w.tasks))
	w.tasks = nil
	ts.mu.Unlock()
	for _, t := range live {
		ts.finishCancelled(t, "the session ended")
	}
}

// unwatch forgets t in its session's watcher. ts.mu is held.
func (ts *taskServer) unwatch(t *task) {
	if t.owner == nil {
		return
	}
	if w := ts.watchers[t.owner]; w != nil && w.tasks != nil {
		delete(w.tasks, t)
	}
}

// taskStartKey carries the func a guest's progress report calls (callHooks) to make its
// call a task.
type taskStartKey struct{}

// progressSignal is the func in ctx that a progress report calls, or nil.
func progressSignal(ctx context.Context) func() {
	f, _ := ctx.Value(taskStartKey{}).(func())
	return f
}

// callRecord receives the runtime error of a guest call (toolHandler), which the task
// reports as "failed" rather than as a tool error.
type callRecord struct{ err error }

type callRecordKey struct{}

// recordCallError gives err to the task running ctx's call, if any.
func recordCallError(ctx context.Context, err error) {
	if rec, ok := ctx.Value(callRecordKey{}).(*callRecord); ok {
		rec.err = err
	}
}

// roundResult is what one run of the guest's tools/call answered.
type roundResult struct {
	res     mcp.Result
	err     error
	callErr error // the runtime error behind a tool-error result (callRecord)
}

// inputRequired reports an input-required result (the call asks the client).
func (rr roundResult) inputRequired() bool {
	ctr, _ := rr.res.(*mcp.CallToolResult)
	return rr.err == nil && ctr != nil && len(ctr.InputRequests) > 0
}

// run runs t's tools/call: the first round's result goes to first unless t was registered
// by then (created is closed either way; t.id == "" means it never was). From then on each
// round that ends with input requests parks the task in input_required until tasks/update
// has answered all of them, and the call runs again with the answers and the round's
// requestState (clientreq.go's replay); any other end settles the task.
func (ts *taskServer) run(ctx context.Context, t *task, next mcp.MethodHandler, r *mcp.CallToolRequest, first chan<- roundResult, created <-chan struct{}) {
	defer ts.running.Done()
	defer t.cancel()
	params := *r.Params
	req := *r
	req.Params = &params
	for round := 0; ; round++ {
		rec := &callRecord{}
		res, err := next(context.WithValue(ctx, callRecordKey{}, rec), "tools/call", &req)
		rr := roundResult{res: res, err: err, callErr: rec.err}
		if round == 0 {
			first <- rr
			<-created
			ts.mu.Lock()
			registered, done := t.id != "", !t.finished.IsZero()
			ts.mu.Unlock()
			if !registered || done { // answered in the request, or settled by start
				return
			}
		}
		if ctx.Err() != nil {
			ts.finishCancelled(t, "cancelled")
			return
		}
		if rr.inputRequired() {
			ctr := res.(*mcp.CallToolResult)
			answers, ok := ts.waitInput(ctx, t, ctr.InputRequests, ctr.RequestState)
			if !ok {
				ts.finishCancelled(t, "cancelled")
				return
			}
			params.RequestState = ctr.RequestState
			params.InputResponses = answers
			continue
		}
		ts.settle(t, rr)
		return
	}
}

// settle ends t with the outcome of its last round: failed for a JSON-RPC error or a host
// failure (trap, time or memory limit, ABI), cancelled for a cancelled call, else completed
// with the result (a tool error is completed with isError).
func (ts *taskServer) settle(t *task, rr roundResult) {
	if rr.err != nil {
		var je *jsonrpc.Error
		if !errors.As(withCode(rr.err), &je) {
			je = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: rr.err.Error()}
		}
		ts.finish(t, TaskFailed, nil, je)
		return
	}
	if ce := rr.callErr; ce != nil && !errors.Is(ce, runtime.ErrInvalidArguments) {
		if errors.Is(ce, runtime.ErrCancelled) || errors.Is(ce, context.Canceled) {
			ts.finishCancelled(t, "cancelled")
			return
		}
		ts.finish(t, TaskFailed, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: ce.Error()})
		return
	}
	b, err := json.Marshal(rr.res)
	if err != nil {
		ts.finish(t, TaskFailed, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "encoding the result: " + err.Error()})
		return
	}
	ts.finish(t, TaskCompleted, b, nil)
}

// waitInput parks t in input_required with asked until tasks/update answered every key;
// false if the task ended first: cancelled, or failed because what it holds now (arguments,
// asked, requestState) does not fit its client's or the server's byte budget, or because it
// waited longer than InputTTL.
func (ts *taskServer) waitInput(ctx context.Context, t *task, asked mcp.InputRequestMap, state string) (mcp.InputResponseMap, bool) {
	held := t.input + int64(len(state))
	if b, err := json.Marshal(asked); err == nil {
		held += int64(len(b))
	}
	if err := ts.store.Resize(t.entry, held); err != nil {
		ts.finish(t, TaskFailed, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("the task's input requests do not fit: %v", err)})
		return nil, false
	}
	ch := make(chan struct{})
	ts.mu.Lock()
	if t.status != TaskWorking {
		ts.mu.Unlock()
		return nil, false
	}
	t.status, t.message, t.updated = TaskInputRequired, "", ts.now()
	t.asked, t.answered, t.answerCh, t.held = maps.Clone(asked), map[string]mcp.InputResponse{}, ch, held
	// The deadline is armed before anyone can see the status (touch), under ts.mu as
	// finishLocked takes the store's lock: armed after, a clock read in between started the
	// InputTTL late (TestTaskInputTimerArmedWithStatus). The timer runs expire outside both.
	ts.store.Wait(t.entry, func() {
		ts.mu.Lock()
		if t.answerCh != ch { // answered (or ended) as the timer fired
			ts.mu.Unlock()
			return
		}
		ts.finishLocked(t, TaskFailed, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("task limit reached: no input within %v (input_ttl_ms = %d)", ts.opts.InputTTL, ts.opts.InputTTL.Milliseconds())})
		ts.mu.Unlock()
		t.cancel()
	})
	t.touch()
	ts.mu.Unlock()
	select {
	case <-ctx.Done():
		return nil, false
	case <-ch:
	}
	ts.store.Resume(t.entry)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	answers := mcp.InputResponseMap(t.answered)
	t.status, t.updated, t.asked, t.answered, t.answerCh = TaskWorking, ts.now(), nil, nil, nil
	// The next round runs with the answers and the state: the store keeps counting held
	// until the task waits again or finishes.
	t.touch()
	return answers, true
}

// finish ends t with status (completed or failed) unless it already ended. A result that
// does not fit its client's or the server's byte budget fails the task naming the limit.
func (ts *taskServer) finish(t *task, status string, result json.RawMessage, rpcErr *jsonrpc.Error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.finishLocked(t, status, result, rpcErr)
}

// finishLocked is finish with ts.mu held.
func (ts *taskServer) finishLocked(t *task, status string, result json.RawMessage, rpcErr *jsonrpc.Error) {
	if !t.finished.IsZero() {
		return
	}
	if t.entry != nil {
		if err := ts.store.Finish(t.entry, int64(len(result))); err != nil {
			status, result = TaskFailed, nil
			rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the task's result does not fit: %v", err)}
			_ = ts.store.Finish(t.entry, 0)
		}
	}
	now := ts.now()
	t.status, t.updated, t.finished = status, now, now
	t.result, t.rpcErr = result, rpcErr
	t.asked, t.answered = nil, nil
	ts.unwatch(t)
	t.touch()
}

// finishCancelled ends t as cancelled unless it already ended, and stops its guest.
func (ts *taskServer) finishCancelled(t *task, message string) {
	ts.mu.Lock()
	if t.finished.IsZero() {
		if t.entry != nil {
			_ = ts.store.Finish(t.entry, 0)
		}
		now := ts.now()
		t.status, t.message, t.updated, t.finished = TaskCancelled, message, now, now
		t.asked, t.answered = nil, nil
		ts.unwatch(t)
		t.touch()
	}
	ts.mu.Unlock()
	t.cancel()
}

// lookup finds the task id for a tasks/* request of ss: -32021 if the client did not declare
// the extension, -32602 if the id is unknown, expired or another session's.
func (ts *taskServer) lookup(method string, ss *mcp.ServerSession, p *taskIDParams) (*task, error) {
	if !declaresTasks(requestCapabilities(ss, p.Meta)) {
		return nil, missingTasks(method)
	}
	if p.TaskID == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + method + " needs a taskId"}
	}
	var t *task
	if e := ts.store.Get(p.TaskID); e != nil {
		t = e.Value
	}
	if t == nil || (t.owner != nil && t.owner != ss) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid params: unknown task %q (it may have expired)", p.TaskID)}
	}
	return t, nil
}

// requestCapabilities are the client capabilities of a request: its
// _meta["io.modelcontextprotocol/clientCapabilities"] (2026-07-28), else its session's.
func requestCapabilities(ss *mcp.ServerSession, meta mcp.Meta) *mcp.ClientCapabilities {
	if v, ok := meta[mcp.MetaKeyClientCapabilities]; ok {
		b, err := marshalNoHTMLEscape(v) // requestid.go: a client's '<' stays one byte
		var caps mcp.ClientCapabilities
		if err == nil && json.Unmarshal(b, &caps) == nil {
			return &caps
		}
		return nil
	}
	if ss != nil {
		if ip := ss.InitializeParams(); ip != nil {
			return ip.Capabilities
		}
	}
	return nil
}

// get answers tasks/get: the task's DetailedTask.
func (ts *taskServer) get(_ context.Context, ss *mcp.ServerSession, p *taskIDParams) (*taskEnvelope, error) {
	t, err := ts.lookup("tasks/get", ss, p)
	if err != nil {
		return nil, err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.envelope(t, true), nil
}

// update answers tasks/update: the answers to keys the task asks are taken (an answer of
// the wrong shape is -32602); other keys are ignored.
func (ts *taskServer) update(_ context.Context, ss *mcp.ServerSession, p *taskIDParams) (*ackResult, error) {
	t, err := ts.lookup("tasks/update", ss, p)
	if err != nil {
		return nil, err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for key, raw := range p.InputResponses {
		if _, ok := t.asked[key]; !ok {
			continue
		}
		// The answer is held until the next round: it counts (the asked request it answers
		// stays counted until then too).
		if err := ts.store.Resize(t.entry, t.held+int64(len(raw))); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("input response %q does not fit: %v", key, err)}
		}
		t.held += int64(len(raw))
		var one mcp.InputResponseMap
		if err := json.Unmarshal([]byte(`{`+strconv.Quote(key)+`:`+string(raw)+`}`), &one); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + err.Error()}
		}
		t.answered[key] = one[key]
		delete(t.asked, key)
	}
	if t.status == TaskInputRequired && len(t.asked) == 0 && t.answerCh != nil {
		close(t.answerCh)
		t.answerCh = nil
	}
	return &ackResult{ResultType: "complete"}, nil
}

// cancelTask answers tasks/cancel: a running task is cancelled, a finished one stays.
func (ts *taskServer) cancelTask(_ context.Context, ss *mcp.ServerSession, p *taskIDParams) (*ackResult, error) {
	t, err := ts.lookup("tasks/cancel", ss, p)
	if err != nil {
		return nil, err
	}
	ts.finishCancelled(t, "cancelled by the client")
	return &ackResult{ResultType: "complete"}, nil
}

// StopTasks cancels every running task of s (they end "cancelled"), refuses every task that
// arrives after it (-32603 naming the stop), and waits until their guest calls have returned,
// or ctx ends (its error is returned). Call it before closing the runtime.Host that runs the
// guests. A server without tasks returns at once.
func StopTasks(ctx context.Context, s *mcp.Server) error {
	ts := tasksOf(s)
	if ts == nil {
		return nil
	}
	ts.mu.Lock()
	ts.stopped = true // start and register refuse from now on
	ts.mu.Unlock()
	for _, e := range ts.store.Stop() {
		ts.finishCancelled(e.Value, "the server stopped")
	}
	done := make(chan struct{})
	go func() {
		ts.running.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TaskStats is what the tasks of a server hold at one moment.
type TaskStats struct {
	Tasks    int   // tasks held: running, waiting for input, or finished and kept
	Bytes    int64 // bytes they hold (arguments, input requests, requestState, answers, results)
	Clients  int   // clients (subjects, sessions, the anonymous bucket) holding a task
	Watchers int   // sessions watched for their end (one per session with a task)
}

// TaskStatsOf reports what the tasks of s hold; zero for a server without tasks.
func TaskStatsOf(s *mcp.Server) TaskStats {
	ts := tasksOf(s)
	if ts == nil {
		return TaskStats{}
	}
	u := ts.store.Total()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return TaskStats{Tasks: u.Tasks, Bytes: u.Bytes, Clients: u.Clients, Watchers: len(ts.watchers)}
}
