package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/instrument"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// snapHost returns a host with snapshots on or off, and its log.
func snapHost(t testing.TB, snapshots bool) (*Host, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	h, err := NewHost(context.Background(), &Options{NoDiskCache: true,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	h.noSnapshots = !snapshots
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, logs
}

func snapCall(t *testing.T, g *Guest, session, tool, args string) string {
	t.Helper()
	out, err := g.Call(WithCallHooks(context.Background(), &CallHooks{Session: session}), tool, []byte(args))
	if err != nil {
		t.Fatalf("Call(%s, %s): %v", tool, args, err)
	}
	return string(out)
}

const (
	// What snapshot.wat's probe returns in an instance whose _initialize ran (or was restored)
	// and no call yet: the global, memory size and grown page _initialize set.
	probeFresh = `{"content":[],"structuredContent":{"g":24301,"pages":3,"mark":171,"calls":0}}`
	// … and in the same instance after one probe.
	probeUsed = `{"content":[],"structuredContent":{"g":24302,"pages":3,"mark":205,"calls":1}}`
)

// With isolation call, every call gets an instance restored from the snapshot taken after the
// first instance's _initialize: the unexported global, the memory size and the grown page
// _initialize wrote are restored, and what a call changed is gone. Without snapshots (the
// start runs each time) the answers are the same; under shared the second call sees the first.
func TestSnapshotRestoresStartState(t *testing.T) {
	for _, tc := range []struct {
		name      string
		iso       string
		snapshots bool
		want      []string
	}{
		{"call/snapshot", "call", true, []string{probeFresh, probeFresh, probeFresh}},
		{"call/start", "call", false, []string{probeFresh, probeFresh, probeFresh}},
		{"shared", "shared", true, []string{probeFresh, probeUsed, `{"content":[],"structuredContent":{"g":24303,"pages":3,"mark":205,"calls":2}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := snapHost(t, tc.snapshots)
			g, err := h.Load(context.Background(), wat.Snapshot, &GuestConfig{Isolation: tc.iso, Limits: Limits{Instances: 1}})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.want {
				if got := snapCall(t, g, "A", "probe", `{}`); got != want {
					t.Errorf("call %d: %s; want %s", i, got, want)
				}
			}
			snap := g.lists().tools["probe"].pool.snaps.get()
			if got, want := snap != nil, tc.snapshots && tc.iso != "shared"; got != want {
				t.Fatalf("pool has a snapshot: %v; want %v", got, want)
			}
			if snap != nil && len(snap.Memory()) != 3*pageSize {
				t.Errorf("snapshot of %d bytes of memory; want 3 pages", len(snap.Memory()))
			}
		})
	}
}

// With isolation session, a session keeps its warm instance, and another session's instance
// is restored from the snapshot: it never sees what the first session's calls changed.
func TestSnapshotSession(t *testing.T) {
	h, _ := snapHost(t, true)
	g, err := h.Load(context.Background(), wat.Snapshot, &GuestConfig{Isolation: "session", Limits: Limits{Instances: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []struct{ session, want string }{
		{"A", probeFresh},
		{"A", probeUsed},
		{"B", probeFresh},
		{"A", probeFresh},
	} {
		if got := snapCall(t, g, s.session, "probe", `{}`); got != s.want {
			t.Errorf("step %d (session %s): %s; want %s", i, s.session, got, s.want)
		}
	}
	if g.lists().tools["probe"].pool.snaps.get() == nil {
		t.Fatal("no snapshot")
	}
}

// A start that asks for a capability (here net: refused during a start, but asked) is not
// snapshotted: every instance runs its own _initialize, and the reason is logged once.
// So is a pool whose grants forbid it (random).
func TestSnapshotRefused(t *testing.T) {
	netWasm := bytes.Replace(wat.Snapshot, []byte("net:-"), []byte("net:n"), 1)
	// probe requests random (the manifest keeps its length: describe returns a fixed region).
	desc := `"description":"Reports the state start left and calls changed"`
	req := `"requests":{"random":true}`
	randomWasm := bytes.Replace(wat.Snapshot, []byte(desc), []byte(req+strings.Repeat(" ", len(desc)-len(req))), 1)
	for _, tc := range []struct {
		name   string
		wasm   []byte
		grants Grants
		reason string
	}{
		{"start used net", netWasm, Grants{}, `reason="its start asked for a capability (request \"http\")"`},
		{"random grant", randomWasm, Grants{Random: true}, `reason="it has the random grant"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, logs := snapHost(t, true)
			g, err := h.Load(context.Background(), tc.wasm, &GuestConfig{Isolation: "call", Grants: tc.grants, Limits: Limits{Instances: 1}})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				if got := snapCall(t, g, "A", "probe", `{}`); got != probeFresh {
					t.Errorf("call %d: %s; want %s", i, got, probeFresh)
				}
			}
			p := g.lists().tools["probe"].pool
			if p.snaps.get() != nil {
				t.Fatal("the pool has a snapshot")
			}
			if p.snaps.refused == "" || !strings.Contains(logs.String(), tc.reason) {
				t.Errorf("log does not give the reason %s:\n%s", tc.reason, logs)
			}
			if n := strings.Count(logs.String(), "not from a snapshot"); n != 1 {
				t.Errorf("the refusal is logged %d times; want once:\n%s", n, logs)
			}
			// The guest is named by its manifest (no GuestConfig.Name): the refusal names it
			// all the same, though the instance that describes it starts before the name is known.
			if want := `not from a snapshot" guest=` + g.Name() + ` `; g.Name() == "" || !strings.Contains(logs.String(), want) {
				t.Errorf("the refusal does not name the guest (%s):\n%s", want, logs)
			}
		})
	}
}

// A module that changes a table is not snapshotted (table contents are not copied), and the
// rewrite does not export the snapshot marker for it.
func TestSnapshotRefusesTableChanges(t *testing.T) {
	mod := watModule(t, `(module (table 1 funcref) (func (export "f") (table.set 0 (i32.const 0) (ref.null func))))`)
	out, err := instrument.Calls(mod)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte(instrument.ExportSnapshot)) {
		t.Error("the rewrite exported the snapshot marker for a module that changes a table")
	}
	out, err = instrument.Calls(watModule(t, `(module (global (mut i64) (i64.const 1)) (func (export "f")))`))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(instrument.ExportSnapshot)) || !bytes.Contains(out, []byte(instrument.ExportGlobalPrefix+"0")) {
		t.Error("the rewrite did not export the snapshot marker and global 0")
	}
}

func watModule(t *testing.T, src string) []byte {
	t.Helper()
	wat2wasm, err := exec.LookPath("wat2wasm")
	if err != nil {
		t.Skip("wat2wasm not installed (Debian package wabt)")
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "m.wat"), filepath.Join(dir, "m.wasm")
	if err := os.WriteFile(in, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(wat2wasm, in, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The time and memory limits hold in restored instances: a restored instance's memory starts
// at the snapshot's 3 pages, so growing 2 more is over a 4-page limit; a loop ends at the
// time limit.
func TestSnapshotLimits(t *testing.T) {
	h, _ := snapHost(t, true)
	g, err := h.Load(context.Background(), wat.Snapshot, &GuestConfig{Isolation: "call",
		Limits: Limits{Instances: 1, MemoryBytes: 4 * pageSize, Timeout: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if g.lists().tools["probe"].pool.snaps.get() == nil {
		t.Fatal("no snapshot")
	}
	_, err = g.Call(context.Background(), "grow", []byte(`{}`))
	if !errors.Is(err, ErrMemoryLimit) {
		t.Errorf("grow: %v; want ErrMemoryLimit", err)
	}
	_, err = g.Call(context.Background(), "spin", []byte(`{}`))
	if !errors.Is(err, ErrTimeLimit) {
		t.Errorf("spin: %v; want ErrTimeLimit", err)
	}
	if got := snapCall(t, g, "A", "probe", `{}`); got != probeFresh {
		t.Errorf("probe after them: %s; want %s", got, probeFresh)
	}
}

var goState struct {
	once sync.Once
	wasm []byte
	err  error
}

// goStateWasm builds testdata/guests/gostate once per test binary.
func goStateWasm(t testing.TB) []byte {
	t.Helper()
	goState.once.Do(func() {
		dir, err := os.MkdirTemp("", "gostate")
		if err != nil {
			goState.err = err
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "gostate.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "./testdata/guests/gostate")
		cmd.Dir = "../../.."
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			goState.err = fmt.Errorf("building gostate: %v\n%s", err, b)
			return
		}
		goState.wasm, goState.err = os.ReadFile(out)
	})
	if goState.err != nil {
		t.Fatal(goState.err)
	}
	return goState.wasm
}

// The Go guest restored from a snapshot: what init filled (4 MiB of heap, past the module's
// initial memory) is intact, and what one call kept is gone in the next — in the one instance,
// reset in place, its memory under the snapshot's image (Linux) or, "copy", on the Go heap.
func TestSnapshotGoGuest(t *testing.T) {
	wasm := goStateWasm(t)
	// The checksum init's heap has, from an instance that ran its own start.
	h0, _ := snapHost(t, false)
	g0, err := h0.Load(context.Background(), wasm, &GuestConfig{Isolation: "call", Limits: Limits{Instances: 1}})
	if err != nil {
		t.Fatal(err)
	}
	first := snapCall(t, g0, "A", "remember", `{"secret":"a"}`)
	if !strings.Contains(first, `"prev":null`) || !strings.Contains(first, `"calls":0`) {
		t.Fatalf("first call: %s", first)
	}
	for _, tc := range []struct {
		iso    string
		mapped bool
	}{{"call", true}, {"call", false}, {"session", true}} {
		iso := tc.iso
		t.Run(iso+map[bool]string{true: "", false: "/copy"}[tc.mapped], func(t *testing.T) {
			h, _ := snapHost(t, true)
			h.noMappedMemory = !tc.mapped
			g, err := h.Load(context.Background(), wasm, &GuestConfig{Isolation: iso, Limits: Limits{Instances: 1}})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range []string{"A", "B", "C"} {
				if got := snapCall(t, g, s, "remember", fmt.Sprintf(`{"secret":%d}`, i)); got != first {
					t.Errorf("call %d: %s; want %s", i, got, first)
				}
			}
			snap := g.lists().tools["remember"].pool.snaps.get()
			if snap == nil {
				t.Fatal("no snapshot")
			}
			if len(snap.Memory()) < 4<<20 {
				t.Errorf("snapshot of %d bytes of memory; init filled 4 MiB", len(snap.Memory()))
			}
			if got, want := snap.Image != nil, tc.mapped && goruntime.GOOS == "linux"; got != want {
				t.Errorf("snapshot image mapped: %v; want %v", got, want)
			}
			if got := g.stats.resets.Load(); got != 2 {
				t.Errorf("%d resets; want 2 (3 calls in one instance)", got)
			}
		})
	}
	h, _ := snapHost(t, true)
	g, err := h.Load(context.Background(), wasm, &GuestConfig{Isolation: "shared", Limits: Limits{Instances: 1}})
	if err != nil {
		t.Fatal(err)
	}
	snapCall(t, g, "A", "remember", `{"secret":"a"}`)
	if got := snapCall(t, g, "B", "remember", `{}`); !strings.Contains(got, `"prev":{"secret":"a"}`) {
		t.Errorf("shared: the second call got %s; want the first call's arguments", got)
	}
}

// A snapshot goes with the guest's code when the idle sweep drops it, and the first instance
// after the code is back takes another.
func TestSnapshotDroppedWithCode(t *testing.T) {
	h, _ := testHost(t, Options{CacheDir: primed(t), Lazy: true, IdleTimeout: time.Hour})
	g := mustLoad(t, h, wat.Snapshot, &GuestConfig{Isolation: "call", Limits: Limits{Instances: 1}})
	if got := mustCall(t, g, "probe", `{}`); got != probeFresh {
		t.Fatalf("probe: %s; want %s", got, probeFresh)
	}
	p := g.lists().tools["probe"].pool
	if p.snaps.get() == nil {
		t.Fatal("no snapshot after the first call")
	}
	// A call pool keeps its instance idle for the next call (reset in place, reset.go): the
	// sweep closes it first, as the host's sweep does.
	if n := p.shrink(h.watch.Now()+2*time.Hour, time.Hour); n != 1 {
		t.Fatalf("shrink closed %d instances; want the 1 idle", n)
	}
	if !g.unloadIdle(h.watch.Now()+2*time.Hour, time.Hour) {
		t.Fatal("code not unloaded")
	}
	if p.snaps.get() != nil {
		t.Fatal("the snapshot outlived the code")
	}
	if got := mustCall(t, g, "probe", `{}`); got != probeFresh {
		t.Fatalf("probe after the reload: %s; want %s", got, probeFresh)
	}
	if p.snaps.get() == nil {
		t.Fatal("no snapshot after the reload")
	}
}

// The debug line saying a pool's instances start from a snapshot names the guest, though the
// snapshot is taken by the instance that describes the guest, which starts before the
// manifest names it (no GuestConfig.Name here): the line is held until load has the name.
func TestSnapshotLogNamesGuest(t *testing.T) {
	h, logs := snapHost(t, true)
	g, err := h.Load(context.Background(), wat.Snapshot, &GuestConfig{Isolation: "call", Limits: Limits{Instances: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := snapCall(t, g, "A", "probe", `{}`); got != probeFresh {
		t.Fatalf("probe: %s; want %s", got, probeFresh)
	}
	var lines []string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, `msg="instances start from a snapshot"`) {
			lines = append(lines, line)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("%d lines say instances start from a snapshot; want 1:\n%s", len(lines), logs)
	}
	if want := ` guest=` + g.Name() + ` memory=` + fmt.Sprint(3*pageSize) + ` `; g.Name() == "" || !strings.Contains(lines[0], want) {
		t.Errorf("the line does not name the guest (want %q):\n%s", want, lines[0])
	}
}
