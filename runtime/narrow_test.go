package runtime_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// One rule narrows grants per tool, for the config file and for embedders alike: a tool
// pattern inside a guest wildcard is accepted and is what the tool gets; a pattern outside
// every guest pattern is an error at Load, never silently dropped.
func TestPerToolNetNarrowingRule(t *testing.T) {
	h, fn := newNetHost(t)
	guestNet := []string{"*.example.test"}
	g := loadProbe(t, h, runtime.GuestConfig{
		Grants:     runtime.Grants{Net: guestNet},
		ToolGrants: map[string]runtime.Grants{"http": {Net: []string{"api.example.test"}}},
	})
	granted, _, _ := g.ToolGrants("http")
	if diff := cmp.Diff([]string{"api.example.test"}, granted.Net); diff != "" {
		t.Errorf("granted net of tool http (-want +got):\n%s", diff)
	}
	if text, isErr := result(t, g, "http", `{"url":"http://api.example.test/ok"}`); isErr || text != "200 hello from api" {
		t.Errorf("narrowed grant: %q isError=%v", text, isErr)
	}
	text, isErr := result(t, g, "http", `{"url":"http://internal.example.test/"}`)
	if want := `http: DENIED: net: host "internal.example.test" is not granted to tool "http" of guest "probe"`; !isErr || text != want {
		t.Errorf("host outside the tool's grant: %q, want %q", text, want)
	}
	if n := fn.dials.Load(); n != 1 {
		t.Errorf("%d dials, want 1", n)
	}

	_, err := h.Load(context.Background(), probeWasm(t), &runtime.GuestConfig{
		Name:       "probe2",
		Grants:     runtime.Grants{Net: guestNet},
		ToolGrants: map[string]runtime.Grants{"http": {Net: []string{"evil.org"}}},
	})
	if want := `guest "probe2" tool "http": grants: net "evil.org" is not granted to the guest`; err == nil || err.Error() != want {
		t.Errorf("Load with a widening tool grant: %v; want %s", err, want)
	}
}

func TestGrantsWithin(t *testing.T) {
	guest := runtime.Grants{
		Net:   []string{"*.example.com", "a.test:*"},
		FS:    []policy.FS{{Guest: "/data", Host: "/srv/data"}},
		Env:   []string{"HOME"},
		Clock: true,
	}
	for _, tc := range []struct {
		name string
		tool runtime.Grants
		want string // "" means within
	}{
		{"subdomain in wildcard", runtime.Grants{Net: []string{"api.example.com"}}, ""},
		{"deeper wildcard", runtime.Grants{Net: []string{"*.eu.example.com"}}, ""},
		{"apex outside wildcard", runtime.Grants{Net: []string{"example.com"}}, `net "example.com" is not granted to the guest`},
		{"other host", runtime.Grants{Net: []string{"evil.org"}}, `net "evil.org" is not granted to the guest`},
		{"port in any port", runtime.Grants{Net: []string{"a.test:8443"}}, ""},
		{"any port in default port", runtime.Grants{Net: []string{"api.example.com:*"}}, `net "api.example.com:*" is not granted to the guest`},
		{"everything", runtime.Grants{Net: []string{"*"}}, `net "*" is not granted to the guest`},
		{"same mount read-only", runtime.Grants{FS: []policy.FS{{Guest: "/data", Host: "/srv/data"}}}, ""},
		{"rw of a read-only mount", runtime.Grants{FS: []policy.FS{{Guest: "/data", Host: "/srv/data", RW: true}}}, `fs "/data" is read-only for the guest; a tool cannot make it rw`},
		{"other host dir", runtime.Grants{FS: []policy.FS{{Guest: "/data", Host: "/"}}}, `fs "/data" is not granted to the guest`},
		{"env", runtime.Grants{Env: []string{"HOME"}}, ""},
		{"other env", runtime.Grants{Env: []string{"AWS_SECRET_ACCESS_KEY"}}, `env "AWS_SECRET_ACCESS_KEY" is not granted to the guest`},
		{"clock", runtime.Grants{Clock: true}, ""},
		{"random", runtime.Grants{Random: true}, "random is not granted to the guest"},
		{"mcp", runtime.Grants{MCP: []string{"docs"}}, `mcp "docs" is not granted to the guest`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.tool.Within(guest)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Within = %q; want %q", got, tc.want)
			}
		})
	}
}

// No mutable value a caller holds reaches the host's checks: not the GuestConfig given to
// Load, not what ToolGrants returns.
func TestGrantsAreCopiedAtTheBoundary(t *testing.T) {
	h, fn := newNetHost(t)
	cfg := runtime.GuestConfig{
		Grants: runtime.Grants{Net: []string{"api.example.test"}, Env: []string{"GREETING=hi"},
			Exec: []policy.Exec{{Name: "echo", Path: "/bin/echo", Args: []string{"fixed"}}}},
		ToolGrants: map[string]runtime.Grants{
			"http": {Net: []string{"api.example.test"}},
			"exec": {Exec: []policy.Exec{{Name: "echo", Path: "/bin/echo"}}},
		},
	}
	g := loadProbe(t, h, cfg)
	want, wantEff, _ := g.ToolGrants("http")

	// Writing into the config after Load …
	cfg.Grants.Net[0] = "*"
	cfg.ToolGrants["http"].Net[0] = "*"
	cfg.Grants.Exec[0].Args[0] = "changed"
	// … and into what ToolGrants returned …
	granted, eff, _ := g.ToolGrants("http")
	granted.Net[0], eff.Net[0] = "*", "*"

	// … changes neither what ToolGrants reports nor what the guest may reach.
	got, gotEff, _ := g.ToolGrants("http")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("granted changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(wantEff, gotEff); diff != "" {
		t.Errorf("effective changed (-before +after):\n%s", diff)
	}
	text, isErr := result(t, g, "http", `{"url":"http://internal.example.test/"}`)
	if want := `http: DENIED: net: host "internal.example.test" is not granted to tool "http" of guest "probe"`; !isErr || text != want {
		t.Errorf("after mutation: %q, want %q", text, want)
	}
	if n := fn.dials.Load(); n != 0 {
		t.Errorf("%d dials, want 0", n)
	}
	text, isErr = result(t, g, "exec", `{"program":"echo","args":["x"]}`)
	if want := `exit=0 stdout="fixed x\n" stderr=""`; isErr || text != want {
		t.Errorf("exec after mutation: %q, want %q", text, want)
	}
	if slices.Contains(got.Net, "*") {
		t.Errorf("ToolGrants reports %q", got.Net)
	}
}
