package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// --watch: a changed guest file is reloaded and the client is told (tools/list_changed); a
// reload that fails keeps the previous version serving.
func TestWatchReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "guest.wasm")
	if err := os.WriteFile(path, wat.Fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "--watch", path)
	s.initialize()
	if err := os.WriteFile(path, wat.Echo, 0o644); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`, s.recv()); diff != "" {
		t.Errorf("after reload (-want +got):\n%s", diff)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if l := s.recv(); !strings.Contains(l, `"tools":[{"description":"Returns its arguments","inputSchema"`) || strings.Contains(l, `"spin"`) {
		t.Errorf("tools after reload: %s", l)
	}
	if err := os.WriteFile(path, []byte("not wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitLog(t, s.stderr, "reload failed; the old version keeps serving")
	s.send(callLine(3, "echo", `{"still":"here"}`))
	if _, text := toolResult(t, s.recv()); text != `{"still":"here"}` {
		t.Errorf("old version after failed reload: %s", text)
	}
}

// The kill switch: a stop file (or SIGUSR1) stops running calls and refuses new ones
// without ending the process; removing it (or SIGUSR2) resumes.
func TestOperatorStop(t *testing.T) {
	stop := filepath.Join(t.TempDir(), "STOP")
	s := startServer(t, "--stop-file", stop, fixturePath)
	s.initialize()
	// Whether spin is already running or still being dispatched when the stop file appears,
	// it is stopped with the same error: no need to wait for it to start.
	s.send(callLine(2, "spin", `{}`))
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	isErr, text := toolResult(t, s.recv())
	if want := `guest "fixture" tool "spin": calls are stopped by the operator`; !isErr || text != want {
		t.Errorf("running call: %v %q", isErr, text)
	}
	// The call and the ping run concurrently: their replies may come in either order (CI saw
	// the ping's first).
	s.send(callLine(3, "echo", `{}`), `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	replies := s.recvReplies(2)
	if isErr, text := toolResult(t, replies[3]); !isErr || text != `guest "fixture" tool "echo": calls are stopped by the operator` {
		t.Errorf("new call while stopped: %v %q", isErr, text)
	}
	if l := replies[4]; l != `{"jsonrpc":"2.0","id":4,"result":{}}` {
		t.Errorf("ping while stopped: %s", l)
	}
	if err := os.Remove(stop); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "operator resume")
	s.send(callLine(5, "echo", `{}`))
	if isErr, _ := toolResult(t, s.recv()); isErr {
		t.Errorf("call after resume failed")
	}
	// The same with signals.
	if err := s.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	waitLogCount(t, s, "operator stop:", 2)
	s.send(callLine(6, "echo", `{}`))
	if isErr, _ := toolResult(t, s.recv()); !isErr {
		t.Errorf("call after SIGUSR1 succeeded")
	}
	if err := s.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	waitLogCount(t, s, "operator resume:", 2)
	s.send(callLine(7, "echo", `{}`))
	if isErr, _ := toolResult(t, s.recv()); isErr {
		t.Errorf("call after SIGUSR2 failed")
	}
	// Each cause is lifted only by its own resume: removing the stop file leaves a SIGUSR1
	// stop in place.
	if err := s.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	waitLogCount(t, s, "operator stop:", 3)
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitLogCount(t, s, "operator stop:", 4)
	if err := os.Remove(stop); err != nil {
		t.Fatal(err)
	}
	waitLogCount(t, s, "operator resume withheld", 1)
	s.send(callLine(8, "echo", `{}`))
	if isErr, text := toolResult(t, s.recv()); !isErr || text != `guest "fixture" tool "echo": calls are stopped by the operator` {
		t.Errorf("call after SIGUSR1 and the stop file's coming and going: %v %q", isErr, text)
	}
	if err := s.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	waitLogCount(t, s, "operator resume:", 3)
	s.send(callLine(9, "echo", `{}`))
	if isErr, _ := toolResult(t, s.recv()); isErr {
		t.Errorf("call after the last cause's resume failed")
	}
}

// waitLogCount waits until s's log holds line at least n times.
func waitLogCount(t *testing.T, s *server, line string, n int) {
	t.Helper()
	waitOutput(t, s.stderr, fmt.Sprintf("%d× the log line %s", n, line), func(out string) bool { return strings.Count(out, line) >= n })
}

// The kill switch's causes, each with its own resume: stopped is their OR. The stop by the
// mcpwasm_stop tool (Host.Stop), which MCP cannot lift, is lifted by either resume of the
// operator's once no other cause holds.
func TestKillSwitchCauses(t *testing.T) {
	h, err := runtime.NewHost(context.Background(), &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	k := &killSwitch{h: h, logger: slog.New(slog.DiscardHandler)}
	tool := func() { h.Stop() }
	steps := []struct {
		name        string
		cause       *bool // nil: the tool
		on          bool
		wantStopped bool
	}{
		{"SIGUSR1", &k.signal, true, true},
		{"stop file created", &k.file, true, true},
		{"stop file removed, SIGUSR1 holds", &k.file, false, true},
		{"SIGUSR2", &k.signal, false, false},
		{"stop file created", &k.file, true, true},
		{"SIGUSR1", &k.signal, true, true},
		{"SIGUSR2, the stop file holds", &k.signal, false, true},
		{"stop file removed", &k.file, false, false},
		{"mcpwasm_stop", nil, true, true},
		{"SIGUSR2 lifts the tool's stop", &k.signal, false, false},
		{"mcpwasm_stop", nil, true, true},
		{"stop file created", &k.file, true, true},
		{"stop file removed lifts the tool's stop", &k.file, false, false},
	}
	for i, st := range steps {
		if st.cause == nil {
			tool()
		} else {
			k.set(st.cause, st.on)
		}
		if got := h.Stopped(); got != st.wantStopped {
			t.Fatalf("step %d (%s): stopped = %v, want %v", i, st.name, got, st.wantStopped)
		}
	}
}

func waitFor(t *testing.T, s *server, log string) {
	t.Helper()
	waitLog(t, s.stderr, log)
}

// A reload waits for the old version's calls as long as its own limits let them run — the
// guest's, or a tool's when longer — not the default 30 s (reproducer reload-cuts-calls: a
// call of a guest limited to 120 s lost its answer 30 s after a reload).
func TestReloadDrainFollowsTheGuestsLimits(t *testing.T) {
	h, err := runtime.NewHost(context.Background(), &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	for _, tc := range []struct {
		cfg  runtime.GuestConfig
		want time.Duration
	}{
		{runtime.GuestConfig{Limits: runtime.Limits{Timeout: 120 * time.Second}}, 120*time.Second + drainGrace},
		{runtime.GuestConfig{Limits: runtime.Limits{Timeout: 5 * time.Second},
			ToolLimits: map[string]runtime.Limits{"spin": {Timeout: 10 * time.Minute}}}, 10*time.Minute + drainGrace},
		{runtime.GuestConfig{}, policy.DefaultLimits().Timeout + drainGrace},
	} {
		g, err := h.Load(context.Background(), wat.Fixture, &tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := reloadDrain(g); got != tc.want {
			t.Errorf("reloadDrain with limits %+v, tools %+v = %v, want %v", tc.cfg.Limits, tc.cfg.ToolLimits, got, tc.want)
		}
	}
}
