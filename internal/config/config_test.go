package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/internal/schemaerr"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"not JSON", "{\n  \"guests\": [\n    {\"path\": \"a.wasm\",}\n  ]\n}", `line 3 column 23: invalid character '}' looking for beginning of object key string`},
		{"YAML", "guests:\n  - path: a.wasm\n", `line 1 column 1: invalid character 'g' looking for beginning of value (YAML? mcpwasm's config is JSON)`},
		{"not YAML either", "guests = []\n", `line 1 column 1: invalid character 'g' looking for beginning of value`},
		{"unknown top-level key", `{"guestz": []}`, `line 1 column 2: unknown key "guestz" at the top level (did you mean "guests"?)`},
		{"hyper-mcp config", `{"plugins": {"time": {"url": "oci://ghcr.io/hyper-mcp-rs/time-plugin:latest"}}}`, `this is a hyper-mcp configuration, not an mcpwasm one`},
		{"hyper-mcp config with auths", "{\"auths\": {},\n \"plugins\": []}", `this is a hyper-mcp configuration, not an mcpwasm one`},
		{"stray plugins in an mcpwasm config", `{"guests": [], "plugins": {}}`, `line 1 column 16: unknown key "plugins" at the top level`},
		{"unknown grant kind", `{"guests": [{"path": "a.wasm", "grants": {"nett": ["x"]}}]}`, `line 1 column 43: unknown key "nett" in guests[0].grants (did you mean "net"?)`},
		{"limit without its unit", `{"guests": [{"path": "a.wasm", "limits": {"timeout": 100}}]}`, `line 1 column 43: unknown key "timeout" in guests[0].limits (did you mean "timeout_ms"?)`},
		{"tool is not tool_prefix", `{"guests": [{"path": "a.wasm", "tool": {}}]}`, `line 1 column 32: unknown key "tool" in guests[0] (did you mean "tools"?)`},
		{"missing path", `{"guests": [{"name": "a"}]}`, `line 1 column 13: guests[0]: missing "path"`},
		{"bad name", `{"guests": [{"name": "no spaces", "path": "a.wasm"}]}`, `line 1 column 22: guests[0].name: "no spaces" does not match the pattern "^[a-zA-Z0-9_-]{1,64}$"`},
		{"relative exec path", `{"guests": [{"path": "a.wasm", "grants": {"exec": [{"path": "git"}]}}]}`, `line 1 column 61: guests[0].grants.exec[0].path: "git" does not match the pattern "^/"`},
		{"duplicate guest", `{"guests": [{"name": "a", "path": "a.wasm"}, {"name": "a", "path": "b.wasm"}]}`, `line 1 column 55: guests[1].name: guests[0] is named "a" too`},
		{"tool widens", `{"guests": [{"path": "a.wasm", "grants": {"net": ["a.test"]}, "tools": {"t": {"grants": {"net": ["b.test"]}}}}]}`, `line 1 column 89: guests[0].tools.t.grants: net "b.test" is not granted to the guest`},
		{"tool rw over read-only", `{"guests": [{"path": "a.wasm", "grants": {"fs": [{"guest": "/d", "host": "/srv"}]}, "tools": {"t": {"grants": {"fs": [{"guest": "/d", "host": "/srv", "rw": true}]}}}}]}`, `line 1 column 111: guests[0].tools.t.grants: fs "/d" is read-only for the guest; a tool cannot make it rw`},
		{"bad isolation", `{"guests": [{"path": "a.wasm", "isolation": "tenant"}]}`, `line 1 column 45: guests[0].isolation: want one of shared, session, call, got "tenant"`},
		{"bad tasks", `{"guests": [{"path": "a.wasm", "tasks": "sometimes"}]}`, `line 1 column 41: guests[0].tasks: want one of forbidden, optional, required, got "sometimes"`},
		{"bad tool tasks", `{"guests": [{"path": "a.wasm", "tools": {"t": {"tasks": "yes"}}}]}`, `line 1 column 57: guests[0].tools.t.tasks: want one of forbidden, optional, required, got "yes"`},
		{"duplicate key", "{\"guests\": [{\"path\": \"a.wasm\"}],\n \"guests\": []}", `line 2 column 2: duplicate key "guests"`},
		{"duplicate nested key", `{"guests": [{"path": "a.wasm", "grants": {"net": ["a"]}, "grants": {}}]}`, `line 1 column 58: duplicate key "grants"`},
		{"mcp without upstream", `{"guests": [{"path": "a.wasm", "grants": {"mcp": ["docs"]}}]}`, `line 1 column 51: guests[0].grants.mcp[0]: "docs" names no upstream`},
		// Type errors name the value's line, column and path, in the second guest too.
		{"instances a string", "{\"guests\": [\n  {\"name\": \"echo\", \"path\": \"echo.wasm\",\n   \"limits\": {\"instances\": \"4\"}}\n]}", `line 3 column 28: guests[0].limits.instances: want integer, got string`},
		{"net a string", "{\"guests\": [\n  {\"path\": \"a.wasm\"},\n  {\"path\": \"b.wasm\", \"grants\": {\"net\": \"example.com\"}}\n]}", `line 3 column 40: guests[1].grants.net: want array, got string`},
		{"net item a number", `{"guests": [{"path": "a.wasm", "grants": {"net": ["a.test", 443]}}]}`, `line 1 column 61: guests[0].grants.net[1]: want string, got integer`},
		{"guests a map", `{"guests": {"echo": {"path": "echo.wasm"}}}`, `line 1 column 12: guests: want array, got object`},
		{"tool limit below minimum", `{"guests": [{"path": "a.wasm", "tools": {"my.tool": {"limits": {"timeout_ms": 0}}}}]}`, `line 1 column 79: guests[0].tools["my.tool"].limits.timeout_ms: want at least 1, got 0`},
		{"upstream command a string", `{"upstreams": {"docs": {"command": "docs-server --stdio"}}}`, `line 1 column 36: upstreams.docs.command: want array, got string`},
		{"not an object", `[]`, `line 1 column 1: the top level: want object, got array`},
		{"upstream without command or url", `{"upstreams": {"docs": {}}}`, `line 1 column 24: upstreams.docs: give exactly one of "command" or "url"`},
		{"env on a url upstream", `{"upstreams": {"docs": {"url": "http://x", "env": ["A"]}}}`, `line 1 column 51: upstreams.docs.env: applies to a spawned "command", not a "url"`},
		{"bad env entry", `{"upstreams": {"docs": {"command": ["d"], "env": ["=x"]}}}`, `line 1 column 51: upstreams.docs.env[0]: "=x" does not match the pattern "^[A-Za-z_][A-Za-z0-9_]*(=.*)?$"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// An upstream's env: NAME=VALUE and bare NAME entries (upstream.ChildEnv).
func TestUpstreamEnv(t *testing.T) {
	c, err := Parse([]byte(`{"upstreams": {"docs": {"command": ["d"], "env": ["API_KEY", "MODE=ro=x"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"API_KEY", "MODE=ro=x"}, c.Upstreams["docs"].Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
}

// The config file narrows per tool by the runtime's one rule (runtime.Grants.Within): a host
// inside a guest wildcard is a narrowing, not an error.
func TestToolNarrowsWithinWildcard(t *testing.T) {
	c, err := Parse([]byte(`{"guests": [{"path": "a.wasm", "grants": {"net": ["*.example.com"]}, "tools": {"fetch": {"grants": {"net": ["api.example.com"]}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rc := c.GuestConfig(c.Guests[0], "a.wasm")
	if diff := cmp.Diff([]string{"api.example.com"}, rc.ToolGrants["fetch"].Net); diff != "" {
		t.Errorf("tool net (-want +got):\n%s", diff)
	}
}

func TestLoadToRuntime(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcpwasm.json")
	if err := os.WriteFile(path, []byte(`{
  "guests": [
    {"name": "web", "path": "guests/fetch.wasm",
     "grants": {"net": ["example.com", "*.example.org:443"], "clock": true,
                "fs": [{"guest": "/data", "host": "box", "rw": true}],
                "exec": [{"name": "git-log", "path": "/usr/bin/git", "args": ["log"], "timeout_ms": 500}]},
     "limits": {"memory_mb": 64, "timeout_ms": 10000, "instances": 2},
     "tools": {"fetch": {"grants": {"net": ["example.com"]}, "limits": {"timeout_ms": 2000}}}}
  ],
  "upstreams": {"docs": {"command": ["docs-server", "--stdio"]}}
}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ModulePath(c.Guests[0]); got != filepath.Join(dir, "guests/fetch.wasm") {
		t.Errorf("ModulePath = %s", got)
	}
	got := c.GuestConfig(c.Guests[0], "fetch.wasm")
	want := &runtime.GuestConfig{
		Name: "web", Source: "fetch.wasm",
		Limits: runtime.Limits{MemoryBytes: 64 << 20, Timeout: 10 * time.Second, Instances: 2},
		Grants: runtime.Grants{
			Net:   []string{"example.com", "*.example.org:443"},
			Clock: true,
			FS:    []policy.FS{{Guest: "/data", Host: filepath.Join(dir, "box"), RW: true}},
			Exec:  []policy.Exec{{Name: "git-log", Path: "/usr/bin/git", Args: []string{"log"}, Timeout: 500 * time.Millisecond}},
		},
		ToolLimits: map[string]runtime.Limits{"fetch": {Timeout: 2 * time.Second}},
		ToolGrants: map[string]runtime.Grants{"fetch": {Net: []string{"example.com"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GuestConfig (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]Upstream{"docs": {Command: []string{"docs-server", "--stdio"}}}, c.Upstreams); diff != "" {
		t.Errorf("upstreams (-want +got):\n%s", diff)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"guests":[{"path":"a.wasm","grants":{"net":["x"]}}]}`))
	f.Add([]byte(`{"upstreams":{"a":{"url":"http://x"}}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err == nil && c == nil {
			t.Fatal("nil config without error")
		}
	})
}

func TestIdleTimeout(t *testing.T) {
	c, err := Parse([]byte(`{"guests": [], "idle_timeout_ms": -1}`))
	if err != nil || c.IdleTimeoutMS != -1 {
		t.Fatalf("Parse = %+v, %v; want idle_timeout_ms -1", c, err)
	}
	if _, err := Parse([]byte(`{"guests": [], "idle_timeout_ms": "60s"}`)); err == nil {
		t.Error(`idle_timeout_ms "60s" accepted; want an integer`)
	}
}

// The load caps are configurable per guest in the file's units.
func TestLoadLimitsFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcpwasm.json")
	if err := os.WriteFile(path, []byte(`{"guests":[{"path":"g.wasm","limits":{"module_mb":2,"manifest_bytes":1000,"tools":3,"nesting":50,"compile_memory_mb":300,"compile_timeout_ms":1500}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Guests[0].Limits.runtime()
	if l.ModuleBytes != 2<<20 || l.ManifestBytes != 1000 || l.Tools != 3 || l.Nesting != 50 || l.CompileMemory != 300<<20 || l.CompileTimeout != 1500*time.Millisecond {
		t.Fatalf("limits %+v", l)
	}
}

func TestIsolationKey(t *testing.T) {
	c, err := Parse([]byte(`{"guests": [{"path": "a.wasm", "isolation": "session"}, {"path": "b.wasm"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.GuestConfig(c.Guests[0], "a.wasm").Isolation; got != "session" {
		t.Errorf("isolation session gave %q", got)
	}
	if got := c.GuestConfig(c.Guests[1], "b.wasm").Isolation; got != "" {
		t.Errorf("no isolation key gave %q; want \"\" (the runtime's default, session)", got)
	}
}

// The task caps of a guest and of one tool (mcpserver.TaskCaps) are read as written.
func TestTasksKeys(t *testing.T) {
	c, err := Parse([]byte(`{"guests": [{"path": "a.wasm", "tasks": "optional", "tools": {"long": {"tasks": "forbidden"}}}, {"path": "b.wasm"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Guests[0]; g.Tasks != "optional" || g.Tools["long"].Tasks != "forbidden" {
		t.Errorf("tasks %q, tool long tasks %q; want optional, forbidden", g.Tasks, g.Tools["long"].Tasks)
	}
	if g := c.Guests[1]; g.Tasks != "" {
		t.Errorf("no tasks key gave %q; want empty", g.Tasks)
	}
}

func TestShipKeys(t *testing.T) {
	c, err := Parse([]byte(`{"plain_http": ["127.0.0.1:5000"],
		"signatures": {"ghcr.io": {"identity": "dev@example.com", "issuer": "https://issuer.example", "trusted_root": "root.json"}},
		"guests": [{"name": "a", "path": "oci://127.0.0.1:5000/a:v1", "signature": {"key": "a.pub"}},
		           {"name": "b", "path": "oci://ghcr.io/acme/b:v1"}, {"name": "c", "path": "https://example.com/c.wasm"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"127.0.0.1:5000"}, c.PlainHTTP); diff != "" {
		t.Errorf("plain_http (-want +got):\n%s", diff)
	}
	if p := c.SignaturePolicy(c.Guests[0], "127.0.0.1:5000"); p == nil || p.Key != "a.pub" {
		t.Errorf("guest a policy = %+v", p)
	}
	if p := c.SignaturePolicy(c.Guests[1], "ghcr.io"); p == nil || p.Identity != "dev@example.com" || p.TrustedRoot != "root.json" {
		t.Errorf("guest b policy = %+v", p)
	}
	if p := c.SignaturePolicy(c.Guests[2], "example.com"); p != nil {
		t.Errorf("guest c policy = %+v, want none", p)
	}
	if got := c.ModulePath(c.Guests[2]); got != "https://example.com/c.wasm" {
		t.Errorf("ModulePath = %q", got)
	}
	for _, tt := range []struct{ cfg, want string }{
		{`{"guests": [{"path": "x", "signature": {"identity": "a"}}]}`, `line 1 column 40: guests[0].signature: keyless needs "identity", "issuer" and "trusted_root"`},
		{`{"guests": [{"path": "x", "signature": {"key": "k", "issuer": "i"}}]}`, `line 1 column 40: guests[0].signature: give "key" or`},
		{`{"signatures": {"h": {}}}`, `line 1 column 22: signatures.h: keyless needs`},
		{`{"guests": [{"path": "x", "signature": {"keys": "k"}}]}`, `unknown key "keys"`},
		{`{"plain_http": ["http://h"]}`, `plain_http[0]: "http://h" does not match`},
	} {
		if _, err := Parse([]byte(tt.cfg)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%s) = %v, want %q", tt.cfg, err, tt.want)
		}
	}
}

// A guest the runtime would refuse is refused when the file is read, by the runtime's own
// rule (runtime.GuestConfig.Validate), naming the guest and the grant.
func TestRuntimeChecksAtParse(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{`{"guests": [{"path": "a.wasm", "grants": {"exec": [{"path": "/bin/../bin/ls"}]}}]}`,
			`line 1 column 13: guests[0]: grants: exec "/bin/../bin/ls": path must be absolute and clean`},
		{`{"guests": [{"path": "a.wasm"}, {"path": "b.wasm", "grants": {"fs": [{"guest": "/d", "host": "x"}, {"guest": "/d", "host": "y"}]}}]}`,
			`line 1 column 33: guests[1]: grants: fs "/d": mounted twice`},
	} {
		if _, err := Parse([]byte(tc.file)); fmt.Sprint(err) != tc.want {
			t.Errorf("Parse(%s) = %v; want %s", tc.file, err, tc.want)
		}
	}
}

// A guest's config map (what an Extism plugin reads with config_get) reaches the runtime as
// it is; a value that is not a string is refused naming the field.
func TestGuestConfigMap(t *testing.T) {
	c, err := Parse([]byte(`{"guests":[{"path":"p.wasm","config":{"API_URL":"https://api.example.com","EMPTY":""}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := c.GuestConfig(c.Guests[0], "p.wasm").Config
	if len(got) != 2 || got["API_URL"] != "https://api.example.com" || got["EMPTY"] != "" {
		t.Errorf("Config = %v", got)
	}
	if _, err := Parse([]byte(`{"guests":[{"path":"p.wasm","config":{"N":1}}]}`)); err == nil || !strings.Contains(err.Error(), "config") {
		t.Errorf("a number in config: %v", err)
	}
}

// A file with several independent mistakes is answered with all of them, in the file's order:
// an unknown key, two wrong types, a duplicate guest name, an upstream without command or url
// and an "mcp" grant naming no upstream.
func TestParseReportsEveryError(t *testing.T) {
	in := `{
  "guests": [
    {"name": "a", "path": "a.wasm", "tool": {}},
    {"name": "b", "path": "b.wasm", "limits": {"instances": "4"}},
    {"name": "c", "path": "c.wasm", "grants": {"mcp": ["docs"]}},
    {"name": "a", "path": "d.wasm"}
  ],
  "upstreams": {"docz": {}},
  "idle_timeout_ms": "60s"
}`
	_, err := Parse([]byte(in))
	want := `line 3 column 37: unknown key "tool" in guests[0] (did you mean "tools"?)
line 4 column 61: guests[1].limits.instances: want integer, got string
line 5 column 56: guests[2].grants.mcp[0]: "docs" names no upstream
line 6 column 14: guests[3].name: guests[0] is named "a" too
line 8 column 25: upstreams.docz: give exactly one of "command" or "url"
line 9 column 22: idle_timeout_ms: want integer, got string`
	if diff := cmp.Diff(want, fmt.Sprint(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var l schemaerr.List
	if !errors.As(err, &l) || len(l) != 6 {
		t.Errorf("error %T: want a schemaerr.List of 6", err)
	}
}

// Where one error makes a check meaningless, the check is not made: the cross-field checks
// of a guest with a wrong value in it, "mcp" names when "upstreams" is not an object, the
// values of an object with a duplicate key. Other entries are still checked.
func TestParseSkipsDependentChecks(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"tool grants of a guest whose net is not a list",
			`{"guests": [{"path": "a.wasm", "grants": {"net": "a.test"}, "tools": {"t": {"grants": {"net": ["b.test"]}}}}]}`,
			`line 1 column 50: guests[0].grants.net: want array, got string`},
		{"tool grants of a guest with a misspelt key",
			`{"guests": [{"path": "a.wasm", "grant": {"net": ["b.test"]}, "tools": {"t": {"grants": {"net": ["b.test"]}}}}]}`,
			`line 1 column 32: unknown key "grant" in guests[0] (did you mean "grants"?)`},
		{"mcp names when upstreams is a list",
			`{"guests": [{"path": "a.wasm", "grants": {"mcp": ["docs"]}}], "upstreams": [{"docs": {"url": "http://x"}}]}`,
			`line 1 column 76: upstreams: want object, got array`},
		{"values of an object with a duplicate key",
			`{"guests": [{"path": "a.wasm", "limits": {"instances": "4"}, "limits": {}, "grants": {"mcp": ["docs"]}}]}`,
			`line 1 column 62: duplicate key "limits"`},
		{"another guest is still checked",
			`{"guests": [{"path": "a.wasm", "grants": {"net": "a.test"}, "tools": {"t": {"grants": {"net": ["b.test"]}}}},
  {"path": "b.wasm", "grants": {"net": ["a.test"]}, "tools": {"t": {"grants": {"net": ["b.test"]}}}}]}`,
			"line 1 column 50: guests[0].grants.net: want array, got string\n" +
				`line 2 column 79: guests[1].tools.t.grants: net "b.test" is not granted to the guest`},
		{"an integer Go cannot hold beside a wrong type",
			`{"guests": [{"path": "a.wasm", "limits": {"instances": 4.0}}], "idle_timeout_ms": "x"}`,
			"line 1 column 58: json: cannot unmarshal number 4.0 into Go struct field Limits.guests.limits.instances of type int\n" +
				`line 1 column 83: idle_timeout_ms: want integer, got string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			if diff := cmp.Diff(tc.want, fmt.Sprint(err)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Load names the file on each line of several errors.
func TestLoadNamesFileOnEachLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcpwasm.json")
	if err := os.WriteFile(path, []byte("{\"guestz\": [],\n \"status\": 1}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := path + `: line 1 column 2: unknown key "guestz" at the top level (did you mean "guests"?)` + "\n" +
		path + `: line 2 column 12: status: want boolean, got integer`
	if fmt.Sprint(err) != want {
		t.Errorf("Load: %v\nwant %s", err, want)
	}
}

// "task_limits" is strict: its keys are known integers of at least 1.
func TestTaskLimitsKeys(t *testing.T) {
	c, err := Parse([]byte(`{"guests": [], "task_limits": {"max_tasks": 500, "client_tasks": 20, "anonymous_mb": 4, "input_ttl_ms": 30000}}`))
	if err != nil {
		t.Fatal(err)
	}
	if l := c.TaskLimits; l == nil || *l != (TaskLimits{MaxTasks: 500, ClientTasks: 20, AnonymousMB: 4, InputTTLMS: 30000}) {
		t.Errorf("task_limits = %+v", l)
	}
	for _, in := range []string{
		`{"guests": [], "task_limits": {"client_task": 20}}`,
		`{"guests": [], "task_limits": {"input_ttl_ms": 0}}`,
		`{"guests": [], "task_limits": {"max_mb": "1G"}}`,
	} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), "task_limits") {
			t.Errorf("%s: %v, want an error naming task_limits", in, err)
		}
	}
}

// An upstream's grants: sampling, elicitation and roots as a guest's (one parser); the
// grants that are about the sandbox are refused naming the value and why.
func TestUpstreamGrants(t *testing.T) {
	c, err := Parse([]byte(`{"upstreams": {"docs": {"url": "http://127.0.0.1:1/mcp", "grants": {"sampling": true, "roots": true}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Upstreams["docs"].Grants; g == nil || !g.Sampling || g.Elicitation || !g.Roots {
		t.Errorf("grants: %+v", g)
	}
	_, err = Parse([]byte(`{"upstreams": {"docs": {"command": ["d"],
  "grants": {"elicitation": true, "net": ["example.com"]}}}}`))
	want := `line 2 column 42: upstreams.docs.grants.net: an upstream runs outside the sandbox: its own net is not mcpwasm's to grant (an upstream's grants are sampling, elicitation and roots)`
	if err == nil || err.Error() != want {
		t.Errorf("net grant: %v\nwant %s", err, want)
	}
	_, err = Parse([]byte(`{"upstreams": {"docs": {"command": ["d"], "grants": {"sampling": "yes"}}}}`))
	if err == nil || !strings.Contains(err.Error(), "upstreams.docs.grants.sampling: want boolean") {
		t.Errorf("a grant that is not a boolean: %v", err)
	}
}
