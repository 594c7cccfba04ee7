package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Unexported helpers the black-box tests check directly.
var (
	ExposedName     = exposedName
	CheckHiddenText = checkHiddenText
)

// WaitTaskStatus blocks until the task id of s has status, or ctx ends; it fails at once
// if the task ends with another status.
func WaitTaskStatus(ctx context.Context, s *mcp.Server, id, status string) error {
	ts := tasksOf(s)
	if ts == nil {
		return errors.New("the server has no tasks")
	}
	for {
		ts.mu.Lock()
		t := ts.tasks[id]
		if t == nil {
			ts.mu.Unlock()
			return fmt.Errorf("no task %q", id)
		}
		got, finished, ch := t.status, !t.finished.IsZero(), t.changed
		ts.mu.Unlock()
		if got == status {
			return nil
		}
		if finished {
			return fmt.Errorf("task %q ended %s, want %s", id, got, status)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("task %q still %s: %w", id, got, ctx.Err())
		case <-ch:
		}
	}
}

// SetTaskClock sets the clock of the tasks of s (which must have a tool that supports them).
func SetTaskClock(s *mcp.Server, now func() time.Time) {
	ts := tasksOf(s)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.now = now
}
