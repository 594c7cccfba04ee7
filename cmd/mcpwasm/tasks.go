package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/termtext"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/upstream"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of following a task (mcpwasm call).
const (
	// taskPollDefault is the wait between two tasks/get when the server suggests none;
	// taskPollMin and taskPollMax bound what it suggests.
	taskPollDefault = time.Second
	taskPollMin     = 50 * time.Millisecond
	taskPollMax     = 10 * time.Second
	// taskCancelWait bounds the tasks/cancel sent when the user interrupts.
	taskCancelWait = 5 * time.Second
	// taskStopWait bounds how long serve waits at exit for the guests of cancelled tasks.
	taskStopWait = 5 * time.Second
)

// taskOptions are the task bounds of cfg's "task_limits" (zero: the defaults).
func taskOptions(cfg *config.Config) mcpserver.TaskOptions {
	if cfg == nil || cfg.TaskLimits == nil {
		return mcpserver.TaskOptions{}
	}
	l := cfg.TaskLimits
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	return mcpserver.TaskOptions{MaxTasks: l.MaxTasks, MaxBytes: int64(l.MaxMB) << 20,
		ClientTasks: l.ClientTasks, ClientBytes: int64(l.ClientMB) << 20,
		AnonymousTasks: l.AnonymousTasks, AnonymousBytes: int64(l.AnonymousMB) << 20,
		TTL: ms(l.TTLMS), InputTTL: ms(l.InputTTLMS)}
}

// withTasks declares the tasks extension (io.modelcontextprotocol/tasks, SEP-2663) in co, so
// that a server may answer a tools/call with a task (which followTask follows).
func withTasks(co *mcp.ClientOptions) *mcp.ClientOptions {
	if co == nil {
		co = &mcp.ClientOptions{}
	}
	cp := *co
	caps := mcp.ClientCapabilities{} // no roots: we have none to offer
	if co.Capabilities != nil {
		caps = *co.Capabilities
	}
	caps.Extensions = maps.Clone(caps.Extensions)
	caps.AddExtension(upstream.TasksExtension, nil)
	cp.Capabilities = &caps
	return &cp
}

// followTask follows task t, which a tools/call created, until it ends, and returns its
// result. Each status (with its message) is printed to stderr when it changes ("task ID:
// working: message"). The server is asked again after the poll interval it suggests. Input
// the task asks for (input_required) is answered through co's elicitation handler (declined
// without one, and for other kinds) with tasks/update. When ctx ends — Ctrl-C, --timeout —
// the task is cancelled (tasks/cancel) and ctx's error returned.
func followTask(ctx context.Context, sess *upstream.Session, t *upstream.Task, co *mcp.ClientOptions, stderr io.Writer) (*upstream.ExactResult, error) {
	id := t.TaskID
	last := ""
	show := func(t *upstream.Task) {
		line := t.Status
		if t.StatusMessage != "" {
			line += ": " + t.StatusMessage
		}
		if line != last {
			fmt.Fprintf(stderr, "task %s: %s\n", termtext.Escape(id), termtext.Escape(line))
			last = line
		}
	}
	cancel := func(err error) (*upstream.ExactResult, error) {
		cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), taskCancelWait)
		defer stop()
		if cerr := sess.CancelTask(cctx, id); cerr != nil {
			fmt.Fprintf(stderr, "task %s: tasks/cancel failed: %v\n", id, cerr)
		} else {
			fmt.Fprintf(stderr, "task %s: cancelled (tasks/cancel sent)\n", id)
		}
		return nil, err
	}
	show(t)
	answered := false // input of this input_required phase was sent
	for {
		detailed := t.Result != nil || t.Error != nil || t.InputRequests != nil
		if t.Legacy {
			// SEP-1686 (2025-11-25): tasks/result answers once the task has ended; while it is
			// open the server sends the task's questions as requests of the session, which
			// --elicit answers.
			switch t.Status {
			case upstream.TaskCompleted, upstream.TaskFailed, upstream.TaskInputRequired:
				res, err := sess.LegacyTaskResult(ctx, id)
				if err != nil {
					if ctx.Err() != nil {
						return cancel(ctx.Err())
					}
					return nil, fmt.Errorf("task %s: tasks/result: %w", id, err)
				}
				return res, nil
			case upstream.TaskCancelled:
				return nil, fmt.Errorf("task %s was cancelled by the server", id)
			}
			detailed = true // wait before asking again
		}
		switch t.Status {
		case upstream.TaskCompleted:
			if t.Result != nil {
				return upstream.TaskResult(t)
			}
		case upstream.TaskFailed:
			if t.Error != nil {
				return nil, fmt.Errorf("task %s failed: %w", id, t.Error)
			}
			if detailed {
				return nil, fmt.Errorf("task %s failed", id)
			}
		case upstream.TaskCancelled:
			return nil, fmt.Errorf("task %s was cancelled by the server", id)
		case upstream.TaskInputRequired:
			if len(t.InputRequests) > 0 && !answered {
				responses, err := answerInput(ctx, co, t.InputRequests, stderr)
				if err != nil {
					return cancel(err)
				}
				if err := sess.UpdateTask(ctx, id, responses); err != nil {
					if ctx.Err() != nil {
						return cancel(ctx.Err())
					}
					return nil, fmt.Errorf("task %s: tasks/update: %w", id, err)
				}
				answered = true
			}
		default:
			answered = false
		}
		// A finished task without its result (a CreateTaskResult) is asked again at once.
		if detailed || t.Status == upstream.TaskWorking || t.Status == upstream.TaskInputRequired {
			wait := time.Duration(max(t.PollIntervalMs, t.PollInterval)) * time.Millisecond
			if wait <= 0 {
				wait = taskPollDefault
			}
			timer := time.NewTimer(min(max(wait, taskPollMin), taskPollMax))
			select {
			case <-ctx.Done():
				timer.Stop()
				return cancel(ctx.Err())
			case <-timer.C:
			}
		}
		next, err := sess.GetTask(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return cancel(ctx.Err())
			}
			return nil, fmt.Errorf("task %s: tasks/get: %w", id, err)
		}
		if next.Status != upstream.TaskInputRequired {
			answered = false
		}
		next.Legacy = t.Legacy
		t = next
		show(t)
	}
}

// answerInput answers a task's input requests ({"method", "params"} by key): elicitation
// through co's handler (declined without one); any other kind is an error.
func answerInput(ctx context.Context, co *mcp.ClientOptions, reqs map[string]json.RawMessage, stderr io.Writer) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for key, raw := range reqs {
		var r struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(raw, &r)
		res := any(&mcp.ElicitResult{Action: "decline"})
		switch {
		case r.Method == "elicitation/create" && co != nil && co.ElicitationHandler != nil:
			var p mcp.ElicitParams
			if err := json.Unmarshal(r.Params, &p); err != nil {
				return nil, fmt.Errorf("input request %q: %w", key, err)
			}
			er, err := co.ElicitationHandler(ctx, &mcp.ElicitRequest{Params: &p})
			if err != nil {
				return nil, fmt.Errorf("input request %q: %w", key, err)
			}
			res = er
		case r.Method == "elicitation/create":
			fmt.Fprintf(stderr, "input request %q declined: no way to ask (see --elicit)\n", key)
		default:
			return nil, fmt.Errorf("the task asks %s (input request %q), which mcpwasm call does not answer", r.Method, key)
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		out[key] = b
	}
	return out, nil
}
