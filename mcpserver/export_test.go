package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
		e := ts.store.Get(id)
		if e == nil {
			return fmt.Errorf("no task %q", id)
		}
		t := e.Value
		ts.mu.Lock()
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

// TaskUsage is what the tasks of s hold: tasks, bytes, clients (all of them, or client's
// when it is not "-"), and the session watchers running.
func TaskUsage(s *mcp.Server, client string) (tasks int, bytes int64, clients, watchers int) {
	ts := tasksOf(s)
	if ts == nil {
		return 0, 0, 0, 0
	}
	ts.mu.Lock()
	watchers = len(ts.watchers)
	ts.mu.Unlock()
	if client != "-" {
		u := ts.store.ClientUsage(client)
		return u.Tasks, u.Bytes, 0, watchers
	}
	u := ts.store.Total()
	return u.Tasks, u.Bytes, u.Clients, watchers
}

// TaskClock is a fake clock for the tasks of a server: its timers fire in Advance.
type TaskClock struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*fakeTimer]struct{}
}

type fakeTimer struct {
	at time.Time
	f  func()
}

// SetTaskClock gives the tasks of s (which must have a tool that supports them, and no task
// yet) a fake clock starting at start.
func SetTaskClock(s *mcp.Server, start time.Time) *TaskClock {
	c := &TaskClock{now: start, timers: map[*fakeTimer]struct{}{}}
	ts := tasksOf(s)
	ts.mu.Lock()
	ts.now = c.Now
	ts.mu.Unlock()
	ts.store.SetAfterFunc(c.afterFunc)
	return c
}

// Now is the clock's time.
func (c *TaskClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *TaskClock) afterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers[t] = struct{}{}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.timers[t]
		delete(c.timers, t)
		return ok
	}
}

// Advance moves the clock by d and runs the timers due (in this goroutine).
func (c *TaskClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	for t := range c.timers {
		if !t.at.After(c.now) {
			due = append(due, t)
			delete(c.timers, t)
		}
	}
	c.mu.Unlock()
	for _, t := range due {
		t.f()
	}
}

// PendingAt is how many of the clock's timers are due at now+d.
func (c *TaskClock) PendingAt(d time.Duration) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for t := range c.timers {
		if t.at.Equal(c.now.Add(d)) {
			n++
		}
	}
	return n
}
