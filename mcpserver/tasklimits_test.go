package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session25 is a 2025-11-25 session (declaring askCaps) of the task server at url.
type session25 struct {
	t   *testing.T
	url string
	sid string
}

var hdr25 = map[string]string{"MCP-Protocol-Version": "2025-11-25"}

func openSession25(t *testing.T, url string) *session25 {
	t.Helper()
	caps, _ := json.Marshal(askCaps)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+string(caps)+`,"clientInfo":{"name":"t","version":"0"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: HTTP %d, no session", resp.StatusCode)
	}
	send(t, url, sid, hdr25, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	ss := &session25{t, url, sid}
	t.Cleanup(ss.close)
	return ss
}

func (s *session25) call(method string, params map[string]any) wire {
	s.t.Helper()
	return send(s.t, s.url, s.sid, hdr25, map[string]any{"jsonrpc": "2.0", "id": 2, "method": method, "params": params})
}

func (s *session25) close() {
	req, _ := http.NewRequest(http.MethodDelete, s.url, nil)
	req.Header.Set("Mcp-Session-Id", s.sid)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// slow is a fresh tools/call of slow_compute for 600 s (post26 adds _meta to its params).
func slow() map[string]any {
	return map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 600}}
}

// confirm is a fresh tools/call of confirm_delete, a task that waits for input (its guest
// instance is free meanwhile: the round ended with input requests).
func confirm() map[string]any {
	return map[string]any{"name": "confirm_delete", "arguments": map[string]any{"filename": "f"}}
}

// Quotas are per client: a session that holds its share of tasks gets its "required" tool
// refused naming client_tasks, and its "optional" tool answered in the request; another
// session still makes tasks; one client's tasks filling the anonymous bucket (every
// sessionless request: the task-table-exhaust case) leave the sessions theirs.
func TestTaskQuotaPerClient(t *testing.T) {
	_, url := taskServer(t, &mcpserver.Options{Tasks: mcpserver.TaskOptions{ClientTasks: 2, AnonymousTasks: 3}})
	a, b := openSession25(t, url), openSession25(t, url)
	for i := range 2 {
		if w := mustResult(t, "a: confirm_delete", a.call("tools/call", confirm())); w.str("resultType") != "task" {
			t.Fatalf("a's task %d: %v", i, w.result)
		}
	}
	if w := a.call("tools/call", map[string]any{"name": "failing_job"}); w.err == nil || w.err.Code != -32603 ||
		w.err.Message != `tool "failing_job": task limit reached: tasks per client (client_tasks = 2); try again when a task has finished` {
		t.Errorf("a's third task (required): %+v", w.err)
	}
	w := mustResult(t, "a: optional, no room", a.call("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0, "label": "in"}}))
	if w.str("resultType") == "task" || !strings.Contains(string(w.result["content"]), "Computed in after 0s") {
		t.Errorf("a's third task (optional): %v, want the plain result", w.result)
	}
	if w := mustResult(t, "b: confirm_delete", b.call("tools/call", confirm())); w.str("resultType") != "task" {
		t.Errorf("b's task while a is full: %v", w.result)
	}
	// The anonymous bucket: 3 tasks, then refused — the sessions keep their share.
	for i := range 3 {
		if w := mustResult(t, "anonymous", post26(t, url, "tools/call", confirm(), askCaps, nil)); w.str("resultType") != "task" {
			t.Fatalf("anonymous task %d: %v", i, w.result)
		}
	}
	if w := post26(t, url, "tools/call", map[string]any{"name": "failing_job"}, tasksCaps, nil); w.err == nil ||
		w.err.Message != `tool "failing_job": task limit reached: tasks of clients without a session (anonymous_tasks = 3); try again when a task has finished` {
		t.Errorf("anonymous 4th task: %+v", w.err)
	}
	if w := mustResult(t, "b: second", b.call("tools/call", confirm())); w.str("resultType") != "task" {
		t.Errorf("b's second task with the anonymous bucket full: %v", w.result)
	}
}

// Everything a waiting task holds counts against the byte budget: the call's arguments and
// the guest's question (which repeats them; the task-input-memory case). A task whose input
// requests do not fit fails naming the limit; the bytes go back when it ends.
func TestTaskBytesCoverInput(t *testing.T) {
	s, url := taskServer(t, &mcpserver.Options{Tasks: mcpserver.TaskOptions{AnonymousBytes: 8000}})
	ctx := testCtx(t)
	confirm := func(name string) wire {
		return mustResult(t, "confirm_delete", post26(t, url, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"filename": name}}, askCaps, nil))
	}
	small := confirm("a.txt")
	if err := mcpserver.WaitTaskStatus(ctx, s, small.str("taskId"), mcpserver.TaskInputRequired); err != nil {
		t.Fatal(err)
	}
	_, held, _, _ := mcpserver.TaskUsage(s, "")
	if held < 100 || held > 1000 {
		t.Errorf("a task asking about a.txt holds %d bytes; want its arguments and question (100–1000)", held)
	}
	big := confirm(strings.Repeat("x", 4000)) // 4 KB of arguments fit; with the question (4 KB more) it does not
	id := big.str("taskId")
	if err := mcpserver.WaitTaskStatus(ctx, s, id, mcpserver.TaskFailed); err != nil {
		t.Fatal(err)
	}
	g := mustResult(t, "tasks/get", post26(t, url, "tasks/get", map[string]any{"taskId": id}, askCaps, nil))
	if e := string(g.result["error"]); !strings.Contains(e, "task limit reached: task bytes of clients without a session (anonymous_mb: 8000 bytes)") {
		t.Errorf("big question: error %s; want the limit named", e)
	}
	if _, after, _, _ := mcpserver.TaskUsage(s, ""); after != held {
		t.Errorf("after the big task failed the bucket holds %d bytes, want %d", after, held)
	}
}

// A task waiting for input expires after InputTTL: it fails naming input_ttl_ms, its guest
// is stopped and the bytes it held go back; a finished task is kept TTL, then removed.
func TestTaskInputExpires(t *testing.T) {
	s, url := taskServer(t, &mcpserver.Options{Tasks: mcpserver.TaskOptions{InputTTL: time.Minute, TTL: time.Hour}})
	ctx := testCtx(t)
	clock := mcpserver.SetTaskClock(s, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	w := mustResult(t, "confirm_delete", post26(t, url, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"filename": "a.txt"}}, askCaps, nil))
	id := w.str("taskId")
	if err := mcpserver.WaitTaskStatus(ctx, s, id, mcpserver.TaskInputRequired); err != nil {
		t.Fatal(err)
	}
	clock.Advance(59 * time.Second)
	if g := mustResult(t, "tasks/get", post26(t, url, "tasks/get", map[string]any{"taskId": id}, askCaps, nil)); g.str("status") != "input_required" {
		t.Errorf("before InputTTL: %s", g.str("status"))
	}
	clock.Advance(time.Second)
	if err := mcpserver.WaitTaskStatus(ctx, s, id, mcpserver.TaskFailed); err != nil {
		t.Fatal(err)
	}
	g := mustResult(t, "tasks/get", post26(t, url, "tasks/get", map[string]any{"taskId": id}, askCaps, nil))
	if e := string(g.result["error"]); !strings.Contains(e, "task limit reached: no input within 1m0s (input_ttl_ms = 60000)") {
		t.Errorf("expired: error %s", e)
	}
	if n, b, _, _ := mcpserver.TaskUsage(s, "-"); n != 1 || b != 0 {
		t.Errorf("after expiry: %d tasks, %d bytes; want 1 kept, 0 bytes", n, b)
	}
	clock.Advance(time.Hour)
	if n, b, c, _ := mcpserver.TaskUsage(s, "-"); n != 0 || b != 0 || c != 0 {
		t.Errorf("after TTL: %d tasks, %d bytes, %d clients; want none", n, b, c)
	}
}

// The input deadline starts with the input_required status: whoever sees the status sees the
// timer armed, so a clock advanced right after cannot start the InputTTL later than the status
// (TestTaskInputExpires failed under -race and load that way: the timer was armed after the
// status was published, and after the test's first Advance). Many tasks make the window show.
func TestTaskInputTimerArmedWithStatus(t *testing.T) {
	s, url := taskServer(t, &mcpserver.Options{Tasks: mcpserver.TaskOptions{InputTTL: time.Minute, TTL: time.Hour, MaxTasks: 1000, AnonymousTasks: 1000}})
	ctx := testCtx(t)
	clock := mcpserver.SetTaskClock(s, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	for i := range 200 {
		w := mustResult(t, "confirm_delete", post26(t, url, "tools/call", map[string]any{"name": "confirm_delete", "arguments": map[string]any{"filename": "a.txt"}}, askCaps, nil))
		if err := mcpserver.WaitTaskStatus(ctx, s, w.str("taskId"), mcpserver.TaskInputRequired); err != nil {
			t.Fatal(err)
		}
		if n := clock.PendingAt(time.Minute); n != i+1 {
			t.Fatalf("task %d is input_required with %d input deadlines pending at now+1m, want %d", i, n, i+1)
		}
	}
}

// A server full of one client's finished tasks refuses another client's task naming
// max_tasks rather than evicting them before their TTL; the owner's own next task pushes
// out its oldest finished one.
func TestTaskEvictionOwnClientOnly(t *testing.T) {
	s, url := taskServer(t, &mcpserver.Options{Tasks: mcpserver.TaskOptions{MaxTasks: 2}})
	ctx := testCtx(t)
	a, b := openSession25(t, url), openSession25(t, url)
	var ids []string
	for range 2 {
		w := mustResult(t, "a", a.call("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}}))
		ids = append(ids, w.str("taskId"))
		if err := mcpserver.WaitTaskStatus(ctx, s, w.str("taskId"), mcpserver.TaskCompleted); err != nil {
			t.Fatal(err)
		}
	}
	if w := b.call("tools/call", map[string]any{"name": "failing_job"}); w.err == nil ||
		w.err.Message != `tool "failing_job": task limit reached: tasks per server (max_tasks = 2); try again when a task has finished` {
		t.Errorf("b with the server full of a's results: %+v", w.err)
	}
	for _, id := range ids {
		if g := mustResult(t, "a's result", a.call("tasks/get", map[string]any{"taskId": id})); g.str("status") != "completed" {
			t.Errorf("a's task %s: %s", id, g.str("status"))
		}
	}
	w := mustResult(t, "a again", a.call("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}}))
	if w.str("resultType") != "task" {
		t.Fatalf("a's third task: %v", w.result)
	}
	if g := a.call("tasks/get", map[string]any{"taskId": ids[0]}); g.err == nil || g.err.Code != -32602 {
		t.Errorf("a's oldest result after its own new task: %+v, want it gone (-32602)", g.err)
	}
}

// Finished tasks leave no goroutine behind: a session's tasks share one watcher, which ends
// with the session (20 tasks once left 20 goroutines parked until the session ended).
func TestTaskNoGoroutinePerFinishedTask(t *testing.T) {
	s, url := taskServer(t, nil)
	ctx := testCtx(t)
	a := openSession25(t, url)
	run := func() {
		w := mustResult(t, "slow_compute", a.call("tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0}}))
		if err := mcpserver.WaitTaskStatus(ctx, s, w.str("taskId"), mcpserver.TaskCompleted); err != nil {
			t.Fatal(err)
		}
	}
	run()
	before := goruntime.NumGoroutine()
	for range 20 {
		run()
	}
	if after := goruntime.NumGoroutine(); after-before >= 10 {
		t.Errorf("20 finished tasks: %d goroutines, %d before", after, before)
	}
	if _, _, _, watchers := mcpserver.TaskUsage(s, "-"); watchers != 1 {
		t.Errorf("%d session watchers, want 1", watchers)
	}
	w := mustResult(t, "slow", a.call("tools/call", slow()))
	a.close()
	if err := mcpserver.WaitTaskStatus(ctx, s, w.str("taskId"), mcpserver.TaskCancelled); err != nil {
		t.Fatal(err)
	}
	if _, _, _, watchers := mcpserver.TaskUsage(s, "-"); watchers != 0 {
		t.Errorf("after the session ended: %d watchers, want 0", watchers)
	}
}

// StopTasks cancels the running tasks and refuses those that arrive after it.
func TestStopTasksRefusesLateTasks(t *testing.T) {
	s, url := taskServer(t, nil)
	ctx := testCtx(t)
	w := mustResult(t, "slow", post26(t, url, "tools/call", slow(), tasksCaps, nil))
	if err := mcpserver.StopTasks(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := mcpserver.WaitTaskStatus(ctx, s, w.str("taskId"), mcpserver.TaskCancelled); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"slow_compute", "failing_job"} {
		late := post26(t, url, "tools/call", map[string]any{"name": tool}, tasksCaps, nil)
		if late.err == nil || late.err.Message != `tool "`+tool+`": the server is stopping its tasks: no new task is accepted` {
			t.Errorf("%s after StopTasks: %+v %v", tool, late.err, late.result)
		}
	}
}

// The client key is pluggable: with TaskOptions.Subject naming one subject for every
// request, two sessions share that subject's quota.
func TestTaskQuotaBySubject(t *testing.T) {
	subject := func(context.Context, *mcp.CallToolRequest) string { return "alice" }
	_, url := taskServer(t, &mcpserver.Options{Tasks: mcpserver.TaskOptions{ClientTasks: 1, Subject: subject}})
	a, b := openSession25(t, url), openSession25(t, url)
	if w := mustResult(t, "a", a.call("tools/call", confirm())); w.str("resultType") != "task" {
		t.Fatalf("a's task: %v", w.result)
	}
	if w := b.call("tools/call", map[string]any{"name": "failing_job"}); w.err == nil ||
		w.err.Message != `tool "failing_job": task limit reached: tasks per client (client_tasks = 1); try again when a task has finished` {
		t.Errorf("b, the same subject: %+v", w.err)
	}
}

// A stateless server makes a session per request: such requests count in the anonymous
// bucket, not each as a client of its own (which would leave them bounded by the server's
// count only).
func TestTaskStatelessIsAnonymous(t *testing.T) {
	s, _ := taskServer(t, &mcpserver.Options{Tasks: mcpserver.TaskOptions{AnonymousTasks: 1}})
	hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(hs.Close)
	call := func(tool string) wire {
		return send(t, hs.URL, "", hdr25, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
			"name": tool, "arguments": map[string]any{"filename": "f"},
			"_meta": map[string]any{"io.modelcontextprotocol/clientCapabilities": askCaps}}})
	}
	w := call("confirm_delete")
	if w.str("resultType") != "task" {
		t.Skipf("a stateless 2025-11-25 request makes no task here: %+v %v", w.err, w.result)
	}
	if n, _, _, _ := mcpserver.TaskUsage(s, ""); n != 1 {
		t.Errorf("anonymous bucket holds %d tasks after a stateless task, want 1", n)
	}
	if w := call("failing_job"); w.err == nil || !strings.Contains(w.err.Message, "anonymous_tasks = 1") {
		t.Errorf("second stateless task: %+v %v, want refused naming anonymous_tasks", w.err, w.result)
	}
}
