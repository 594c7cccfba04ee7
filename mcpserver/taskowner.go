package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxTaskOwners bounds taskOwners: far more than the tasks a server keeps (TaskOptions.
// MaxTasks), so an entry leaves only long after its task has.
const maxTaskOwners = 1 << 16

// taskOwners binds tasks to the identity that created them (issue #46): a session's tasks are
// already its own (the SDK binds the session to its identity), but a 2026-07-28 task is
// reachable by its id alone, so tasks/get, tasks/update and tasks/cancel from another identity
// get the answer an unknown id gets (-32602), revealing nothing. It sits outside the task
// store, as a receiving middleware, and records ids from the CreateTaskResult of tools/call.
type taskOwners struct {
	mu    sync.Mutex
	owner map[string]string // taskId -> Identity.Key
	order []string          // insertion order, for eviction
}

func (o *taskOwners) record(taskID, key string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.owner == nil {
		o.owner = map[string]string{}
	}
	if len(o.order) >= maxTaskOwners {
		delete(o.owner, o.order[0])
		o.order = o.order[1:]
	}
	o.owner[taskID] = key
	o.order = append(o.order, taskID)
}

// other reports whether taskID belongs to an identity other than key.
func (o *taskOwners) other(taskID, key string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	k, ok := o.owner[taskID]
	return ok && k != key
}

// middleware records and checks task owners for requests that carry an identity.
func (o *taskOwners) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		id := identityOfRequest(req)
		if id == nil {
			return next(ctx, method, req)
		}
		switch method {
		case "tasks/get", "tasks/update", "tasks/cancel":
			var p struct {
				TaskID string `json:"taskId"`
			}
			if b, err := json.Marshal(req.GetParams()); err == nil && json.Unmarshal(b, &p) == nil && o.other(p.TaskID, id.Key()) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid params: unknown task %q (it may have expired)", p.TaskID)}
			}
		case "tools/call":
			res, err := next(ctx, method, req)
			if _, plain := res.(*mcp.CallToolResult); err == nil && res != nil && !plain { // a plain result is no task: not marshalled
				var r struct {
					ResultType string `json:"resultType"`
					TaskID     string `json:"taskId"`
				}
				if b, merr := json.Marshal(res); merr == nil && json.Unmarshal(b, &r) == nil && r.ResultType == "task" && r.TaskID != "" {
					o.record(r.TaskID, id.Key())
				}
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}
