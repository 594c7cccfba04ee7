package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/internal/exactjson"
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
}

// CreatedTask returns the task of a raw tools/call result that is a CreateTaskResult
// ({"resultType": "task", "taskId", "status", …}); false for any other result.
func CreatedTask(raw []byte) (*Task, bool) {
	if !bytes.Contains(raw, []byte(`"taskId"`)) {
		return nil, false
	}
	var t Task
	if json.Unmarshal(raw, &t) != nil || t.ResultType != "task" || t.TaskID == "" {
		return nil, false
	}
	return &t, true
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
