package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/exactjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The client side of the MCP tasks extension (io.modelcontextprotocol/tasks, SEP-2663): a
// client that declares it (Options.Client's Capabilities.Extensions) may get a
// CreateTaskResult from tools/call instead of the result; it follows the task with tasks/get
// (which inlines the result when the task completed), answers its input requests with
// tasks/update, and stops it with tasks/cancel. The SDK has no tasks API: the three methods
// are registered as custom methods on every client (registerTaskMethods), and the
// Streamable HTTP transport adds the Mcp-Name header they need (taskNameHeader).

// TasksExtension is the extension's key in capabilities.extensions.
const TasksExtension = "io.modelcontextprotocol/tasks"

// Task statuses (SEP-2663).
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// TaskParams are the params of tasks/get, tasks/update and tasks/cancel.
type TaskParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// Task is a task as tasks/get answers it (DetailedTask), or the CreateTaskResult of a
// tools/call (without Result, Error and InputRequests); the acks of tasks/update and
// tasks/cancel decode to one with only ResultType.
type Task struct {
	mcp.ResultBase
	ResultType     string                     `json:"resultType,omitempty"`
	TaskID         string                     `json:"taskId,omitempty"`
	Status         string                     `json:"status,omitempty"`
	StatusMessage  string                     `json:"statusMessage,omitempty"`
	CreatedAt      string                     `json:"createdAt,omitempty"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt,omitempty"`
	TTLMs          *int64                     `json:"ttlMs,omitempty"`
	PollIntervalMs int64                      `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage            `json:"result,omitempty"`        // completed: the CallToolResult
	Error          *TaskError                 `json:"error,omitempty"`         // failed
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"` // input_required: requests by key
	RequestState   string                     `json:"requestState,omitempty"`  // never on the tasks wire
	// PollInterval is SEP-1686's name of PollIntervalMs (2025-11-25 servers).
	PollInterval int64 `json:"pollInterval,omitempty"`
	// Legacy marks a task of the 2025-11-25 tasks utility (SEP-1686): its result comes from
	// tasks/result (LegacyTaskResult), not from tasks/get.
	Legacy bool `json:"-"`
}

// TaskError is a failed task's JSON-RPC error.
type TaskError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *TaskError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// registerTaskMethods lets the sessions of c send tasks/get, tasks/update and tasks/cancel.
func registerTaskMethods(c *mcp.Client) {
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		// Not standard MCP methods, so registering cannot fail.
		_ = mcp.AddSendingCustomMethod[*TaskParams, *Task](c, m)
	}
	_ = mcp.AddSendingCustomMethod[*TaskParams, *rawResult](c, "tasks/result") // SEP-1686
}

// CreatedTask returns the task of a raw tools/call result that is a CreateTaskResult
// ({"resultType": "task", "taskId", "status", …}); false for any other result.
//
// A 2025-11-25 server (SEP-1686) answers a call sent with the "task" param
// (CallToolAsTask) with {"task": {"taskId", "status", …}}: that is a task too, Legacy.
func CreatedTask(raw []byte) (*Task, bool) {
	if !bytes.Contains(raw, []byte(`"taskId"`)) {
		return nil, false
	}
	var t Task
	if json.Unmarshal(raw, &t) == nil && t.ResultType == "task" && t.TaskID != "" {
		return &t, true
	}
	var legacy struct {
		Task *Task `json:"task"`
	}
	if json.Unmarshal(raw, &legacy) == nil && legacy.Task != nil && legacy.Task.TaskID != "" {
		legacy.Task.Legacy = true
		return legacy.Task, true
	}
	return nil, false
}

// augment adds the SEP-1686 "task" param ({}: the server's default ttl) to a tools/call that
// CallToolAsTask sent; false for any other message.
func (r *rawResults) augment(msg jsonrpc.Message) (jsonrpc.Message, bool) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != "tools/call" || !req.IsCall() {
		return msg, false
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(req.Params, &p) != nil {
		return msg, false
	}
	var meta struct {
		ProgressToken any `json:"progressToken"`
	}
	_ = json.Unmarshal(p["_meta"], &meta)
	token, _ := meta.ProgressToken.(string)
	r.mu.Lock()
	want := token != "" && r.asTask[token]
	r.mu.Unlock()
	if !want {
		return msg, false
	}
	p["task"] = json.RawMessage(`{}`)
	params, err := json.Marshal(p)
	if err != nil {
		return msg, false
	}
	cp := *req
	cp.Params = params
	return &cp, true
}

// CallToolAsTask is CallToolExact with the "task" param of the 2025-11-25 tasks utility
// (SEP-1686), which a tool declaring execution.taskSupport "required" needs there; a server
// of the tasks extension (SEP-2663) ignores the param. The result may be a task (CreatedTask).
func (s *Session) CallToolAsTask(ctx context.Context, name string, args json.RawMessage, progress func(*mcp.ProgressNotificationParams)) (*ExactResult, error) {
	return s.callToolExact(ctx, name, args, "", progress, true)
}

// ToolTaskSupport returns the execution.taskSupport of tool name as the server lists it
// ("forbidden", "optional", "required"; "" if it says nothing or lists no such tool). The SDK's
// Tool has no "execution", so the pages of tools/list are read as the server sent them.
func (s *Session) ToolTaskSupport(ctx context.Context, name string) (string, error) {
	cursor := ""
	for range s.maxPages {
		token := NewProgressToken()
		s.raw.expect(token, nil)
		p := &mcp.ListToolsParams{Cursor: cursor}
		p.SetProgressToken(token)
		_, err := s.ListTools(ctx, p)
		raw := s.raw.take(token)
		if err != nil {
			return "", err
		}
		var page struct {
			Tools []struct {
				Name      string             `json:"name"`
				Execution *abi.ToolExecution `json:"execution"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return "", fmt.Errorf("tools/list: %w", err)
		}
		for _, t := range page.Tools {
			if t.Name == name {
				if t.Execution == nil {
					return "", nil
				}
				return t.Execution.TaskSupport, nil
			}
		}
		if page.NextCursor == "" || page.NextCursor == cursor {
			return "", nil
		}
		cursor = page.NextCursor
	}
	return "", nil
}

// rawResult keeps a result's JSON as it came.
type rawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

// UnmarshalJSON keeps b.
func (r *rawResult) UnmarshalJSON(b []byte) error {
	r.raw = append(json.RawMessage(nil), b...)
	return nil
}

// LegacyTaskResult sends SEP-1686's tasks/result for id, which answers (once the task has
// ended) the tool's CallToolResult, or the JSON-RPC error it failed with.
func (s *Session) LegacyTaskResult(ctx context.Context, id string) (*ExactResult, error) {
	r, err := mcp.CallCustomMethod[*TaskParams, *rawResult](ctx, s.ClientSession, "tasks/result", &TaskParams{TaskID: id})
	if err != nil {
		return nil, err
	}
	res, err := exactjson.DecodeToolResult(r.raw)
	if err != nil {
		return nil, fmt.Errorf("task %s: its result: %w", id, err)
	}
	return &ExactResult{CallToolResult: res, Raw: r.raw}, nil
}

// GetTask sends tasks/get for id.
func (s *Session) GetTask(ctx context.Context, id string) (*Task, error) {
	return mcp.CallCustomMethod[*TaskParams, *Task](ctx, s.ClientSession, "tasks/get", &TaskParams{TaskID: id})
}

// UpdateTask sends tasks/update: responses answer the task's input requests by key.
func (s *Session) UpdateTask(ctx context.Context, id string, responses map[string]json.RawMessage) error {
	_, err := mcp.CallCustomMethod[*TaskParams, *Task](ctx, s.ClientSession, "tasks/update", &TaskParams{TaskID: id, InputResponses: responses})
	return err
}

// CancelTask sends tasks/cancel for id.
func (s *Session) CancelTask(ctx context.Context, id string) error {
	_, err := mcp.CallCustomMethod[*TaskParams, *Task](ctx, s.ClientSession, "tasks/cancel", &TaskParams{TaskID: id})
	return err
}

// TaskResult decodes a completed task's result exactly (see CallToolExact).
func TaskResult(t *Task) (*ExactResult, error) {
	res, err := exactjson.DecodeToolResult(t.Result)
	if err != nil {
		return nil, fmt.Errorf("task %s: its result: %w", t.TaskID, err)
	}
	return &ExactResult{CallToolResult: res, Raw: t.Result}, nil
}
