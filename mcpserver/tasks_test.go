package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskServer serves the conformance guest (its tasks fixtures: slow_compute, failing_job,
// protocol_error_job, confirm_delete, multi_input, test_tool_with_task, greet) with the
// clock and the client kinds granted, over HTTP with JSON answers (sessions for 2025-11-25,
// sessionless 2026-07-28 on the same endpoint).
func taskServer(t *testing.T, opts *mcpserver.Options) (*mcp.Server, string) {
	t.Helper()
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: askGuest.cache})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	grants := allClientGrants
	grants.Clock = true
	g, err := h.Load(ctx, confWasm(t), &runtime.GuestConfig{Grants: grants})
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &mcpserver.Options{}
	}
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mcpserver.StopTasks(context.Background(), s) }) // before the host closes
	hs := httptest.NewServer(mcpserver.NewHTTPHandler(s, &mcpserver.HTTPOptions{JSONResponse: true}))
	t.Cleanup(hs.Close)
	return s, hs.URL
}

// wire is one JSON-RPC answer: the HTTP status, the result or error as raw JSON.
type wire struct {
	status int
	result map[string]json.RawMessage
	err    *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
}

// tasksCaps are client capabilities declaring the tasks extension.
var tasksCaps = map[string]any{"extensions": map[string]any{mcpserver.TasksExtension: map[string]any{}}}

// askCaps also declare elicitation.
var askCaps = map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{mcpserver.TasksExtension: map[string]any{}}}

// post26 sends one 2026-07-28 request (per-request _meta, Mcp-Method and Mcp-Name headers)
// declaring caps; hdr overrides headers ("" deletes one).
func post26(t *testing.T, url, method string, params map[string]any, caps map[string]any, hdr map[string]string) wire {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "0"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	switch {
	case method == "tools/call":
		h["Mcp-Name"] = params["name"].(string)
	case strings.HasPrefix(method, "tasks/"):
		h["Mcp-Name"], _ = params["taskId"].(string)
	}
	for k, v := range hdr {
		h[k] = v
	}
	return send(t, url, "", h, map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

// send posts body with the headers (Mcp-Session-Id sid unless empty) and decodes the answer.
func send(t *testing.T, url, sid string, hdr map[string]string, body any) wire {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	w := wire{status: resp.StatusCode}
	if len(bytes.TrimSpace(raw)) == 0 {
		return w
	}
	var m struct {
		Result map[string]json.RawMessage `json:"result"`
		Error  json.RawMessage            `json:"error"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: answer %s: %v", hdr["Mcp-Method"], raw, err)
	}
	w.result = m.Result
	if m.Error != nil {
		_ = json.Unmarshal(m.Error, &w.err)
	}
	return w
}

// str is the JSON string field of w's result ("" if absent or not a string).
func (w wire) str(field string) string {
	var s string
	_ = json.Unmarshal(w.result[field], &s)
	return s
}

func mustResult(t *testing.T, what string, w wire) wire {
	t.Helper()
	if w.err != nil || w.result == nil {
		t.Fatalf("%s: HTTP %d, error %+v, want a result", what, w.status, w.err)
	}
	return w
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// A task-supporting tool that reports progress becomes a task: the CreateTaskResult is flat
// (SEP-2663), tasks/get answers it while it works, tasks/cancel stops the guest, and the task
// stays cancelled (a second cancel is the same ack).
func TestTaskCreateGetCancel(t *testing.T) {
	s, url := taskServer(t, nil)
	ctx := testCtx(t)
	w := mustResult(t, "tools/call", post26(t, url, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 600, "label": "x"}}, tasksCaps, nil))
	id := w.str("taskId")
	if w.str("resultType") != "task" || w.str("status") != "working" || len(id) != 32 {
		t.Fatalf("CreateTaskResult = %v", w.result)
	}
	if string(w.result["ttlMs"]) != "3600000" || string(w.result["pollIntervalMs"]) != "1000" {
		t.Errorf("ttlMs %s pollIntervalMs %s, want 3600000 and 1000", w.result["ttlMs"], w.result["pollIntervalMs"])
	}
	for _, k := range []string{"task", "result", "error", "inputRequests", "requestState", "ttl", "pollInterval"} {
		if _, ok := w.result[k]; ok {
			t.Errorf("CreateTaskResult carries %q: %v", k, w.result)
		}
	}
	g := mustResult(t, "tasks/get", post26(t, url, "tasks/get", map[string]any{"taskId": id}, tasksCaps, nil))
	if g.str("taskId") != id || g.str("status") != "working" || g.str("resultType") != "complete" || g.str("createdAt") != w.str("createdAt") {
		t.Errorf("tasks/get = %v", g.result)
	}
	for i := 0; i < 2; i++ {
		c := mustResult(t, "tasks/cancel", post26(t, url, "tasks/cancel", map[string]any{"taskId": id}, tasksCaps, nil))
		delete(c.result, "_meta")
		if b, _ := json.Marshal(c.result); string(b) != `{"resultType":"complete"}` {
			t.Errorf("tasks/cancel #%d = %s, want {\"resultType\":\"complete\"}", i+1, b)
		}
	}
	if err := mcpserver.WaitTaskStatus(ctx, s, id, mcpserver.TaskCancelled); err != nil {
		t.Fatal(err)
	}
	g = mustResult(t, "tasks/get", post26(t, url, "tasks/get", map[string]any{"taskId": id}, tasksCaps, nil))
	if g.str("status") != "cancelled" || g.result["result"] != nil || g.result["error"] != nil {
		t.Errorf("tasks/get after cancel = %v", g.result)
	}
}

// A finished task inlines its result; a tool error is completed with isError; a host
// failure (the guest exits mid-call) is failed with a JSON-RPC error and no result.
func TestTaskOutcomes(t *testing.T) {
	s, url := taskServer(t, nil)
	ctx := testCtx(t)
	for _, c := range []struct {
		tool   string
		args   map[string]any
		status string
		check  func(g wire) string
	}{
		{"slow_compute", map[string]any{"seconds": 0, "label": "quick"}, "completed", func(g wire) string {
			if got := string(g.result["result"]); !strings.Contains(got, `"text":"Computed quick after 0s"`) || strings.Contains(got, "related-task") {
				return "result " + got
			}
			return ""
		}},
		{"failing_job", nil, "completed", func(g wire) string {
			if got := string(g.result["result"]); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "failing_job failed, as it always does") {
				return "result " + got
			}
			return ""
		}},
		{"protocol_error_job", nil, "failed", func(g wire) string {
			var e struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			}
			_ = json.Unmarshal(g.result["error"], &e)
			if e.Code != -32603 || !strings.Contains(e.Message, "protocol_error_job") || g.result["result"] != nil {
				return "error " + string(g.result["error"]) + ", result " + string(g.result["result"])
			}
			return ""
		}},
	} {
		w := mustResult(t, c.tool, post26(t, url, "tools/call", map[string]any{"name": c.tool, "arguments": c.args}, tasksCaps, nil))
		id := w.str("taskId")
		if w.str("resultType") != "task" || id == "" {
			t.Fatalf("%s: %v, want a CreateTaskResult", c.tool, w.result)
		}
		if err := mcpserver.WaitTaskStatus(ctx, s, id, c.status); err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		g := mustResult(t, "tasks/get", post26(t, url, "tasks/get", map[string]any{"taskId": id}, tasksCaps, nil))
		if g.str("status") != c.status {
			t.Errorf("%s: status %q, want %q", c.tool, g.str("status"), c.status)
		}
		if msg := c.check(g); msg != "" {
			t.Errorf("%s: %s", c.tool, msg)
		}
	}
}

// Input a task's guest asks is on tasks/get (input_required, inputRequests by key); a
// tasks/update may answer part of it (the task keeps asking the rest) and ignores keys it
// did not ask; when all are answered the guest runs again with the answers.
func TestTaskInputRequired(t *testing.T) {
	s, url := taskServer(t, nil)
	ctx := testCtx(t)
	w := mustResult(t, "tools/call", post26(t, url, "tools/call", map[string]any{"name": "multi_input"}, askCaps, nil))
	id := w.str("taskId")
	if err := mcpserver.WaitTaskStatus(ctx, s, id, mcpserver.TaskInputRequired); err != nil {
		t.Fatal(err)
	}
	g := mustResult(t, "tasks/get", post26(t, url, "tasks/get", map[string]any{"taskId": id}, askCaps, nil))
	var asked map[string]struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(g.result["inputRequests"], &asked)
	if len(asked) != 2 || asked["first"].Method != "elicitation/create" || asked["second"].Method != "elicitation/create" {
		t.Fatalf("inputRequests = %s, want first and second (elicitation/create)", g.result["inputRequests"])
	}
	accept := func(name string) map[string]any {
		return map[string]any{"action": "accept", "content": map[string]any{"name": name}}
	}
	u := mustResult(t, "tasks/update", post26(t, url, "tasks/update", map[string]any{"taskId": id,
		"inputResponses": map[string]any{"first": accept("A"), "unknown-key": map[string]any{"ignored": true}}}, askCaps, nil))
	if u.str("resultType") != "complete" || u.result["taskId"] != nil {
		t.Errorf("tasks/update ack = %v", u.result)
	}
	g = mustResult(t, "tasks/get", post26(t, url, "tasks/get", map[string]any{"taskId": id}, askCaps, nil))
	asked = nil
	_ = json.Unmarshal(g.result["inputRequests"], &asked)
	if _, still := asked["second"]; g.str("status") != "input_required" || len(asked) != 1 || !still {
		t.Fatalf("after a partial update: status %q, inputRequests %s; want input_required with second only", g.str("status"), g.result["inputRequests"])
	}
	mustResult(t, "tasks/update", post26(t, url, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"second": accept("B")}}, askCaps, nil))
	if err := mcpserver.WaitTaskStatus(ctx, s, id, mcpserver.TaskCompleted); err != nil {
		t.Fatal(err)
	}
	g = mustResult(t, "tasks/get", post26(t, url, "tasks/get", map[string]any{"taskId": id}, askCaps, nil))
	if got := string(g.result["result"]); !strings.Contains(got, `"text":"Got A and B"`) {
		t.Errorf("result = %s, want the text Got A and B", got)
	}
}

// Input asked before the guest reports progress is gathered in synchronous rounds; the
// round that then runs to the end answers a finished task for a required tool (SEP-2663
// MRTR → Tasks composition). An optional tool without progress answers its result.
func TestTaskAfterInputRounds(t *testing.T) {
	_, url := taskServer(t, nil)
	w := mustResult(t, "round 1", post26(t, url, "tools/call", map[string]any{"name": "test_tool_with_task"}, askCaps, nil))
	if w.str("resultType") != "input_required" || w.result["taskId"] != nil || w.str("requestState") == "" {
		t.Fatalf("round 1 = %v, want input_required without taskId", w.result)
	}
	w = mustResult(t, "round 2", post26(t, url, "tools/call", map[string]any{"name": "test_tool_with_task", "requestState": w.str("requestState"),
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}}, askCaps, nil))
	if w.str("resultType") != "task" || w.str("status") != "completed" || w.result["requestState"] != nil {
		t.Fatalf("round 2 = %v, want a CreateTaskResult, completed", w.result)
	}
	g := mustResult(t, "tasks/get", post26(t, url, "tasks/get", map[string]any{"taskId": w.str("taskId")}, askCaps, nil))
	if got := string(g.result["result"]); !strings.Contains(got, `"text":"Hello, Alice!"`) {
		t.Errorf("result = %s", got)
	}
	w = mustResult(t, "greet", post26(t, url, "tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "W"}, "task": map[string]any{"ttl": 60000}}, askCaps, nil))
	if w.str("resultType") != "complete" || !strings.Contains(string(w.result["content"]), "Hello, W!") {
		t.Errorf("greet with a legacy task param = %v, want its plain result", w.result)
	}
}

// Without the extension: an optional tool answers its result, a required one and tasks/*
// are -32021 naming the extension; an unknown task is -32602; Mcp-Name must be the taskId.
func TestTaskRefusals(t *testing.T) {
	_, url := taskServer(t, nil)
	none := map[string]any{}
	w := mustResult(t, "slow_compute", post26(t, url, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0, "label": "s"}}, none, nil))
	if w.str("resultType") != "complete" || w.result["taskId"] != nil || !strings.Contains(string(w.result["content"]), "Computed s after 0s") {
		t.Errorf("slow_compute without the extension = %v, want its result", w.result)
	}
	want := `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	for _, c := range []struct{ method, name string }{{"tools/call", "failing_job"}, {"tasks/get", ""}, {"tasks/update", ""}, {"tasks/cancel", ""}} {
		p := map[string]any{"taskId": "nope"}
		if c.name != "" {
			p = map[string]any{"name": c.name}
		}
		w := post26(t, url, c.method, p, none, nil)
		if w.err == nil || w.err.Code != -32021 || string(w.err.Data) != want {
			t.Errorf("%s without the extension: %+v, want -32021 with data %s", c.method, w.err, want)
		}
	}
	w = post26(t, url, "tasks/get", map[string]any{"taskId": "nope"}, tasksCaps, nil)
	if w.err == nil || w.err.Code != -32602 || w.err.Message != `invalid params: unknown task "nope" (it may have expired)` {
		t.Errorf("unknown task: %+v", w.err)
	}
	for _, m := range []string{"tasks/result", "tasks/list"} {
		if w := post26(t, url, m, map[string]any{"taskId": "nope"}, tasksCaps, nil); w.err == nil || w.err.Code != -32601 {
			t.Errorf("%s: %+v, want -32601", m, w.err)
		}
	}
	for hdr, msg := range map[string]string{
		"":      `missing required Mcp-Name header for method "tasks/get" (it carries params.taskId)`,
		"other": `header mismatch: Mcp-Name header value "other" does not match params.taskId "nope"`,
	} {
		w := post26(t, url, "tasks/get", map[string]any{"taskId": "nope"}, tasksCaps, map[string]string{"Mcp-Name": hdr})
		if w.status != http.StatusBadRequest || w.err == nil || w.err.Code != -32020 || w.err.Message != msg {
			t.Errorf("Mcp-Name %q: HTTP %d %+v, want 400 -32020 %q", hdr, w.status, w.err, msg)
		}
	}
}

// The operator narrows task support: capped at forbidden, no tool is a task, tools/list shows
// no execution and the capability is not declared; capped at optional, a required tool is
// served as optional. Uncapped, tools/list shows each tool's execution.
func TestTaskCaps(t *testing.T) {
	discover := func(url string) string {
		w := mustResult(t, "server/discover", post26(t, url, "server/discover", nil, tasksCaps, nil))
		return string(w.result["capabilities"])
	}
	execution := func(url, tool string) string {
		w := mustResult(t, "tools/list", post26(t, url, "tools/list", nil, tasksCaps, nil))
		var tools []map[string]json.RawMessage
		_ = json.Unmarshal(w.result["tools"], &tools)
		for _, tl := range tools {
			if string(tl["name"]) == `"`+tool+`"` {
				return string(tl["execution"])
			}
		}
		return "no tool"
	}
	_, url := taskServer(t, nil)
	if got := execution(url, "failing_job"); got != `{"taskSupport":"required"}` {
		t.Errorf("failing_job execution = %s", got)
	}
	if got := execution(url, "greet"); got != "" {
		t.Errorf("greet execution = %s, want none", got)
	}
	if got := discover(url); !strings.Contains(got, `"extensions":{"io.modelcontextprotocol/tasks":{}}`) {
		t.Errorf("capabilities = %s, want the tasks extension", got)
	}

	_, url = taskServer(t, &mcpserver.Options{GuestTasks: map[string]mcpserver.TaskCaps{"conformance": {Max: "forbidden"}}})
	if got := execution(url, "slow_compute"); got != "" {
		t.Errorf("capped at forbidden: slow_compute execution = %s", got)
	}
	if got := discover(url); strings.Contains(got, "tasks") {
		t.Errorf("capped at forbidden: capabilities = %s", got)
	}
	w := mustResult(t, "failing_job", post26(t, url, "tools/call", map[string]any{"name": "failing_job"}, tasksCaps, nil))
	if w.str("resultType") != "complete" || !strings.Contains(string(w.result["content"]), "failing_job failed") {
		t.Errorf("capped at forbidden: failing_job = %v, want its plain result", w.result)
	}

	_, url = taskServer(t, &mcpserver.Options{GuestTasks: map[string]mcpserver.TaskCaps{"conformance": {Tools: map[string]string{"failing_job": "optional"}}}})
	if got := execution(url, "failing_job"); got != `{"taskSupport":"optional"}` {
		t.Errorf("failing_job capped at optional: execution = %s", got)
	}
	if w := post26(t, url, "tools/call", map[string]any{"name": "failing_job"}, map[string]any{}, nil); w.err != nil {
		t.Errorf("failing_job capped at optional, without the extension: %+v, want its result", w.err)
	}
}

// Finished tasks are kept TTL, then tasks/get no longer knows them; a server holding MaxTasks
// tasks refuses a new one, naming the limit.
func TestTaskBounds(t *testing.T) {
	s, url := taskServer(t, &mcpserver.Options{Tasks: mcpserver.TaskOptions{TTL: time.Minute, MaxTasks: 1}})
	ctx := testCtx(t)
	clock := mcpserver.SetTaskClock(s, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	w := mustResult(t, "tools/call", post26(t, url, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 600}}, tasksCaps, nil))
	id := w.str("taskId")
	if w.str("createdAt") != "2026-01-02T03:04:05.000Z" || string(w.result["ttlMs"]) != "60000" {
		t.Errorf("createdAt %s ttlMs %s", w.result["createdAt"], w.result["ttlMs"])
	}
	// No room for a second task: a "required" tool is refused naming the limit, an
	// "optional" one answers in its request.
	w = post26(t, url, "tools/call", map[string]any{"name": "failing_job"}, tasksCaps, nil)
	if w.err == nil || w.err.Code != -32603 || w.err.Message != `tool "failing_job": task limit reached: tasks of clients without a session (anonymous_tasks = 1); try again when a task has finished` {
		t.Errorf("second task, required: %+v", w.err)
	}
	w = mustResult(t, "optional, no room", post26(t, url, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0, "label": "x"}}, tasksCaps, nil))
	if rt := w.str("resultType"); rt == "task" || !strings.Contains(string(w.result["content"]), "Computed x after 0s") {
		t.Errorf("second task, optional: resultType %q content %s; want the plain result", rt, w.result["content"])
	}
	mustResult(t, "tasks/cancel", post26(t, url, "tasks/cancel", map[string]any{"taskId": id}, tasksCaps, nil))
	if err := mcpserver.WaitTaskStatus(ctx, s, id, mcpserver.TaskCancelled); err != nil {
		t.Fatal(err)
	}
	clock.Advance(59 * time.Second)
	mustResult(t, "tasks/get before the TTL", post26(t, url, "tasks/get", map[string]any{"taskId": id}, tasksCaps, nil))
	clock.Advance(time.Second)
	if w := post26(t, url, "tasks/get", map[string]any{"taskId": id}, tasksCaps, nil); w.err == nil || w.err.Code != -32602 {
		t.Errorf("tasks/get after the TTL: %+v, want -32602", w.err)
	}
}

// A 2025-11-25 session that declared the extension owns its tasks: another session does not
// see them, and ending the session cancels them.
func TestTaskSessionBound(t *testing.T) {
	s, url := taskServer(t, nil)
	ctx := testCtx(t)
	open := func() string {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"clientInfo":{"name":"t","version":"0"}}}`))
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
		send(t, url, sid, map[string]string{"MCP-Protocol-Version": "2025-11-25"}, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
		return sid
	}
	call := func(sid, method string, params map[string]any) wire {
		return send(t, url, sid, map[string]string{"MCP-Protocol-Version": "2025-11-25"}, map[string]any{"jsonrpc": "2.0", "id": 2, "method": method, "params": params})
	}
	a, b := open(), open()
	w := mustResult(t, "tools/call", call(a, "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 600}}))
	id := w.str("taskId")
	if w.str("resultType") != "task" || id == "" {
		t.Fatalf("tools/call in a session = %v", w.result)
	}
	mustResult(t, "tasks/get in its session", call(a, "tasks/get", map[string]any{"taskId": id}))
	if w := call(b, "tasks/get", map[string]any{"taskId": id}); w.err == nil || w.err.Code != -32602 {
		t.Errorf("tasks/get from another session: %+v, want -32602", w.err)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", a)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := mcpserver.WaitTaskStatus(ctx, s, id, mcpserver.TaskCancelled); err != nil {
		t.Fatal(err)
	}
}
