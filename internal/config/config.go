// Package config reads mcpwasm's configuration file: strict JSON, validated against the JSON
// Schema in schema.json (draft 2020-12, checked with github.com/google/jsonschema-go), then
// decoded with unknown fields rejected. Errors name the line, column and path of the
// offending value ("line 3 column 28: guests[0].limits.instances: want integer, got string";
// internal/schemaerr); a hyper-mcp configuration is refused as one (ErrHyperMCP).
//
// The shape (see schema.json for every field):
//
//	{"guests": [{"name": "web", "path": "fetch.wasm", "sha256": "…",
//	             "grants": {"net": ["example.com"], "clock": true},
//	             "limits": {"memory_mb": 64, "timeout_ms": 10000, "instances": 4},
//	             "tools": {"fetch": {"grants": {"net": ["example.com"]}}}}],
//	 "upstreams": {"docs": {"command": ["docs-server", "--stdio"]}}}
package config

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/mcpwasm/mcpwasm/internal/schemaerr"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// Schema is the JSON Schema every configuration file must satisfy.
//
//go:embed schema.json
var Schema []byte

// Config is a parsed configuration file.
type Config struct {
	Guests    []Guest             `json:"guests"`
	Upstreams map[string]Upstream `json:"upstreams,omitempty"`
	// IdleTimeoutMS closes guest instances idle longer than this (runtime.Options.IdleTimeout);
	// 0 means the default, negative never.
	IdleTimeoutMS int `json:"idle_timeout_ms,omitempty"`
	// Status serves the status resource and the mcpwasm_status and mcpwasm_stop tools
	// (mcpserver.AddStatus; serve --status); off by default.
	Status bool `json:"status,omitempty"`

	// Shipping guests from URLs and registries (internal/ship; ship.go).
	Ship

	// RequestStateKey is the hex HMAC-SHA256 key (at least 32 bytes) that authenticates the
	// requestState of input-required tool results (ABI.md §6.7): replicas behind one load
	// balancer share it. Empty means the environment's MCPWASM_REQUEST_STATE_KEY, else a
	// random key per process.
	RequestStateKey string `json:"request_state_key,omitempty"`

	dir string // the file's directory: relative paths are resolved against it
}

// Guest is one guest to load and what the operator grants it.
type Guest struct {
	Name   string          `json:"name,omitempty"`
	Path   string          `json:"path"`
	SHA256 string          `json:"sha256,omitempty"`
	Grants policy.Grants   `json:"grants,omitzero"`
	Limits Limits          `json:"limits,omitzero"`
	Tools  map[string]Tool `json:"tools,omitempty"`
	// Config is the key-value strings an Extism plugin reads with config_get (hyper-mcp's
	// runtime_config.env_vars); the operator's only, never the client's.
	Config map[string]string `json:"config,omitempty"`
	// ToolPrefix is put before each of the guest's tool names as served (and as "tools"
	// names them): runtime.GuestConfig.ToolPrefix. Two guests naming a tool alike need it.
	ToolPrefix string `json:"tool_prefix,omitempty"`
	// AllowHiddenText serves tools, prompts and resources whose text hides invisible or
	// format characters (see mcpserver.GuestOptions.AllowHiddenText); by default they are
	// withheld.
	AllowHiddenText bool `json:"allow_hidden_text,omitempty"`
	// Isolation is "shared", "session" or "call" (runtime.GuestConfig.Isolation); empty
	// means the command line's (serve --isolation, default session).
	Isolation string `json:"isolation,omitempty"`
	// Tasks caps the task support of the guest's tools ("forbidden", "optional",
	// "required"; mcpserver.TaskCaps); empty keeps what the manifest declares.
	Tasks string `json:"tasks,omitempty"`
	// Signature, when set, is the Sigstore policy the module must satisfy before it is
	// stored (ship.go); it overrides the registry's in Ship.Signatures.
	Signature *Signature `json:"signature,omitempty"`
}

// Tool narrows grants and limits for one tool.
type Tool struct {
	Grants *policy.Grants `json:"grants,omitempty"`
	Limits Limits         `json:"limits,omitzero"`
	// Tasks caps this tool's task support (see Guest.Tasks).
	Tasks string `json:"tasks,omitempty"`
}

// Limits mirrors runtime.Limits in the file's units (MiB, milliseconds, bytes).
type Limits struct {
	MemoryMB    int `json:"memory_mb,omitempty"`
	TimeoutMS   int `json:"timeout_ms,omitempty"`
	Instances   int `json:"instances,omitempty"`
	OutputBytes int `json:"output_bytes,omitempty"`
	// Load caps (runtime.Limits.ModuleBytes … CompileTimeout); guest-level only, ignored per tool.
	ModuleMB         int `json:"module_mb,omitempty"`
	ManifestBytes    int `json:"manifest_bytes,omitempty"`
	Tools            int `json:"tools,omitempty"`
	Nesting          int `json:"nesting,omitempty"`
	CompileMemoryMB  int `json:"compile_memory_mb,omitempty"`
	CompileTimeoutMS int `json:"compile_timeout_ms,omitempty"`
}

// Upstream is an MCP server the host can connect to as a client: a command to spawn (stdio)
// or a Streamable HTTP URL with headers.
type Upstream struct {
	Command []string          `json:"command,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Env is what a spawned server gets in its environment besides a minimal one (HOME,
	// PATH, USER, LOGNAME, SHELL, TERM, TMPDIR, LANG): each entry is "NAME=VALUE" (set) or
	// "NAME" (our own value of NAME, if set). Command servers only.
	Env    []string `json:"env,omitempty"`
	Expose bool     `json:"expose,omitempty"`
	// AllowHiddenText serves exposed tools whose text hides invisible or format characters.
	AllowHiddenText bool `json:"allow_hidden_text,omitempty"`
	// OAuth configures how a url upstream authorizes (MCP "Authorization"). Absent: a token
	// that `mcpwasm login URL` stored is used and refreshed, and dynamic registration.
	OAuth *UpstreamOAuth `json:"oauth,omitempty"`
}

// UpstreamOAuth is the OAuth 2.1 client configuration of one url upstream.
type UpstreamOAuth struct {
	// ClientID is a pre-registered client's ID.
	ClientID string `json:"client_id,omitempty"`
	// ClientSecretEnv names the environment variable holding the client's secret (the secret
	// itself never goes into the config).
	ClientSecretEnv string `json:"client_secret_env,omitempty"`
	// ClientCredentials uses the client credentials grant (RFC 6749 §4.4; needs ClientID and
	// ClientSecretEnv): for servers no user logs in to.
	ClientCredentials bool `json:"client_credentials,omitempty"`
	// ClientMetadataURL is this client's client ID metadata document (https URL).
	ClientMetadataURL string `json:"client_metadata_url,omitempty"`
}

// schema checks a file against Schema, on first use: a server without a config skips it.
var schema = schemaerr.New("config: schema.json", Schema)

// Load reads and validates the configuration file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := parse(data, filepath.Dir(path))
	if err != nil {
		if errors.Is(err, ErrHyperMCP) {
			return nil, fmt.Errorf("%s: %w: convert it with: mcpwasm import hyper-mcp %s", path, err, path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ErrHyperMCP is the error of a file that is a hyper-mcp configuration (top-level "plugins",
// JSON or YAML) rather than mcpwasm's: `mcpwasm import hyper-mcp` converts it.
var ErrHyperMCP = errors.New("this is a hyper-mcp configuration, not an mcpwasm one")

// Parse validates and decodes a configuration. Relative paths in it are relative to the
// current directory (Load makes them relative to the file).
func Parse(data []byte) (*Config, error) { return parse(data, "") }

// parse is Parse with relative paths relative to dir ("" the current directory).
func parse(data []byte, dir string) (*Config, error) {
	c, err := parseJSON(data, dir)
	if err != nil && isHyperMCP(data) {
		return nil, ErrHyperMCP
	}
	var se *json.SyntaxError
	if t := bytes.TrimSpace(data); errors.As(err, &se) && len(t) > 0 && t[0] != '{' && t[0] != '[' && isYAMLObject(data) {
		return nil, fmt.Errorf("%w (YAML? mcpwasm's config is JSON)", err)
	}
	return c, err
}

// isYAMLObject reports whether data is a YAML mapping.
func isYAMLObject(data []byte) bool {
	j, err := yaml.YAMLToJSON(data)
	return err == nil && bytes.HasPrefix(bytes.TrimSpace(j), []byte("{"))
}

// isHyperMCP reports whether data is a hyper-mcp configuration: a JSON or YAML object whose
// "plugins" is a map or a list (mcpwasm's has no "plugins"; hyper-mcp's always has) and
// that has no "guests" (an mcpwasm config with a stray "plugins" is told about that key).
func isHyperMCP(data []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		j, err := yaml.YAMLToJSON(data)
		if err != nil || json.Unmarshal(j, &top) != nil {
			return false
		}
	}
	_, guests := top["guests"]
	p := bytes.TrimSpace(top["plugins"])
	return !guests && len(p) > 0 && (p[0] == '{' || p[0] == '[')
}

// parseJSON is parse of mcpwasm's own format.
func parseJSON(data []byte, dir string) (*Config, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, syntaxError(data, err)
	}
	if err := duplicateKeys(data); err != nil {
		return nil, err
	}
	if err := schema.Validate(v, func() *schemaerr.Doc { return schemaerr.JSON(data) }); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	c := Config{dir: dir}
	if err := dec.Decode(&c); err != nil {
		return nil, syntaxError(data, err)
	}
	// Checks across fields: each error names the value's line, column and path.
	at := func(path, format string, args ...any) error {
		return schemaerr.JSON(data).Errorf(path, format, args...)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Upstreams)) {
		u, path := c.Upstreams[name], schemaerr.Child("upstreams", name)
		if (len(u.Command) > 0) == (u.URL != "") {
			return nil, at(path, `give exactly one of "command" or "url"`)
		}
		if u.OAuth != nil && u.URL == "" {
			return nil, at(path+".oauth", `applies to a "url", not a spawned "command"`)
		}
		if o := u.OAuth; o != nil && o.ClientCredentials && (o.ClientID == "" || o.ClientSecretEnv == "") {
			return nil, at(path+".oauth", `"client_credentials" needs "client_id" and "client_secret_env"`)
		}
		if len(u.Env) > 0 && u.URL != "" {
			return nil, at(path+".env", `applies to a spawned "command", not a "url"`)
		}
	}
	if err := c.checkShip(at); err != nil { // ship.go
		return nil, err
	}
	names := map[string]int{}
	for i, g := range c.Guests {
		if g.Name == "" {
			continue
		}
		if j, dup := names[g.Name]; dup {
			return nil, at(fmt.Sprintf("guests[%d].name", i), "guests[%d] is named %q too", j, g.Name)
		}
		names[g.Name] = i
	}
	for i, g := range c.Guests {
		guest := fmt.Sprintf("guests[%d]", i)
		// The runtime's own checks of a guest's limits, isolation and grants, made now so a bad
		// file fails before any guest loads.
		if err := c.GuestConfig(g, "").Validate(); err != nil {
			return nil, at(guest, "%w", err)
		}
		for _, tool := range slices.Sorted(maps.Keys(g.Tools)) {
			t := g.Tools[tool]
			if t.Grants == nil {
				continue
			}
			if err := c.grants(*t.Grants).Within(c.grants(g.Grants)); err != nil {
				return nil, at(schemaerr.Child(guest+".tools", tool)+".grants", "%w", err)
			}
		}
		for k, m := range g.Grants.MCP {
			if _, ok := c.Upstreams[m]; !ok {
				return nil, at(fmt.Sprintf("%s.grants.mcp[%d]", guest, k), "%q names no upstream", m)
			}
		}
	}
	return &c, nil
}

// duplicateKeys rejects an object with the same key twice. encoding/json keeps the last one
// silently, so a second "grants" could hide the first from whoever reviews the file
// (RFC 8259 §4: names SHOULD be unique; this format says MUST).
func duplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys     map[string]bool
		isObject bool
		wantKey  bool
	}
	var stack []*frame
	for {
		start := schemaerr.NextToken(data, dec.InputOffset())
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return syntaxError(data, err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if top != nil && top.isObject {
					top.wantKey = true // this value ends the member
				}
				stack = append(stack, &frame{keys: map[string]bool{}, isObject: d == '{', wantKey: d == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if top == nil || !top.isObject {
			continue
		}
		if top.wantKey {
			key := tok.(string)
			if top.keys[key] {
				return fmt.Errorf("%s: duplicate key %q", schemaerr.Offset(data, start), key)
			}
			top.keys[key] = true
			top.wantKey = false
			continue
		}
		top.wantKey = true
	}
}

// syntaxError names the line and column of a JSON decoding error.
func syntaxError(data []byte, err error) error {
	if e := schemaerr.Syntax(data, err); e != nil {
		return e
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

// ModulePath returns g.Path resolved against the config file's directory.
// A URL or oci:// source is returned as it is (internal/ship fetches it).
func (c *Config) ModulePath(g Guest) string {
	if strings.Contains(g.Path, "://") {
		return g.Path
	}
	return c.resolve(g.Path)
}

func (c *Config) resolve(p string) string {
	if filepath.IsAbs(p) || c.dir == "" {
		return p
	}
	return filepath.Join(c.dir, p)
}

// GuestConfig turns g into the runtime's form; source names the module for messages.
func (c *Config) GuestConfig(g Guest, source string) *runtime.GuestConfig {
	rc := &runtime.GuestConfig{
		Name:       g.Name,
		Source:     source,
		SHA256:     g.SHA256,
		Config:     g.Config,
		Limits:     g.Limits.runtime(),
		ToolPrefix: g.ToolPrefix,
		Grants:     c.grants(g.Grants),
	}
	rc.Isolation = g.Isolation // the schema allows only valid names
	for name, t := range g.Tools {
		if t.Limits != (Limits{}) {
			if rc.ToolLimits == nil {
				rc.ToolLimits = map[string]runtime.Limits{}
			}
			rc.ToolLimits[name] = t.Limits.runtime()
		}
		if t.Grants != nil {
			if rc.ToolGrants == nil {
				rc.ToolGrants = map[string]runtime.Grants{}
			}
			rc.ToolGrants[name] = c.grants(*t.Grants)
		}
	}
	return rc
}

// grants returns a copy of g with each fs host directory resolved against the file's
// directory: the grant types are policy's, decoded from the file as they are.
func (c *Config) grants(g policy.Grants) policy.Grants {
	g = g.Clone()
	for i := range g.FS {
		g.FS[i].Host = c.resolve(g.FS[i].Host)
	}
	return g
}

func (l Limits) runtime() runtime.Limits {
	return runtime.Limits{MemoryBytes: uint64(l.MemoryMB) << 20, Timeout: time.Duration(l.TimeoutMS) * time.Millisecond,
		Instances: l.Instances, OutputBytes: l.OutputBytes,
		ModuleBytes: l.ModuleMB << 20, ManifestBytes: l.ManifestBytes, Tools: l.Tools, Nesting: l.Nesting,
		CompileMemory: uint64(max(l.CompileMemoryMB, 0)) << 20, CompileTimeout: time.Duration(l.CompileTimeoutMS) * time.Millisecond}
}
