package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/internal/manifests"

	"github.com/mcpwasm/mcpwasm/runtime/internal/cacheauth"

	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// These tests reach into the Host (package runtime) to hold back background compiles (by
// filling the compile semaphore) and to run sweeps at a chosen time: they wait on events,
// never on fixed sleeps.

type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func testHost(t *testing.T, o Options) (*Host, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h, err := NewHost(context.Background(), &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, logs
}

func mustLoad(t *testing.T, h *Host, wasm []byte, cfg *GuestConfig) *Guest {
	t.Helper()
	g, err := h.Load(context.Background(), wasm, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustCall(t *testing.T, g *Guest, tool, args string) string {
	t.Helper()
	out, err := g.Call(context.Background(), tool, []byte(args))
	if err != nil {
		t.Fatalf("Call(%s): %v", tool, err)
	}
	return string(out)
}

// holdCompiles makes background compiles wait; the returned function lets them run.
func holdCompiles(h *Host) func() {
	h.lazy.testHold = make(chan struct{})
	var once sync.Once
	return func() { once.Do(func() { close(h.lazy.testHold) }) }
}

func entryPath(dir string, wasm []byte) string {
	return filepath.Join(dir, "manifests", manifests.Key(wasm)+".json")
}

// readEntry returns the content of wasm's manifest cache entry in cache dir (its MAC
// checked); writeEntry writes one, sealed with dir's key, as mcpwasm would (tests that forge
// entries test the checks behind the MAC).
func readEntry(t *testing.T, dir string, wasm []byte) []byte {
	t.Helper()
	auth, err := cacheauth.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := os.ReadFile(entryPath(dir, wasm))
	if err != nil {
		t.Fatal(err)
	}
	b, err := auth.Unseal(manifests.Key(wasm)+".json", sealed)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeEntry(t *testing.T, dir string, wasm, b []byte) {
	t.Helper()
	auth, err := cacheauth.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entryPath(dir, wasm), auth.Seal(manifests.Key(wasm)+".json", b), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestManifestCacheMissHitCorrupt(t *testing.T) {
	dir := t.TempDir()
	// Miss: an eager load describes the guest and writes the entry.
	h1, _ := testHost(t, Options{CacheDir: dir, Lazy: true})
	g1 := mustLoad(t, h1, wat.Fixture, nil)
	if g1.code.entry != nil || g1.compiled == nil {
		t.Fatal("first load used a cache entry")
	}
	if n := len(g1.pools[0].tokens); n != 0 {
		t.Errorf("%d instances kept after describe, want 0", n)
	}
	want := mustCall(t, g1, "echo", `{"x":1}`)
	h1.Close(context.Background())
	if _, err := os.Stat(entryPath(dir, wat.Fixture)); err != nil {
		t.Fatalf("no cache entry: %v", err)
	}

	// Hit: the guest comes from the entry, with the same manifest, and works once compiled.
	h2, _ := testHost(t, Options{CacheDir: dir, Lazy: true})
	g2 := mustLoad(t, h2, wat.Fixture, nil)
	if g2.code.entry == nil {
		t.Fatal("second load did not use the cache entry")
	}
	if g2.Name() != g1.Name() || len(g2.Manifest().Tools) != len(g1.Manifest().Tools) {
		t.Errorf("cached manifest differs: %s/%d tools, want %s/%d", g2.Name(), len(g2.Manifest().Tools), g1.Name(), len(g1.Manifest().Tools))
	}
	if got := mustCall(t, g2, "echo", `{"x":1}`); got != want {
		t.Errorf("echo after a lazy load = %s, want %s", got, want)
	}
	// The same validation as an eager load: grants for an unknown tool still fail.
	if _, err := h2.Load(context.Background(), wat.Fixture, &GuestConfig{Name: "other", ToolGrants: map[string]Grants{"nope": {}}}); err == nil ||
		!strings.Contains(err.Error(), `unknown tool "nope"`) {
		t.Errorf("lazy load with a bad tool grant: %v", err)
	}
	h2.Close(context.Background())

	// Corrupt: ignored, logged, and rewritten by an eager load.
	writeEntry(t, dir, wat.Fixture, []byte(`{"format":1,"manif`))
	h3, logs := testHost(t, Options{CacheDir: dir, Lazy: true})
	g3 := mustLoad(t, h3, wat.Fixture, nil)
	if g3.code.entry != nil {
		t.Fatal("a corrupt entry was used")
	}
	if !strings.Contains(logs.String(), "manifest cache entry corrupt") {
		t.Errorf("corrupt entry not logged:\n%s", logs)
	}
	if e := h3.lazy.manifests.Get(manifests.Key(wat.Fixture)); e == nil {
		t.Error("corrupt entry not rewritten")
	}
}

func TestManifestCacheInMemory(t *testing.T) {
	h, _ := testHost(t, Options{NoDiskCache: true, Lazy: true})
	g1 := mustLoad(t, h, wat.Fixture, nil)
	g2 := mustLoad(t, h, wat.Fixture, nil)
	if g1.code.entry != nil || g2.code.entry == nil {
		t.Fatalf("entries used: first %v, second %v; want a miss then a hit", g1.code.entry != nil, g2.code.entry != nil)
	}
	if h.lazy.unload {
		t.Error("a memory-only cache must not drop compiled code (it could not get it back cheaply)")
	}
	mustCall(t, g2, "echo", `{}`)
}

// primed returns a cache directory holding the fixture's manifest entry.
func primed(t *testing.T) string {
	dir := t.TempDir()
	h, _ := testHost(t, Options{CacheDir: dir})
	mustLoad(t, h, wat.Fixture, nil)
	h.Close(context.Background())
	return dir
}

func TestLazyCallWaitsForCompile(t *testing.T) {
	h, _ := testHost(t, Options{CacheDir: primed(t), Lazy: true})
	release := holdCompiles(h)
	defer release()
	g := mustLoad(t, h, wat.Fixture, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Ready(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ready while compiles are held = %v, want context.Canceled", err)
	}
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := g.Call(context.Background(), "echo", []byte(`{"y":2}`))
		done <- result{out, err}
	}()
	release()
	r := <-done
	if r.err != nil || !strings.Contains(string(r.out), `"y":2`) {
		t.Fatalf("Call = %s, %v", r.out, r.err)
	}
}

func TestLazyCallDeadlineWhileWaiting(t *testing.T) {
	h, _ := testHost(t, Options{CacheDir: primed(t), Lazy: true})
	release := holdCompiles(h)
	defer release()
	g := mustLoad(t, h, wat.Fixture, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := g.Call(ctx, "echo", []byte(`{}`))
	if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call past its deadline while compiling = %v, want ErrCancelled and DeadlineExceeded", err)
	}
	// The per-tool time limit bounds the wait the same way.
	g2 := mustLoad(t, h, wat.Fixture, &GuestConfig{Limits: Limits{Timeout: 20 * time.Millisecond}})
	if _, err := g2.Call(context.Background(), "echo", []byte(`{}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call past the time limit while compiling = %v, want DeadlineExceeded", err)
	}
	release()
	if err := g.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustCall(t, g, "echo", `{}`)
}

func TestLazyBackgroundLoadFails(t *testing.T) {
	dir := primed(t)
	// A module that does not compile, with the fixture's manifest cached under its hash
	// (as if the cache and the module had come apart): Load succeeds from the manifest, and
	// the failure surfaces in the background.
	bad := append([]byte("\x00asm\x01\x00\x00\x00"), 0x01, 0x05, 0xff, 0xff, 0xff, 0xff, 0xff)
	b := readEntry(t, dir, wat.Fixture)
	sumGood, sumBad := sha256.Sum256(wat.Fixture), sha256.Sum256(bad)
	b = bytes.ReplaceAll(b, []byte(hexOf(sumGood)), []byte(hexOf(sumBad)))
	writeEntry(t, dir, bad, b)
	h, logs := testHost(t, Options{CacheDir: dir, Lazy: true})
	g, err := h.Load(context.Background(), bad, &GuestConfig{Source: "bad.wasm"})
	if err != nil {
		t.Fatalf("lazy Load = %v, want success (the failure is the background's)", err)
	}
	if err := g.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), "bad.wasm: loading in the background: compiling") {
		t.Fatalf("Ready = %v", err)
	}
	_, err = g.Call(context.Background(), "echo", []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), `guest "fixture" tool "echo": bad.wasm: loading in the background: compiling`) {
		t.Fatalf("Call = %v, want the background load's error", err)
	}
	if !strings.Contains(logs.String(), "level=ERROR msg=\"guest failed to load; its tools return errors\"") {
		t.Errorf("failure not logged as an error:\n%s", logs)
	}
	// Without Lazy the same module fails Load itself.
	h2, _ := testHost(t, Options{CacheDir: dir})
	if _, err := h2.Load(context.Background(), bad, &GuestConfig{Source: "bad.wasm"}); err == nil {
		t.Fatal("eager Load of a broken module succeeded")
	}
}

func hexOf(sum [32]byte) string { return hex.EncodeToString(sum[:]) }

func TestIdleSweep(t *testing.T) {
	h, _ := testHost(t, Options{CacheDir: primed(t), Lazy: true, IdleTimeout: time.Hour})
	g := mustLoad(t, h, wat.Fixture, nil)
	if err := g.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Two calls at once: two instances.
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); mustCall(t, g, "echo", `{}`) }()
	}
	wg.Wait()
	p := g.pools[0]
	before := len(p.tokens)
	if before == 0 {
		t.Fatal("no instances after calls")
	}
	now := h.watch.Now()
	if n := h.lazy.sweep(now + time.Minute); n != 0 || len(p.tokens) != before {
		t.Fatalf("sweep before the idle timeout closed %d (instances %d → %d)", n, before, len(p.tokens))
	}
	if n := h.lazy.sweep(now + 2*time.Hour); n != before+1 {
		t.Fatalf("sweep after the idle timeout released %d, want %d instances and the code", n, before+1)
	}
	if len(p.tokens) != 0 || g.compiled != nil {
		t.Fatalf("after the sweep: %d instances, code loaded %v", len(p.tokens), g.compiled != nil)
	}
	// The next call compiles the code again and grows the pool on demand.
	mustCall(t, g, "echo", `{}`)
	if len(p.tokens) != 1 {
		t.Errorf("%d instances after one call, want 1", len(p.tokens))
	}
}

func TestIdleSweepTimer(t *testing.T) {
	h, _ := testHost(t, Options{NoDiskCache: true, IdleTimeout: 10 * time.Millisecond})
	swept := make(chan int, 100)
	h.lazy.mu.Lock()
	h.lazy.onSweep = func(n int) {
		select {
		case swept <- n:
		default:
		}
	}
	h.lazy.mu.Unlock()
	g := mustLoad(t, h, wat.Fixture, nil)
	mustCall(t, g, "echo", `{}`)
	deadline := time.After(30 * time.Second)
	for released := false; !released; {
		select {
		case n := <-swept:
			released = n > 0
		case <-deadline:
			t.Fatal("the timer never swept the idle instance")
		}
	}
	if n := len(g.pools[0].tokens); n != 0 {
		t.Errorf("%d instances left after the sweep", n)
	}
	// Close stops the timer and is idempotent; a sweep never runs after it.
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.lazy.mu.Lock()
	stopped := h.lazy.stopped
	h.lazy.mu.Unlock()
	if !stopped {
		t.Error("Close left the sweep timer running")
	}
}

func TestIdleSweepNever(t *testing.T) {
	h, _ := testHost(t, Options{NoDiskCache: true, IdleTimeout: -1})
	if h.lazy.timer != nil {
		t.Error("a negative IdleTimeout started the sweep timer")
	}
}

// An entry found by fingerprint but holding another module's SHA-256 (a fingerprint
// collision) never lets a call reach the code: the background load fails.
func TestLazyEntryOfAnotherModule(t *testing.T) {
	dir := primed(t)
	other := bytes.Clone(wat.Fixture)
	other = append(other, 0, 4, 'x', 'y', 'z', 'w') // a custom section: another module, same manifest
	writeEntry(t, dir, other, readEntry(t, dir, wat.Fixture))
	h, _ := testHost(t, Options{CacheDir: dir, Lazy: true})
	g := mustLoad(t, h, other, nil)
	if _, err := g.Call(context.Background(), "echo", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "does not match its manifest cache entry") {
		t.Fatalf("Call = %v", err)
	}
}

// A call waiting for its guest's code does not queue behind other guests' compiles.
func TestLazyCallSkipsCompileQueue(t *testing.T) {
	h, _ := testHost(t, Options{CacheDir: primed(t), Lazy: true})
	for range cap(h.lazy.sem) { // every compile slot taken
		h.lazy.sem <- struct{}{}
	}
	g := mustLoad(t, h, wat.Fixture, nil)
	mustCall(t, g, "echo", `{}`)
}

// Two guests of the same module compile in the background at once, and both serve calls:
// compiles of one module are serialized (wazero v1.12 races on concurrent cache hits).
func TestLazySameModuleTwice(t *testing.T) {
	h, _ := testHost(t, Options{CacheDir: primed(t), Lazy: true})
	release := holdCompiles(h)
	g1 := mustLoad(t, h, wat.Fixture, nil)
	g2 := mustLoad(t, h, wat.Fixture, nil)
	release()
	var wg sync.WaitGroup
	for _, g := range []*Guest{g1, g2} {
		wg.Add(1)
		go func() { defer wg.Done(); mustCall(t, g, "echo", `{}`) }()
	}
	wg.Wait()
}

// TestLazyDropsCodeAfterBackgroundCompile: with an on-disk cache, the background compile of a
// guest nobody has called checks the module and fills the cache, then drops the code; the
// first call loads it back. A call that waited for the compile keeps it.
func TestLazyDropsCodeAfterBackgroundCompile(t *testing.T) {
	h, logs := testHost(t, Options{CacheDir: primed(t), Lazy: true})
	g := mustLoad(t, h, wat.Fixture, nil)
	if err := g.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	g.code.mu.Lock()
	state, compiled := g.code.state, g.compiled
	g.code.mu.Unlock()
	if state != codeUnloaded || compiled != nil {
		t.Fatalf("after the background compile: state %d, code resident %v; want dropped", state, compiled != nil)
	}
	if !strings.Contains(logs.String(), "code dropped until its first call") {
		t.Errorf("drop not logged:\n%s", logs)
	}
	mustCall(t, g, "echo", `{}`)
	g.code.mu.Lock()
	state = g.code.state
	g.code.mu.Unlock()
	if state != codeReady {
		t.Fatalf("after the first call: state %d, want ready", state)
	}

	// Memory-only cache: the code stays (dropping it would mean compiling afresh).
	h2, _ := testHost(t, Options{NoDiskCache: true, Lazy: true})
	mustLoad(t, h2, wat.Fixture, &GuestConfig{Name: "first"})
	g2 := mustLoad(t, h2, wat.Fixture, nil)
	if err := g2.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	if g2.code.entry == nil || g2.compiled == nil {
		t.Fatalf("memory-only cache: entry used %v, code resident %v; want both", g2.code.entry != nil, g2.compiled != nil)
	}
}

// Code in use is never dropped: useCode's fast path takes a use without the mutex while
// unloadIdle, which would drop the code, runs as fast as it can. Whoever holds a use must see
// the code (g.compiled) every time; without the users check in unloadIdle this fails at once.
func TestUnloadNeverDropsCodeInUse(t *testing.T) {
	h, _ := testHost(t, Options{CacheDir: primed(t), Lazy: true, IdleTimeout: time.Hour})
	g := mustLoad(t, h, wat.Fixture, nil)
	if err := g.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Deterministic first: a held use keeps the code; released, it can go.
	if err := g.useCode(&callWait{parent: context.Background()}); err != nil {
		t.Fatal(err)
	}
	if g.unloadIdle(h.watch.Now()+2*time.Hour, time.Hour) {
		t.Fatal("code unloaded while a use was held")
	}
	g.doneCode(h.watch.Now())
	if !g.unloadIdle(h.watch.Now()+2*time.Hour, time.Hour) {
		t.Fatal("unused code not unloaded")
	}
	// Then the lock-free handshake (guestCode): each interleaving of a use with a sweep is
	// forced by the test hook, not hoped for from the scheduler (a loop racing a sweeper
	// against users failed about one run in three because the sweep never won).
	g.useCode(&callWait{parent: context.Background()}) // compiled again after the unload above
	g.doneCode(h.watch.Now())
	type gate struct{ reached, release chan struct{} }
	var gates map[codePoint]*gate // replaced between phases, while no goroutine runs
	g.code.testHook = func(p codePoint) {
		if gt := gates[p]; gt != nil {
			gt.reached <- struct{}{}
			<-gt.release
		}
	}
	pause := func(points ...codePoint) {
		gates = map[codePoint]*gate{}
		for _, p := range points {
			gates[p] = &gate{make(chan struct{}), make(chan struct{})}
		}
	}
	// use takes a use in a goroutine, reads the code and gives the use back; the result says
	// whether the code was there.
	use := func() <-chan error {
		res := make(chan error, 1)
		go func() {
			if err := g.useCode(&callWait{parent: context.Background()}); err != nil {
				res <- err
				return
			}
			g.code.mu.Lock() // g.compiled is written under mu; a use lets us read it
			compiled := g.compiled
			g.code.mu.Unlock()
			g.doneCode(h.watch.Now())
			if compiled == nil {
				res <- errors.New("a holder of a use found the code dropped")
				return
			}
			res <- nil
		}()
		return res
	}
	sweep := func() <-chan bool {
		res := make(chan bool, 1)
		go func() { res <- g.unloadIdle(h.watch.Now()+2*time.Hour, time.Hour) }()
		return res
	}
	check := func(phase string, used <-chan error, unloaded, wantUnload bool) {
		t.Helper()
		if err := <-used; err != nil {
			t.Errorf("%s: %v", phase, err)
		}
		if unloaded != wantUnload {
			t.Errorf("%s: unloadIdle = %v, want %v", phase, unloaded, wantUnload)
		}
		g.code.mu.Lock()
		state := g.code.state
		g.code.mu.Unlock()
		if state != codeReady && state != codeUnloaded {
			t.Errorf("%s: code state %d after the phase", phase, state)
		}
	}

	// 1. The use counts itself; the sweep then clears readiness, sees the use and backs off;
	// the use finds the code ready.
	pause(pointCounted)
	used := use()
	<-gates[pointCounted].reached
	swept := sweep()
	unloaded := <-swept
	close(gates[pointCounted].release)
	check("count, then sweep", used, unloaded, false)

	// 2. The sweep clears readiness; the use counts itself; the sweep sees the count and
	// restores readiness before the use looks: the use takes the fast path.
	pause(pointCleared, pointCounted)
	swept = sweep()
	<-gates[pointCleared].reached
	used = use()
	<-gates[pointCounted].reached
	close(gates[pointCleared].release)
	unloaded = <-swept // before the use looks at readiness
	close(gates[pointCounted].release)
	check("clear, count, sweep", used, unloaded, false)

	// 3. The sweep clears readiness; the use counts itself, sees the code not ready and takes
	// its count back; the sweep then sees no use and unloads; the use compiles the code again.
	pause(pointCleared, pointBackedOff)
	swept = sweep()
	<-gates[pointCleared].reached
	used = use()
	<-gates[pointBackedOff].reached
	close(gates[pointCleared].release)
	unloaded = <-swept
	close(gates[pointBackedOff].release)
	check("clear, count, back off, sweep", used, unloaded, true)
}

// A lazy Load from a cached manifest does not scan the module's function bodies: the
// structural caps (nesting, vector counts) run before the module compiles, in the background,
// and a module over them fails there (Ready and every call name the cap). Eagerly, Load
// itself refuses it.
func TestLazyChecksStructuralCapsBeforeCompile(t *testing.T) {
	dir := primed(t)
	tight := &GuestConfig{Source: "fixture.wasm", Limits: Limits{Nesting: 1}}
	h, _ := testHost(t, Options{CacheDir: dir, Lazy: true})
	g, err := h.Load(context.Background(), wat.Fixture, tight)
	if err != nil {
		t.Fatalf("lazy Load = %v, want success from the cached manifest", err)
	}
	const want = "nests blocks more than 1 deep"
	if err := g.Ready(context.Background()); !errors.Is(err, ErrLoadLimit) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Ready = %v, want ErrLoadLimit (%s)", err, want)
	}
	if _, err := g.Call(context.Background(), "echo", nil); !errors.Is(err, ErrLoadLimit) {
		t.Fatalf("Call = %v, want ErrLoadLimit", err)
	}
	h2, _ := testHost(t, Options{CacheDir: dir})
	if _, err := h2.Load(context.Background(), wat.Fixture, tight); !errors.Is(err, ErrLoadLimit) || !strings.Contains(err.Error(), want) {
		t.Fatalf("eager Load = %v, want ErrLoadLimit (%s)", err, want)
	}
}

// Drain counts a call from its entry: one still waiting for the guest's code (or a free
// instance, or its instance's start) is running, so a reload does not close the guest under
// it (Hardening 3, item 20).
func TestDrainCountsCallsNotYetInAnInstance(t *testing.T) {
	h, _ := testHost(t, Options{CacheDir: primed(t), Lazy: true})
	release := holdCompiles(h)
	defer release()
	g := mustLoad(t, h, wat.Fixture, nil)
	done := make(chan error, 1)
	go func() {
		_, err := g.Call(context.Background(), "echo", []byte(`{}`))
		done <- err
	}()
	<-g.code.urgent // the call waits for the code
	// The deadline is the event tested: Drain must still be waiting when it comes (generous
	// either way; without the call it returns at once).
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := g.Drain(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Drain with a call waiting for the code = %v, want DeadlineExceeded", err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := g.Drain(context.Background()); err != nil {
		t.Fatalf("Drain after the call = %v", err)
	}
}

// Prewarm (serve's --prewarm over stdio) makes the first instance ahead of the first call:
// asked while the background compile is still held (its wait ended by its context), it keeps the code the compile would
// otherwise drop (TestLazyDropsCodeAfterBackgroundCompile), leaves one idle instance, and the
// first call takes that one instead of starting another. A second Prewarm adds none.
func TestPrewarmKeepsCodeAndMakesTheFirstInstance(t *testing.T) {
	h, logs := testHost(t, Options{CacheDir: primed(t), Lazy: true})
	release := holdCompiles(h)
	g := mustLoad(t, h, wat.Fixture, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Prewarm(ctx); !errors.Is(err, context.Canceled) { // wants the code, then its wait ends
		t.Fatalf("Prewarm with an ended context while the compile is held = %v, want context.Canceled", err)
	}
	release()
	if err := g.Prewarm(context.Background()); err != nil {
		t.Fatalf("Prewarm: %v", err)
	}
	p := g.pools[0]
	g.code.mu.Lock()
	state, compiled := g.code.state, g.compiled
	g.code.mu.Unlock()
	if state != codeReady || compiled == nil || len(p.tokens) != 1 || len(p.idle) != 1 {
		t.Fatalf("after Prewarm: state %d, code resident %v, %d instances, %d idle; want ready, resident, 1, 1",
			state, compiled != nil, len(p.tokens), len(p.idle))
	}
	if strings.Contains(logs.String(), "code dropped until its first call") {
		t.Errorf("the code was dropped although Prewarm wanted it:\n%s", logs)
	}
	if got := mustCall(t, g, "echo", `{"a":1}`); got != `{"content":[],"structuredContent":{"a":1}}` {
		t.Errorf("echo = %s", got)
	}
	if err := g.Prewarm(context.Background()); err != nil {
		t.Fatalf("second Prewarm: %v", err)
	}
	if len(p.tokens) != 1 || len(p.idle) != 1 {
		t.Fatalf("after the first call and a second Prewarm: %d instances, %d idle; want 1, 1", len(p.tokens), len(p.idle))
	}
}
