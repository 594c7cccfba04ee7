package guests_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/guests"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// This file checks that guests written in C (guests/c on abi/c), Rust (guests/rust on
// abi/rust) and WAT (testdata/wat/echo.wat, guests/wat) run next to a Go guest in one host.
// The C, Rust and WAT guests are built from source with guests/build-native.sh; when a
// toolchain is missing the tests skip, except under CI (env CI set), where they fail.

var (
	cacheDir string // shared compilation cache
	buildDir string // where build-native.sh puts the guests

	buildOnce sync.Once
	built     map[string][]byte // language → module
	buildErr  map[string]string // language → why it could not be built
)

func TestMain(m *testing.M) {
	base, err := os.MkdirTemp("", "mcpwasm-guests-")
	if err != nil {
		panic(err)
	}
	cacheDir, buildDir = filepath.Join(base, "cache"), filepath.Join(base, "out")
	code := m.Run()
	os.RemoveAll(base)
	os.Exit(code)
}

// nativeGuests are the modules guests/build-native.sh makes, by language.
var nativeGuests = map[string]string{"c": "ctext.wasm", "rust": "rtext.wasm", "wat": "argsize.wasm"}

// buildNative builds every native guest once per test binary, one language at a time so one
// missing toolchain does not hide the others.
func buildNative(tb testing.TB) {
	tb.Helper()
	trackNativeInputs(tb)
	buildOnce.Do(func() {
		built, buildErr = map[string][]byte{}, map[string]string{}
		for lang, file := range nativeGuests {
			cmd := exec.Command("bash", "guests/build-native.sh", buildDir, lang)
			cmd.Dir = ".."
			out, err := cmd.CombinedOutput()
			if err != nil {
				buildErr[lang] = fmt.Sprintf("guests/build-native.sh %s: %v\n%s", lang, err, out)
				continue
			}
			b, err := os.ReadFile(filepath.Join(buildDir, file))
			if err != nil {
				buildErr[lang] = err.Error()
				continue
			}
			built[lang] = b
		}
	})
}

// native returns the module of lang, skipping the test (failing it under CI) if it could not
// be built.
func native(tb testing.TB, lang string) []byte {
	tb.Helper()
	buildNative(tb)
	if b, ok := built[lang]; ok {
		return b
	}
	testenv.Skip(tb, "%s guest not built (toolchain missing? see .ci/install-toolchains.sh): %s", lang, buildErr[lang])
	return nil
}

// trackNativeInputs reads the sources the native guests are built from, so that go test's
// result cache (keyed by the files a test opens) never replays a PASS for edited sources.
func trackNativeInputs(tb testing.TB) {
	tb.Helper()
	guests.ReadTrees(tb, "../abi/c", "../abi/rust", "c", "rust", "wat")
	if _, err := os.ReadFile("build-native.sh"); err != nil {
		tb.Fatal(err)
	}
}

func goCalc(tb testing.TB) []byte {
	tb.Helper()
	for _, g := range guests.Default() {
		if g.Name == "calc" {
			return g.Wasm
		}
	}
	tb.Fatal("no bundled calc guest")
	return nil
}

func newHost(tb testing.TB) *runtime.Host {
	tb.Helper()
	h, err := runtime.NewHost(context.Background(), &runtime.Options{
		CacheDir: cacheDir,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Close(context.Background()) })
	return h
}

func load(tb testing.TB, h *runtime.Host, wasm []byte, cfg *runtime.GuestConfig) *runtime.Guest {
	tb.Helper()
	g, err := h.Load(context.Background(), wasm, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// call runs a tool and returns its result JSON, failing the test on a call error.
func call(tb testing.TB, g *runtime.Guest, tool, args string) string {
	tb.Helper()
	out, err := g.Call(context.Background(), tool, []byte(args))
	if err != nil {
		tb.Fatalf("%s %s: %v", tool, args, err)
	}
	return string(out)
}

const (
	textResult  = `{"content":[{"type":"text","text":%s}]}`
	errorResult = `{"content":[{"type":"text","text":%s}],"isError":true}`
)

// TestAllLanguagesInOneHost loads a Go, a C, a Rust and two WAT guests into one host and
// calls tools of each, results and tool errors alike.
func TestAllLanguagesInOneHost(t *testing.T) {
	c, rust, watArgsize := native(t, "c"), native(t, "rust"), native(t, "wat")
	h := newHost(t)
	g := map[string]*runtime.Guest{
		"go":   load(t, h, goCalc(t), &runtime.GuestConfig{Source: "bundled:calc"}),
		"c":    load(t, h, c, &runtime.GuestConfig{Source: "ctext.wasm"}),
		"rust": load(t, h, rust, &runtime.GuestConfig{Source: "rtext.wasm"}),
		"wat":  load(t, h, wat.Echo, &runtime.GuestConfig{Source: "echo.wasm"}),
		"wat2": load(t, h, watArgsize, &runtime.GuestConfig{Source: "argsize.wasm"}),
	}
	for lang, want := range map[string]string{"go": "calc", "c": "ctext", "rust": "rtext", "wat": "echo", "wat2": "argsize"} {
		if g[lang].Name() != want {
			t.Errorf("%s guest is named %q; want %q", lang, g[lang].Name(), want)
		}
	}
	for _, tc := range []struct {
		lang, tool, args, want string
	}{
		// Go
		{"go", "calc", `{"expression":"2*(3+4)"}`, `{"content":[{"type":"text","text":"{\"value\":14}"}],"structuredContent":{"value":14}}`},
		{"go", "calc", `{"expression":"1/0"}`, fmt.Sprintf(errorResult, `"division by zero"`)},
		// C
		{"c", "wc", `{"text":"héllo wörld\nsecond line\n"}`,
			`{"content":[{"type":"text","text":"{\"lines\":2,\"words\":4,\"chars\":24,\"bytes\":26}"}],"structuredContent":{"lines":2,"words":4,"chars":24,"bytes":26}}`},
		{"c", "wc", `{"text":""}`,
			`{"content":[{"type":"text","text":"{\"lines\":0,\"words\":0,\"chars\":0,\"bytes\":0}"}],"structuredContent":{"lines":0,"words":0,"chars":0,"bytes":0}}`},
		{"c", "transform", `{"text":"Hello, World","op":"upper"}`, fmt.Sprintf(textResult, `"HELLO, WORLD"`)},
		{"c", "transform", `{"op":"lower","text":"ÀBC"}`, fmt.Sprintf(textResult, `"Àbc"`)},
		// escapes in: \u00e9, a surrogate pair, \" \\ \n \t \u0001 and \/; out: Go's escaping
		{"c", "transform", `{"text":"a\u00e9\ud83d\ude00\"\\\n\t\u0001\/","op":"reverse"}`, fmt.Sprintf(textResult, `"/\u0001\t\n\\\"😀éa"`)},
		{"c", "transform", `{"text":"x","op":"sideways"}`, fmt.Sprintf(errorResult, `"unknown op \"sideways\": want upper, lower or reverse"`)},
		// duplicate keys: the last wins, as the host's schema validation saw it
		{"c", "transform", `{"text":"first","op":"upper","text":"last"}`, fmt.Sprintf(textResult, `"LAST"`)},
		// nested values before the key are skipped
		{"c", "transform", `{"x":{"text":"no","y":[1,{"op":"}"}]},"op":"upper","text":"yes"}`, fmt.Sprintf(textResult, `"YES"`)},
		// Rust
		{"rust", "slugify", `{"text":"  Hello, Wörld: 2026 edition! "}`, fmt.Sprintf(textResult, `"hello-wörld-2026-edition"`)},
		{"rust", "slugify", `{"text":"\u00c9t\u00e9 \ud83d\ude00 ok"}`, fmt.Sprintf(textResult, `"été-ok"`)},
		{"rust", "slugify", `{"text":"!?\"-"}`, fmt.Sprintf(errorResult, `"\"!?\\\"-\" has no letters or digits to make a slug of"`)},
		{"rust", "roman", `{"n":2026}`, `{"content":[{"type":"text","text":"{\"n\":2026,\"roman\":\"MMXXVI\"}"}],"structuredContent":{"n":2026,"roman":"MMXXVI"}}`},
		{"rust", "roman", `{"n":4e3}`, fmt.Sprintf(errorResult, `"4000 has no Roman numeral: want 1 to 3999"`)},
		// WAT
		{"wat", "echo", `{"text":"hi"}`, `{"content":[],"structuredContent":{"text":"hi"}}`},
		{"wat2", "argsize", `{"text":"hi"}`, fmt.Sprintf(textResult, `"13 bytes"`)},
		{"wat2", "argsize", `{}`, fmt.Sprintf(errorResult, `"no arguments given"`)},
	} {
		if got := call(t, g[tc.lang], tc.tool, tc.args); got != tc.want {
			t.Errorf("%s %s %s:\n got %s\nwant %s", tc.lang, tc.tool, tc.args, got, tc.want)
		}
	}
	// The C and Rust SDKs set a tool's _meta (mcpwasm_set_tool_meta, set_tool_meta).
	for lang, want := range map[string]string{"c": "wc " + `{"com.example/origin":"ctext"}`, "rust": "roman " + `{"com.example/origin":"rtext"}`} {
		var got []string
		for _, tl := range g[lang].Manifest().Tools {
			if len(tl.Meta) > 0 {
				got = append(got, tl.Name+" "+string(tl.Meta))
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s guest's tools with _meta: %q, want [%s]", lang, got, want)
		}
	}
	// Tool names are per guest: an unknown name stops at the host (so the SDKs' own
	// unknown-tool answers are unreachable through Guest.Call).
	if _, err := g["c"].Call(context.Background(), "slugify", nil); !errors.Is(err, runtime.ErrUnknownTool) {
		t.Errorf("C guest called with a Rust tool name: err = %v; want ErrUnknownTool", err)
	}
}

// TestConformance runs the host's guarantees against the Go and the C guest alike: arguments
// that fail the schema never enter the guest, and the guest's log reaches the caller.
func TestConformance(t *testing.T) {
	c := native(t, "c")
	h := newHost(t)
	guestsByLang := map[string]*runtime.Guest{
		"go": load(t, h, goCalc(t), nil),
		"c":  load(t, h, c, nil),
	}
	for _, tc := range []struct {
		lang, tool string
		bad        []string
		good, want string
	}{
		{"go", "calc", []string{`{"expression":5}`, `{}`, `[1]`}, `{"expression":"1+1"}`, `{"content":[{"type":"text","text":"{\"value\":2}"}],"structuredContent":{"value":2}}`},
		{"c", "wc", []string{`{"text":5}`, `{}`, `{"text":"a","x":1}`, `[1]`}, `{"text":"a b"}`, `{"content":[{"type":"text","text":"{\"lines\":0,\"words\":2,\"chars\":3,\"bytes\":3}"}],"structuredContent":{"lines":0,"words":2,"chars":3,"bytes":3}}`},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			g := guestsByLang[tc.lang]
			var logs []string
			ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{
				Log: func(l abi.Level, msg string) { logs = append(logs, l.String()+": "+msg) },
			})
			for _, args := range tc.bad {
				_, err := g.Call(ctx, tc.tool, []byte(args))
				if !errors.Is(err, runtime.ErrInvalidArguments) {
					t.Errorf("%s: err = %v; want ErrInvalidArguments", args, err)
				}
			}
			if len(logs) != 0 {
				t.Errorf("guest entered for invalid arguments: logs %q", logs)
			}
			out, err := g.Call(ctx, tc.tool, []byte(tc.good))
			if err != nil || string(out) != tc.want {
				t.Errorf("%s: %s, %v; want %s", tc.good, out, err, tc.want)
			}
			if tc.lang == "c" && strings.Join(logs, "|") != "debug: wc: counting" {
				t.Errorf("C guest logs %q; want [debug: wc: counting]", logs)
			}
		})
	}
}

// TestCTimeLimit: a C busy loop stops at the time limit and the next call works. The limit
// is the event, and it is a time: the call must not stop before it, and stops within a
// minute after it — a failure bound for a loaded machine, where the scheduler decides how
// late; how promptly the mechanism stops a call is runtime's (TestInterruptDeadline).
func TestCTimeLimit(t *testing.T) {
	c := native(t, "c")
	h := newHost(t)
	g := load(t, h, c, &runtime.GuestConfig{Limits: runtime.Limits{Timeout: 300 * time.Millisecond, Instances: 1}})
	start := time.Now()
	_, err := g.Call(context.Background(), "misbehave", []byte(`{"mode":"loop"}`))
	took := time.Since(start)
	if !errors.Is(err, runtime.ErrTimeLimit) {
		t.Fatalf("err = %v; want ErrTimeLimit", err)
	}
	if want := `guest "ctext" tool "misbehave": time limit exceeded (300ms)`; err.Error() != want {
		t.Errorf("err = %q; want %q", err, want)
	}
	if took < 300*time.Millisecond || took > 300*time.Millisecond+time.Minute {
		t.Errorf("stopped after %v; want over 300ms, and not a minute later", took)
	}
	if got := call(t, g, "transform", `{"text":"ok","op":"upper"}`); got != fmt.Sprintf(textResult, `"OK"`) {
		t.Errorf("after the time limit: %s", got)
	}
}

// TestCTrap: __builtin_trap() is reported as a trap; with one instance allowed, the next call
// can only work if the trapped instance was replaced.
func TestCTrap(t *testing.T) {
	c := native(t, "c")
	h := newHost(t)
	g := load(t, h, c, &runtime.GuestConfig{Limits: runtime.Limits{Instances: 1}})
	_, err := g.Call(context.Background(), "misbehave", []byte(`{"mode":"trap"}`))
	if !errors.Is(err, runtime.ErrTrap) {
		t.Fatalf("err = %v; want ErrTrap", err)
	}
	if want := `guest "ctext" tool "misbehave": guest trapped: wasm error: unreachable`; err.Error() != want {
		t.Errorf("err = %q; want %q", err, want)
	}
	if got := call(t, g, "transform", `{"text":"ok","op":"upper"}`); got != fmt.Sprintf(textResult, `"OK"`) {
		t.Errorf("after the trap: %s", got)
	}
}

// TestLargeInputs pushes a 1 MiB argument through the C and Rust SDKs (a bigger input region,
// escaping on the way out).
func TestLargeInputs(t *testing.T) {
	c, rust := native(t, "c"), native(t, "rust")
	h := newHost(t)
	gc, gr := load(t, h, c, nil), load(t, h, rust, nil)
	big := strings.Repeat(`ab"`, 1<<20/3)
	args := fmt.Sprintf(`{"text":%q,"op":"upper"}`, big)
	want := fmt.Sprintf(textResult, fmt.Sprintf("%q", strings.ToUpper(big)))
	if got := call(t, gc, "transform", args); got != want {
		t.Errorf("C transform of %d bytes: got %d bytes", len(args), len(got))
	}
	words := strings.Repeat("Word ", 1<<20/5)
	wantSlug := strings.TrimSuffix(strings.Repeat("word-", 1<<20/5), "-")
	if got := call(t, gr, "slugify", fmt.Sprintf(`{"text":%q}`, words)); got != fmt.Sprintf(textResult, `"`+wantSlug+`"`) {
		t.Errorf("Rust slugify of %d bytes: got %d bytes", len(words), len(got))
	}
}

// modules returns every language's example guest for the benchmarks, with a tool call each.
func modules(b *testing.B) []struct {
	lang       string
	wasm       []byte
	tool, args string
} {
	return []struct {
		lang       string
		wasm       []byte
		tool, args string
	}{
		{"go", goCalc(b), "calc", `{"expression":"2*(3+4)"}`},
		{"c", native(b, "c"), "wc", `{"text":"hello world"}`},
		{"rust", native(b, "rust"), "slugify", `{"text":"hello world"}`},
		{"wat", wat.Echo, "echo", `{"text":"hello world"}`},
	}
}

// BenchmarkLoad measures runtime.Host.Load with a warm compilation cache (filled by a load
// before the timer starts): compile-from-cache, instrument, instantiate (including
// _initialize), mcpwasm_abi_version, mcpwasm_describe, manifest and schema checks. The
// instance made for describe joins the pool, so this is also the cost of a guest's first
// instance. Each iteration closes the guest again.
func BenchmarkLoad(b *testing.B) {
	for _, m := range modules(b) {
		b.Run(m.lang, func(b *testing.B) {
			h := newHost(b)
			load(b, h, m.wasm, nil).Close(context.Background()) // warm the cache
			for b.Loop() {
				g := load(b, h, m.wasm, nil)
				g.Close(context.Background())
			}
			b.ReportMetric(float64(len(m.wasm)), "wasm-bytes")
		})
	}
}

// BenchmarkCall measures one tool call on a warm instance.
func BenchmarkCall(b *testing.B) {
	for _, m := range modules(b) {
		b.Run(m.lang, func(b *testing.B) {
			h := newHost(b)
			g := load(b, h, m.wasm, nil)
			call(b, g, m.tool, m.args)
			for b.Loop() {
				if _, err := g.Call(context.Background(), m.tool, []byte(m.args)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
