package main

import (
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/mcpserver"
)

// "task_limits" becomes mcpserver.TaskOptions in its units (MiB → bytes, ms → durations);
// absent keys stay zero (the defaults).
func TestTaskOptionsFromConfig(t *testing.T) {
	c, err := config.Parse([]byte(`{"guests": [], "task_limits": {"max_tasks": 300, "max_mb": 64, "client_tasks": 10, "client_mb": 2, "anonymous_tasks": 5, "anonymous_mb": 1, "ttl_ms": 60000, "input_ttl_ms": 30000}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := taskOptions(c)
	want := mcpserver.TaskOptions{MaxTasks: 300, MaxBytes: 64 << 20, ClientTasks: 10, ClientBytes: 2 << 20,
		AnonymousTasks: 5, AnonymousBytes: 1 << 20, TTL: time.Minute, InputTTL: 30 * time.Second}
	if got.MaxTasks != want.MaxTasks || got.MaxBytes != want.MaxBytes || got.ClientTasks != want.ClientTasks ||
		got.ClientBytes != want.ClientBytes || got.AnonymousTasks != want.AnonymousTasks || got.AnonymousBytes != want.AnonymousBytes ||
		got.TTL != want.TTL || got.InputTTL != want.InputTTL {
		t.Errorf("taskOptions = %+v, want %+v", got, want)
	}
	c, err = config.Parse([]byte(`{"guests": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := taskOptions(c); got.MaxTasks != 0 || got.InputTTL != 0 || got.Subject != nil {
		t.Errorf("no task_limits: %+v, want zero", got)
	}
}
