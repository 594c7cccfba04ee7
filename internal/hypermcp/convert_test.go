package hypermcp

import (
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/config"
)

const sample = `{
  "auths": {"https://registry.example": {"type": "token", "token": "t"}},
  "plugins": {
    "time": {"url": "oci://ghcr.io/hyper-mcp-rs/time-plugin:latest"},
    "myip": {
      "url": "oci://ghcr.io/hyper-mcp-rs/myip-plugin:latest",
      "runtime_config": {
        "allowed_hosts": ["1.1.1.1", "*.ipify.org"],
        "allowed_paths": ["/tmp", "/var/log:/plugin/logs", "ro:/srv/data:/data"],
        "skip_tools": ["debug_.*"],
        "env_vars": {"FOO": "bar", "TOKEN": "${MYIP_TOKEN}"},
        "memory_limit": "512Mi"
      }
    },
    "local": {"path": "file:///opt/plugins/local.wasm", "runtime_config": {"memory_limit": "1MB", "allowed_secrets": [{"service": "s", "user": "u"}]}}
  }
}`

func TestConvert(t *testing.T) {
	r, err := Convert([]byte(sample), false)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "guests": [
    {
      "name": "local",
      "path": "/opt/plugins/local.wasm",
      "grants": {
        "clock": true,
        "random": true
      },
      "limits": {
        "memory_mb": 1,
        "instances": 1
      },
      "isolation": "shared"
    },
    {
      "name": "myip",
      "path": "oci://ghcr.io/hyper-mcp-rs/myip-plugin:latest",
      "grants": {
        "net": [
          "1.1.1.1",
          "*.ipify.org"
        ],
        "fs": [
          {
            "guest": "/tmp",
            "host": "/tmp",
            "rw": true
          },
          {
            "guest": "/plugin/logs",
            "host": "/var/log",
            "rw": true
          },
          {
            "guest": "/data",
            "host": "/srv/data"
          }
        ],
        "clock": true,
        "random": true
      },
      "limits": {
        "memory_mb": 512,
        "instances": 1
      },
      "config": {
        "FOO": "bar",
        "TOKEN": "${MYIP_TOKEN}"
      },
      "hide_tools": [
        "debug_.*"
      ],
      "isolation": "shared"
    },
    {
      "name": "time",
      "path": "oci://ghcr.io/hyper-mcp-rs/time-plugin:latest",
      "grants": {
        "clock": true,
        "random": true
      },
      "limits": {
        "instances": 1
      },
      "isolation": "shared"
    }
  ]
}
`
	if string(out) != want {
		t.Errorf("config:\n%s\nwant:\n%s", out, want)
	}
	// What import writes is a valid mcpwasm configuration.
	if _, err := config.Parse(out); err != nil {
		t.Errorf("the converted config does not parse: %v", err)
	}
	wantSummary := `guest local (/opt/plugins/local.wasm)
  grants memory 1 MiB (1MB rounded up to whole MiB); it bounds linear and kernel memory together
  grants clock, random (as hyper-mcp gives every plugin; without them the plugin reads a fixed clock and a deterministic random source)
  note: allowed_secrets not carried over: mcpwasm does not read the OS keyring for plugins (get_keyring_secret answers empty); give the values in config
  note: one instance shared by every client (isolation shared, limits.instances 1), as hyper-mcp runs each plugin, so what a plugin keeps between calls (a counter, tools added by add_tool) is one state; for a plugin that keeps nothing, raise limits.instances and drop isolation to run calls in parallel and per session
guest myip (oci://ghcr.io/hyper-mcp-rs/myip-plugin:latest)
  grants net "1.1.1.1", "*.ipify.org"
  grants fs /tmp at /tmp (read-write, as hyper-mcp mounts it)
  grants fs /var/log at /plugin/logs (read-write, as hyper-mcp mounts it)
  grants fs /srv/data at /data (read-only)
  grants config FOO, TOKEN (read with config_get, not the WASI environment)
  grants memory 512 MiB; it bounds linear and kernel memory together
  grants clock, random (as hyper-mcp gives every plugin; without them the plugin reads a fixed clock and a deterministic random source)
  note: hyper-mcp allowed any port of an allowed host; mcpwasm grants the scheme's default port (write host:* for any), and refuses loopback, private and link-local addresses unless the grant names that IP or localhost
  note: config TOKEN is ${MYIP_TOKEN}: hyper-mcp read it from its environment; mcpwasm passes config values as written, so put the value in the config (and keep the file private)
  note: skip_tools "debug_.*" carried over as hide_tools: those tools are not served
  note: one instance shared by every client (isolation shared, limits.instances 1), as hyper-mcp runs each plugin, so what a plugin keeps between calls (a counter, tools added by add_tool) is one state; for a plugin that keeps nothing, raise limits.instances and drop isolation to run calls in parallel and per session
guest time (oci://ghcr.io/hyper-mcp-rs/time-plugin:latest)
  grants clock, random (as hyper-mcp gives every plugin; without them the plugin reads a fixed clock and a deterministic random source)
  note: one instance shared by every client (isolation shared, limits.instances 1), as hyper-mcp runs each plugin, so what a plugin keeps between calls (a counter, tools added by add_tool) is one state; for a plugin that keeps nothing, raise limits.instances and drop isolation to run calls in parallel and per session
note: auths (credentials hyper-mcp uses to download plugins) are not carried over: mcpwasm takes registry credentials from the Docker config file ('docker login')
note: hyper-mcp verifies cosign signatures of OCI plugins against the public Sigstore instance with any signer by default; mcpwasm verifies a signer you name: add a "signatures" policy (identity, issuer, trusted_root) for the registry
note: tool names: hyper-mcp names each tool PLUGIN-TOOL (PLUGIN::TOOL in earlier releases); mcpwasm serves a guest's tools under their own names, so clients call TOOL, and two guests offering the same tool name are refused when serve loads them (import does not load guests)
the grants above are written into the converted config: review them before serving it (mcpwasm grants a guest nothing the config does not)
`
	if got := r.Summary(); got != wantSummary {
		t.Errorf("summary:\n%s\nwant:\n%s", got, wantSummary)
	}
}

func TestConvertYAML(t *testing.T) {
	r, err := Convert([]byte("plugins:\n  qr_code:\n    url: https://plugins.example/qr.wasm\n    runtime_config:\n      allowed_hosts: ['*']\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	g := r.Config.Guests[0]
	if g.Name != "qr_code" || g.Path != "https://plugins.example/qr.wasm" || strings.Join(g.Grants.Net, ",") != "*" {
		t.Errorf("guest %+v", g)
	}
	if !strings.Contains(r.Summary(), `note: net "*": any public host (hyper-mcp's "*" also reached private and loopback addresses)`) {
		t.Errorf("summary:\n%s", r.Summary())
	}
}

func TestConvertRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{}`, `not a hyper-mcp configuration: no "plugins" object`},
		{`{"plugins":{"a":{"url":"s3://bucket/p.wasm"}}}`, `plugins.a: url "s3://bucket/p.wasm": s3:// is not supported by mcpwasm`},
		{`{"plugins":{"a-b":{"url":"file:///p.wasm"}}}`, `plugins.a-b: the name "a-b" is not a hyper-mcp plugin name`},
		{`{"plugins":{"a":{"url":"file:///p.wasm","runtime_config":{"allowed_hosts":["api-?.x.com"]}}}}`, `plugins.a: runtime_config.allowed_hosts: the glob "api-?.x.com" has no mcpwasm form`},
		{`{"plugins":{"a":{"url":"file:///p.wasm","runtime_config":{"memory_limit":"lots"}}}}`, `plugins.a: runtime_config.memory_limit: "lots" is not a size`},
		{`{"plugins":{"a":{"url":"file:///p.wasm","runtime_config":{"allowed_paths":["/x:rel"]}}}}`, `plugins.a: runtime_config.allowed_paths: "/x:rel": the plugin path "rel" must be absolute`},
		{`{"plugins":{"a":{}}}`, `plugins.a: "url" is required`},
	} {
		_, err := Convert([]byte(tc.in), false)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]uint64{"512Mi": 512 << 20, "1MB": 1e6, "1.5 GiB": 3 << 29, "64kib": 64 << 10, "100": 100} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("%q = %d, %v; want %d", in, got, err, want)
		}
	}
}

// hyper-mcp has written "plugins" as a list of {name, url, runtime_config} as well as a map;
// both convert, the list in its order.
func TestConvertPluginList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		yaml bool
	}{
		{`{"plugins":[{"name":"v1","url":"file:///p/v1.wasm","runtime_config":{"memory_limit":"2Mi"}},{"name":"a0","url":"file:///p/a0.wasm"}]}`, false},
		{"plugins:\n  - name: v1\n    url: file:///p/v1.wasm\n    runtime_config:\n      memory_limit: 2Mi\n  - name: a0\n    url: file:///p/a0.wasm\n", true},
	} {
		r, err := Convert([]byte(tc.in), tc.yaml)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		out, _ := r.Marshal()
		want := `{
  "guests": [
    {
      "name": "v1",
      "path": "/p/v1.wasm",
      "grants": {
        "clock": true,
        "random": true
      },
      "limits": {
        "memory_mb": 2,
        "instances": 1
      },
      "isolation": "shared"
    },
    {
      "name": "a0",
      "path": "/p/a0.wasm",
      "grants": {
        "clock": true,
        "random": true
      },
      "limits": {
        "instances": 1
      },
      "isolation": "shared"
    }
  ]
}
`
		if string(out) != want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.in, out, want)
		}
	}
}

func TestConvertPluginShapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"plugins":[{"name":"v1","url":"file:///a.wasm"},{"name":"v1","url":"file:///b.wasm"}]}`, `not a hyper-mcp configuration: plugins[1]: the name "v1" is used twice`},
		{`{"plugins":[{"url":"file:///a.wasm"}]}`, `not a hyper-mcp configuration: plugins[0]: "name" is required`},
		{`{"plugins":"v1.wasm"}`, `not a hyper-mcp configuration: plugins: want a map of name to {"url", "runtime_config"} or a list of {"name", "url", "runtime_config"}`},
		{`{"plugins":null}`, `not a hyper-mcp configuration: no "plugins" object`},
	} {
		_, err := Convert([]byte(tc.in), false)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// A file URL names an absolute path and no host; the two relative-looking forms a user writes
// would otherwise become an empty path or a path at the root.
func TestConvertFileURL(t *testing.T) {
	for in, want := range map[string]string{
		"file://v2.wasm":        `plugins.v2: url "file://v2.wasm": a file URL must name an absolute path with no host: want file:///absolute/path.wasm`,
		"file://./v2.wasm":      `plugins.v2: url "file://./v2.wasm": a file URL must name an absolute path with no host: want file:///absolute/path.wasm`,
		"file:v2.wasm":          `plugins.v2: url "file:v2.wasm": a file URL must name an absolute path with no host: want file:///absolute/path.wasm`,
		"file://host/p/v2.wasm": `plugins.v2: url "file://host/p/v2.wasm": a file URL must name an absolute path with no host: want file:///absolute/path.wasm`,
		"v2.wasm":               `plugins.v2: url "v2.wasm": want file:///absolute/path.wasm, oci://, https://, http:// or an absolute path`,
	} {
		_, err := Convert([]byte(`{"plugins":{"v2":{"url":"`+in+`"}}}`), false)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	for in, want := range map[string]string{"file:///p/v2.wasm": "/p/v2.wasm", "file://localhost/p/v2.wasm": "/p/v2.wasm", "/p/v2.wasm": "/p/v2.wasm"} {
		r, err := Convert([]byte(`{"plugins":{"v2":{"url":"`+in+`"}}}`), false)
		if err != nil || r.Config.Guests[0].Path != want {
			t.Errorf("%s: %v, %+v; want path %s", in, err, r, want)
		}
	}
}

// A misspelt or unknown runtime_config key is reported, naming the plugin and key, with the
// key it is a near miss of; the conversion goes on (hyper-mcp ignores such keys too).
func TestConvertUnknownRuntimeConfigKey(t *testing.T) {
	r, err := Convert([]byte("plugins:\n  v1:\n    url: file:///p/v1.wasm\n    runtime_config:\n      allowed_host: [example.com]\n      memlimit: 64Mi\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	want := `guest v1 (/p/v1.wasm)
  grants clock, random (as hyper-mcp gives every plugin; without them the plugin reads a fixed clock and a deterministic random source)
  note: plugins.v1.runtime_config: unknown key "allowed_host" ignored (did you mean "allowed_hosts"?)
  note: plugins.v1.runtime_config: unknown key "memlimit" ignored
  note: one instance shared by every client (isolation shared, limits.instances 1), as hyper-mcp runs each plugin, so what a plugin keeps between calls (a counter, tools added by add_tool) is one state; for a plugin that keeps nothing, raise limits.instances and drop isolation to run calls in parallel and per session
note: tool names: hyper-mcp names each tool PLUGIN-TOOL (PLUGIN::TOOL in earlier releases); mcpwasm serves a guest's tools under their own names, so clients call TOOL, and two guests offering the same tool name are refused when serve loads them (import does not load guests)
the grants above are written into the converted config: review them before serving it (mcpwasm grants a guest nothing the config does not)
`
	if got := r.Summary(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
}

// The list form's tool_name_prefix has no mcpwasm form and is said so; the map form's
// namespacing (PLUGIN-TOOL) is noted at the end, as in TestConvert.
func TestConvertToolNamePrefix(t *testing.T) {
	r, err := Convert([]byte(`{"plugins":[{"name":"v1","url":"file:///p/v1.wasm","tool_name_prefix":"v1_"}]}`), false)
	if err != nil {
		t.Fatal(err)
	}
	want := `guest v1 (/p/v1.wasm)
  grants clock, random (as hyper-mcp gives every plugin; without them the plugin reads a fixed clock and a deterministic random source)
  note: tool_name_prefix "v1_" not carried over: mcpwasm serves a guest's tools under their own names; two guests offering the same tool name are refused when serve loads them
  note: one instance shared by every client (isolation shared, limits.instances 1), as hyper-mcp runs each plugin, so what a plugin keeps between calls (a counter, tools added by add_tool) is one state; for a plugin that keeps nothing, raise limits.instances and drop isolation to run calls in parallel and per session
the grants above are written into the converted config: review them before serving it (mcpwasm grants a guest nothing the config does not)
`
	if got := r.Summary(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
}

// hyper-mcp's first releases read a list of {name, path, runtime_config: {allowed_host}}:
// any name ("qr-code" in their README) and one allowed host. Both carry over in the list
// form; in the map form a hyphen is refused and allowed_host ignored, as hyper-mcp does now.
func TestConvertFirstReleaseList(t *testing.T) {
	r, err := Convert([]byte(`{"plugins":[
		{"name":"qr-code","path":"oci://ghcr.io/tuananh/qrcode-plugin:latest"},
		{"name":"myip","path":"oci://ghcr.io/tuananh/myip-plugin:latest","runtime_config":{"allowed_host":"1.1.1.1"}}]}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Config.Guests[0].Name; got != "qr-code" {
		t.Errorf("first guest named %q, want qr-code", got)
	}
	if got := strings.Join(r.Config.Guests[1].Grants.Net, ","); got != "1.1.1.1" {
		t.Errorf("myip net grant %q, want 1.1.1.1", got)
	}
	sum := r.Summary()
	for _, want := range []string{
		"guest myip (oci://ghcr.io/tuananh/myip-plugin:latest)\n  grants net \"1.1.1.1\"\n  grants clock, random",
		`  note: allowed_host "1.1.1.1" (hyper-mcp's first releases) read as allowed_hosts`,
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	if strings.Contains(sum, "did you mean") {
		t.Errorf("summary calls allowed_host unknown:\n%s", sum)
	}

	for _, tc := range []struct{ in, want string }{
		{`{"plugins":[{"name":"a b","path":"/p.wasm"}]}`, `plugins.a b: the name "a b" is not an mcpwasm guest name (1 to 64 letters, digits, _ and -): rename the plugin`},
	} {
		_, err := Convert([]byte(tc.in), false)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
	// The map form: allowed_host is not hyper-mcp's key there, so it grants nothing.
	r, err = Convert([]byte(`{"plugins":{"myip":{"url":"oci://ghcr.io/x/myip:1","runtime_config":{"allowed_host":"1.1.1.1"}}}}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Config.Guests[0].Grants.Net; len(n) != 0 {
		t.Errorf("map form: allowed_host granted %v", n)
	}
	if want := `unknown key "allowed_host" ignored (did you mean "allowed_hosts"?)`; !strings.Contains(r.Summary(), want) {
		t.Errorf("map form summary lacks %q:\n%s", want, r.Summary())
	}
}

// A field of the wrong type is named with its line, column and path, in JSON and in YAML, in
// the map form and the list form (it read "not a hyper-mcp configuration: plugins: json:
// cannot unmarshal string into Go struct field Plugin.runtime_config.allowed_hosts").
func TestConvertTypeErrorsNameLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		yaml bool
		want string
	}{
		{"{\"plugins\": {\n  \"time\": {\"url\": \"oci://ghcr.io/x/time:latest\",\n    \"runtime_config\": {\"allowed_hosts\": \"example.com\"}}}}", false,
			`line 3 column 41: plugins.time.runtime_config.allowed_hosts: want array, got string`},
		{"plugins:\n  time:\n    url: oci://ghcr.io/x/time:latest\n    runtime_config:\n      allowed_hosts: example.com\n", true,
			`line 5 column 22: plugins.time.runtime_config.allowed_hosts: want array, got string`},
		{"plugins:\n  - name: time\n    url: oci://ghcr.io/x/time:latest\n    runtime_config:\n      memory_limit: 4\n", true,
			`line 5 column 21: plugins[0].runtime_config.memory_limit: want string, got integer`},
		{"plugins:\n  - name: time\n    url: oci://ghcr.io/x/time:latest\n    runtime_config:\n      env_vars: {PORT: 8080}\n", true,
			`line 5 column 24: plugins[0].runtime_config.env_vars.PORT: want string, got integer`},
		{`{"dynamic_loading": "yes", "plugins": {}}`, false, `line 1 column 21: dynamic_loading: want boolean, got string`},
		{"{\"plugins\": {\n  \"time\": {\"url\": \"x\",}}}", false, `line 2 column 23: invalid character '}' looking for beginning of object key string`},
	} {
		_, err := Convert([]byte(tc.in), tc.yaml)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v\nwant %q", tc.in, err, tc.want)
		}
	}
}

// skip_tools carries over as hide_tools, so a tool hidden under hyper-mcp stays hidden (issue
// 45 item 14); a pattern Go's RE2 cannot read is refused, naming it, rather than dropped.
func TestConvertSkipTools(t *testing.T) {
	r, err := Convert([]byte(`{"plugins":{"gh":{"url":"file:///p/gh.wasm","runtime_config":{"skip_tools":["gh-delete-.*","gh-create-gist"]}}}}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Config.Guests[0].HideTools, " "); got != "gh-delete-.* gh-create-gist" {
		t.Errorf("hide_tools %q", got)
	}
	_, err = Convert([]byte(`{"plugins":{"gh":{"url":"file:///p/gh.wasm","runtime_config":{"skip_tools":["(?!gh-list).*"]}}}}`), false)
	if want := `plugins.gh: runtime_config.skip_tools: the pattern "(?!gh-list).*" has no Go RE2 form`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("look-ahead: %v, want %q", err, want)
	}
}
