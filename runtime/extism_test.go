package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// The Extism test plugins (runtime/internal/kind/extism/testdata, built from their C sources).
func extismPlugin(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("internal", "kind", "extism", "testdata", name+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func toolText(t testing.TB, out []byte) (string, bool) {
	t.Helper()
	var r struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Content) != 1 {
		t.Fatalf("not a one-block result: %s (%v)", out, err)
	}
	return r.Content[0].Text, r.IsError
}

// An Extism v1 plugin loads as a guest of kind "extism": its tools listed, named after its
// source, called with the operator's config, its requests inferred from its imports.
func TestExtismPluginLoads(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, extismPlugin(t, "v1"), &runtime.GuestConfig{Source: "/plugins/v1.wasm", Config: map[string]string{"greeting": "hi"}})
	if g.Kind() != "extism" || g.Name() != "v1" {
		t.Errorf("kind %q name %q, want extism v1", g.Kind(), g.Name())
	}
	m := g.Manifest()
	if len(m.Tools) != 13 || m.Tools[0].Name != "echo" {
		t.Errorf("tools %+v", m.Tools)
	}
	if r := m.Requests; strings.Join(r.Net, ",") != "*:*" || !r.Sampling || !r.Elicitation || !r.Roots || len(r.FS) != 0 {
		t.Errorf("requests %+v", r)
	}
	out, err := g.Call(context.Background(), "config", []byte(`{}`))
	if s, _ := toolText(t, out); err != nil || s != "greeting=hi; missing unset" {
		t.Errorf("config: %s %v", out, err)
	}
	out, err = g.Call(context.Background(), "fail", []byte(`{"text":"x"}`))
	if s, isErr := toolText(t, out); err != nil || !isErr || s != "boom: x" {
		t.Errorf("fail: %s %v", out, err)
	}
	if got := strings.Join(g.Ungranted(), "; "); !strings.HasPrefix(got, `net "*:*" (tools echo, kernel`) || !strings.Contains(got, `sampling (tools`) {
		t.Errorf("ungranted %s", got)
	}
}

func TestExtismPluginV2(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, extismPlugin(t, "v2"), &runtime.GuestConfig{Name: "notes"})
	ctx := context.Background()
	if out, err := g.ReadResource(ctx, "mem://notes/7"); err != nil || !strings.Contains(string(out), `"text":"content of mem://notes/7"`) {
		t.Errorf("read: %s %v", out, err)
	}
	if out, err := g.GetPrompt(ctx, "greet", []byte(`{"who":"ada"}`)); err != nil || !strings.Contains(string(out), `"text":"hello ada"`) {
		t.Errorf("prompt: %s %v", out, err)
	}
	if out, err := g.Complete(ctx, []byte(`{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"a"}}`)); err != nil ||
		!strings.Contains(string(out), `"values":["prompt","a-one"]`) {
		t.Errorf("complete: %s %v", out, err)
	}
	var mu sync.Mutex
	var progress []float64
	cctx := runtime.WithCallHooks(ctx, &runtime.CallHooks{Progress: func(p, _ float64, _ string) { mu.Lock(); progress = append(progress, p); mu.Unlock() }})
	out, err := g.Call(cctx, "echo", []byte(`{"a":1}`))
	if s, _ := toolText(t, out); err != nil || s != `{"context":{"id":0,"_meta":{}},"request":{"name":"echo","arguments":{"a":1}}}` {
		t.Errorf("echo: %s %v", out, err)
	}
	if len(progress) != 1 || progress[0] != 3 {
		t.Errorf("progress %v", progress)
	}
}

// A plugin's http_request goes through the net grant: refused without one (naming it), to a
// private address under "*", and allowed to the granted loopback server.
func TestExtismPluginNet(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "pong") }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	h, _ := newHost(t)
	wasm := extismPlugin(t, "v1")
	args := []byte(fmt.Sprintf(`{"url":%q}`, srv.URL))
	for _, tc := range []struct {
		grants policy.Grants
		want   string
	}{
		{policy.Grants{}, `net: no hosts are granted to guest "v1"`},
		{policy.Grants{Net: []string{"*:*"}}, `net: "127.0.0.1" resolves to 127.0.0.1, a loopback address`},
		{policy.Grants{Net: []string{u.Host}}, ""},
	} {
		g := load(t, h, wasm, &runtime.GuestConfig{Source: "v1.wasm", Grants: tc.grants})
		out, err := g.Call(context.Background(), "http", args)
		if tc.want == "" {
			if s, _ := toolText(t, out); err != nil || !strings.HasPrefix(s, "200\npong\n") {
				t.Errorf("granted: %s %v", out, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("grants %+v: %v, want %q", tc.grants, err, tc.want)
		}
		g.Close(context.Background())
	}
}

// A plugin's resource read runs with its guest's grants: the read that calls http_request is
// refused without a net grant, naming it, and with the loopback server granted reads its
// body. Before, a read had no grants at all: "http_request: request outside a tool call
// (UNAVAILABLE)" whatever the config granted.
func TestExtismResourceReadHasGuestGrants(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "sunny") }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	h, _ := newHost(t)
	ctx := context.Background()
	uri := srv.URL + "/weather"

	g := load(t, h, extismPlugin(t, "v2"), &runtime.GuestConfig{Name: "ungranted"})
	if out, err := g.ReadResource(ctx, uri); err == nil || !strings.Contains(err.Error(), `net: no hosts are granted to guest "ungranted"`) {
		t.Errorf("read without a net grant: %s %v, want the refusal naming the grant", out, err)
	}
	g = load(t, h, extismPlugin(t, "v2"), &runtime.GuestConfig{Name: "granted", Grants: policy.Grants{Net: []string{u.Host}}})
	out, err := g.ReadResource(ctx, uri)
	if want := `"text":"sunny"`; err != nil || !strings.Contains(string(out), want) {
		t.Errorf("read with the grant: %s %v, want %s", out, err, want)
	}
	if out, err := g.ReadResource(ctx, "mem://notes/7"); err != nil || !strings.Contains(string(out), `"text":"content of mem://notes/7"`) {
		t.Errorf("read of a plain uri: %s %v", out, err)
	}
}

// The limits every kind gets: a loop ends at the time limit, an allocation without bound at
// the memory limit (kernel memory counts), the kill switch stops a running plugin; the guest
// keeps serving after each.
func TestExtismPluginLimits(t *testing.T) {
	h, _ := newHost(t)
	ctx := context.Background()
	short := load(t, h, extismPlugin(t, "v1"), &runtime.GuestConfig{Source: "v1.wasm", Limits: runtime.Limits{Timeout: 200 * time.Millisecond}})
	if _, err := short.Call(ctx, "loop", nil); !errors.Is(err, runtime.ErrTimeLimit) {
		t.Errorf("loop: %v, want the time limit", err)
	}
	g := load(t, h, extismPlugin(t, "v1"), &runtime.GuestConfig{Source: "v1.wasm", Limits: runtime.Limits{MemoryBytes: 32 << 20}})
	out, err := g.Call(ctx, "alloc", nil)
	if err != nil {
		t.Fatalf("alloc: %v", err)
	}
	if s, isErr := toolText(t, out); err != nil || !isErr || !strings.Contains(s, "kernel memory is at its limit") {
		t.Errorf("alloc: %s %v", out, err)
	}
	if _, err := g.Call(ctx, "grow", nil); !errors.Is(err, runtime.ErrMemoryLimit) {
		t.Errorf("grow: %v, want the memory limit", err)
	}
	if _, err := g.Call(ctx, "trap", nil); !errors.Is(err, runtime.ErrTrap) {
		t.Errorf("trap: %v", err)
	}
	if _, err := g.Call(ctx, "badjson", nil); !errors.Is(err, runtime.ErrABI) {
		t.Errorf("badjson: %v", err)
	}
	// The kill switch: a plugin in a loop is stopped.
	done := make(chan error, 1)
	looping := make(chan struct{}, 1)
	lctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{Log: func(_ abi.Level, msg string) {
		if msg == "looping" {
			looping <- struct{}{}
		}
	}})
	g2 := load(t, h, extismPlugin(t, "v1"), &runtime.GuestConfig{Source: "v1.wasm"}) // the default time limit
	go func() {
		_, err := g2.Call(lctx, "loop", nil)
		done <- err
	}()
	<-looping
	h.Stop()
	if err := <-done; !errors.Is(err, runtime.ErrStopped) {
		t.Errorf("stopped loop: %v", err)
	}
	h.Resume()
	out, err = g.Call(ctx, "echo", []byte(`{"text":"alive"}`))
	if s, _ := toolText(t, out); err != nil || s != "alive" {
		t.Errorf("after: %s %v", out, err)
	}
}

// fixedResolver answers every name with addrs.
type fixedResolver []netip.Addr

func (r fixedResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return r, nil
}

// The SSRF cases mcpwasm guests are held to hold for a plugin's http_request: a granted name
// that resolves to a private, link-local (metadata), loopback or IPv4-mapped address is
// refused before any connection, and an IP literal in an ambiguous form is refused.
func TestExtismPluginSSRF(t *testing.T) {
	wasm := extismPlugin(t, "v1")
	for _, tc := range []struct {
		addr, url, want string
	}{
		{"10.0.0.5", "http://internal.example/", `net: "internal.example" resolves to 10.0.0.5, a private address`},
		{"169.254.169.254", "http://metadata.example/latest/", `net: "metadata.example" resolves to 169.254.169.254, a link-local address`},
		{"127.0.0.1", "http://local.example/", `net: "local.example" resolves to 127.0.0.1, a loopback address`},
		{"::ffff:10.1.2.3", "http://mapped.example/", `net: "mapped.example" resolves to 10.1.2.3, a private address`},
		{"93.184.216.34", "http://0x7f000001/", `net: host "0x7f000001" is an ambiguous numeric address`},
	} {
		h, err := runtime.NewHost(context.Background(), &runtime.Options{CacheDir: cacheDir,
			Net: peer.Net{Resolver: fixedResolver{netip.MustParseAddr(tc.addr)}}})
		if err != nil {
			t.Fatal(err)
		}
		g := load(t, h, wasm, &runtime.GuestConfig{Source: "v1.wasm", Grants: policy.Grants{Net: []string{"*"}}})
		_, err = g.Call(context.Background(), "http", []byte(fmt.Sprintf(`{"url":%q}`, tc.url)))
		if err == nil || !strings.Contains(err.Error(), "http_request: refused: "+tc.want) {
			t.Errorf("%s (%s): %v, want %q", tc.url, tc.addr, err, tc.want)
		}
		h.Close(context.Background())
	}
}

// A plugin importing a kernel function with another signature is refused at load, naming
// the import, its signature and the hosted one (it was wazero's "signature mismatch:
// i32_i32 != i64_i64" at instantiation).
func TestExtismWrongImportSignature(t *testing.T) {
	h, _ := newHost(t)
	_, err := h.Load(context.Background(), extismPlugin(t, "badsig"), &runtime.GuestConfig{Source: "badsig.wasm"})
	want := "badsig.wasm: ABI violation: imports extism:host/env.alloc as (i32) -> (i32), but this host (as the Extism kernel) defines it as (i64) -> (i64)"
	if err == nil || err.Error() != want || !errors.Is(err, runtime.ErrABI) {
		t.Fatalf("Load = %v\nwant %s", err, want)
	}
}

// A plugin that reports its lists changed is re-listed after the call, in the instance that
// changed them, once however many reports the call made; the guest then serves the new
// lists, and the call's ListsChanged hook runs. A report that changes nothing changes nothing.
func TestExtismListsChanged(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, extismPlugin(t, "dyn"), &runtime.GuestConfig{Name: "dyn"})
	var hooked int
	ctx := runtime.WithCallHooks(context.Background(), &runtime.CallHooks{ListsChanged: func() { hooked++ }})
	text := func(tool string) string {
		t.Helper()
		out, err := g.Call(ctx, tool, nil)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		s, _ := toolText(t, out)
		return s
	}
	names := func() string {
		var n []string
		for _, tl := range g.Manifest().Tools {
			n = append(n, tl.Name)
		}
		for _, p := range g.Manifest().Prompts {
			n = append(n, "prompt:"+p.Name)
		}
		return strings.Join(n, " ")
	}
	if got := names(); got != "grow lists touch quiet" {
		t.Fatalf("at load: %s", got)
	}
	if _, err := g.Call(ctx, "extra1", nil); !errors.Is(err, runtime.ErrUnknownTool) {
		t.Fatalf("extra1 before grow: %v", err)
	}
	if got := text("grow"); got != "extra=1" || hooked != 1 {
		t.Fatalf("grow: %q, hook ran %d times", got, hooked)
	}
	if got := names(); got != "grow lists touch quiet extra1 prompt:more" {
		t.Errorf("after grow: %s", got)
	}
	if got := text("extra1"); got != "extra tool of 1" {
		t.Errorf("extra1: %q", got)
	}
	// 101 reports in grow, one relist: list_tools ran once in this instance.
	if got := text("lists"); got != "listed=1" {
		t.Errorf("lists: %q", got)
	}
	if got := text("quiet"); got != "quiet 1" || hooked != 1 {
		t.Errorf("quiet: %q, hook ran %d times", got, hooked)
	}
	if got := text("grow"); got != "extra=2" || hooked != 2 || !strings.HasSuffix(names(), "extra1 extra2 prompt:more") {
		t.Errorf("grow again: %q, hook ran %d times, lists %s", got, hooked, names())
	}
}
