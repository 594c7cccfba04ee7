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
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/mcpwasm/mcpwasm/internal/schemaerr"
	"github.com/mcpwasm/mcpwasm/mcpserver/codemode"
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
	// TaskLimits bound the server's tasks (mcpserver.TaskOptions); absent fields keep the
	// defaults.
	TaskLimits *TaskLimits `json:"task_limits,omitempty"`

	// Shipping guests from URLs and registries (internal/ship; ship.go).
	Ship

	// RequestStateKey is the hex HMAC-SHA256 key (at least 32 bytes) that authenticates the
	// requestState of input-required tool results (ABI.md §6.7): replicas behind one load
	// balancer share it. Empty means the environment's MCPWASM_REQUEST_STATE_KEY, else a
	// random key per process.
	RequestStateKey string `json:"request_state_key,omitempty"`

	// HTTPAuth makes serve --http an OAuth 2.1 resource server with a policy per identity
	// (mcpserver.ResourceServer); nil: the bearer token of --token-env alone, or none.
	HTTPAuth *HTTPAuth `json:"http_auth,omitempty"`

	// CodeMode is the "code_mode" section (docs/code-mode.md): serve's code tool, its
	// allowlist, which tools run without confirmation, and per-run budgets.
	CodeMode *codemode.Config `json:"code_mode,omitempty"`

	dir string // the file's directory: relative paths are resolved against it
}

// HTTPAuth is the "http_auth" section: serve --http as an OAuth 2.1 resource server (MCP
// "Authorization"; RFC 9728, RFC 8707) with a policy per identity. See docs/team.md.
type HTTPAuth struct {
	// Resource is this server's canonical URI, e.g. "https://mcp.example.com/mcp": access
	// tokens must name it in "aud".
	Resource string       `json:"resource"`
	Issuers  []AuthIssuer `json:"issuers"`
	// ScopesSupported is advertised in the protected resource metadata.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// StaticToken also accepts the --token-env bearer token, as the identity "static-token".
	StaticToken bool `json:"static_token,omitempty"`
	// MaxSessionsPerIdentity caps one identity's live sessions; 0: only --max-sessions.
	MaxSessionsPerIdentity int `json:"max_sessions_per_identity,omitempty"`
	// ClockSkewS is the tolerance on exp/nbf in seconds; 0: 60.
	ClockSkewS int `json:"clock_skew_s,omitempty"`
	// Policy grants tools to identities; absent: every valid token may use every tool;
	// present (even empty): only what a rule grants.
	Policy []PolicyRule `json:"policy,omitempty"`
}

// AuthIssuer is one trusted authorization server.
type AuthIssuer struct {
	Issuer      string   `json:"issuer"`
	JWKSURI     string   `json:"jwks_uri,omitempty"`
	Algorithms  []string `json:"algorithms,omitempty"`
	GroupsClaim string   `json:"groups_claim,omitempty"`
	// IntrospectionEndpoint checks opaque tokens (RFC 7662) with ClientID and the secret in
	// the environment variable ClientSecretEnv.
	IntrospectionEndpoint string `json:"introspection_endpoint,omitempty"`
	ClientID              string `json:"client_id,omitempty"`
	ClientSecretEnv       string `json:"client_secret_env,omitempty"`
}

// PolicyRule grants guests and tools to the identities it selects (mcpserver.PolicyRule).
type PolicyRule struct {
	Name     string   `json:"name,omitempty"`
	Subjects []string `json:"subjects,omitempty"`
	Groups   []string `json:"groups,omitempty"`
	Scopes   []string `json:"scopes,omitempty"`
	Guests   []string `json:"guests,omitempty"`
	Tools    []string `json:"tools,omitempty"`
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
	// Args is the guest's command-line arguments, argv after the program (or script) name
	// (runtime.GuestConfig.Args): a JavaScript guest's process.argv.slice(2), a whole-server
	// guest's os.Args[1:].
	Args []string `json:"args,omitempty"`
	// ToolPrefix is put before each of the guest's tool and prompt names as served (and as
	// "tools" names them): runtime.GuestConfig.ToolPrefix. Two guests naming a tool or prompt
	// alike need it; resource URIs are never rewritten.
	ToolPrefix string `json:"tool_prefix,omitempty"`
	// HideTools are regular expressions (Go RE2) of tool names not to serve, each matched
	// against the whole name the guest declares, before tool_prefix:
	// runtime.GuestConfig.HideTools. import fills it from hyper-mcp's skip_tools.
	HideTools []string `json:"hide_tools,omitempty"`
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

// TaskLimits mirrors mcpserver.TaskOptions in the file's units (MiB, milliseconds); 0 or
// absent means the default. A client is an authenticated subject, else a session; every
// sessionless request shares the anonymous bucket.
type TaskLimits struct {
	MaxTasks       int `json:"max_tasks,omitempty"`
	MaxMB          int `json:"max_mb,omitempty"`
	ClientTasks    int `json:"client_tasks,omitempty"`
	ClientMB       int `json:"client_mb,omitempty"`
	AnonymousTasks int `json:"anonymous_tasks,omitempty"`
	AnonymousMB    int `json:"anonymous_mb,omitempty"`
	TTLMS          int `json:"ttl_ms,omitempty"`
	InputTTLMS     int `json:"input_ttl_ms,omitempty"`
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
	Env []string `json:"env,omitempty"`
	// Expose serves the server on ours (the gateway): its tools and prompts as NAME__tool
	// and NAME__prompt, its resources and resource templates under their own URIs,
	// completion/complete and resources/subscribe routed to it.
	Expose bool `json:"expose,omitempty"`
	// AllowHiddenText serves exposed tools, prompts, resources and templates whose text
	// hides invisible or format characters.
	AllowHiddenText bool `json:"allow_hidden_text,omitempty"`
	// OAuth configures how a url upstream authorizes (MCP "Authorization"). Absent: a token
	// that `mcpwasm login URL` stored is used and refreshed, and dynamic registration.
	OAuth *UpstreamOAuth `json:"oauth,omitempty"`
	// Grants are what the server may ask of the client of a gateway call (upstream.Relay):
	// sampling, elicitation and roots, with a guest's meaning and parser. The others (net,
	// exec, fs, env, clock, random, mcp) are refused: an upstream runs outside the sandbox, so
	// its own network, files, clock and environment are not ours to grant. Absent: none.
	Grants *policy.Grants `json:"grants,omitempty"`
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
	// ClientSecretFile is a file holding the client's secret (instead of ClientSecretEnv).
	ClientSecretFile string `json:"client_secret_file,omitempty"`
	// PrivateKeyFile or PrivateKeyEnv hold a PEM private key: the client authenticates with
	// private_key_jwt (RFC 7523 §2.2), signed with SigningAlg (default from the key).
	PrivateKeyFile string `json:"private_key_file,omitempty"`
	PrivateKeyEnv  string `json:"private_key_env,omitempty"`
	SigningAlg     string `json:"signing_alg,omitempty"`
	// WorkloadTokenFile is a workload identity token (a JWT, re-read at each grant): the
	// JWT-bearer grant (RFC 7523 §2.1, SEP-1933).
	WorkloadTokenFile string `json:"workload_token_file,omitempty"`
	// IDTokenFile, IdPTokenURL, IdPClientID and IdPClientSecretEnv: enterprise-managed
	// authorization (SEP-990): the ID token exchanged at the IdP (RFC 8693) for an ID-JAG,
	// then the JWT-bearer grant with it at the server's authorization server.
	IDTokenFile        string `json:"id_token_file,omitempty"`
	IdPTokenURL        string `json:"idp_token_url,omitempty"`
	IdPClientID        string `json:"idp_client_id,omitempty"`
	IdPClientSecretEnv string `json:"idp_client_secret_env,omitempty"`
	// DPoP binds tokens to a key of the process (RFC 9449, SEP-1932); they are not stored.
	DPoP bool `json:"dpop,omitempty"`
}

// schema checks a file against Schema, on first use: a server without a config skips it.
var schema = schemaerr.New("config: schema.json", Schema)

// Load reads and validates the configuration file at path. Every error found is reported:
// one as "PATH: line L column C: FIELD: why", several as a schemaerr.List of such, one per
// line in the file's order (see Parse).
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
		if l, ok := err.(schemaerr.List); ok { // each line names the file
			named := make(schemaerr.List, len(l))
			for i, e := range l {
				named[i] = fmt.Errorf("%s: %w", path, e)
			}
			return nil, named
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
//
// A file with several mistakes is answered with all of them, as a schemaerr.List in the
// file's order (one mistake: that error alone): every duplicate key; every value the schema
// refuses (unknown keys, wrong types, missing members), except inside an object with a
// duplicate key; and every check across fields (a tool's grants beyond its guest's, an
// "mcp" grant naming no upstream, a guest name used twice, …) whose values the schema
// accepted. A check that reads a refused value is not made: a guest with a wrong type or
// an unknown key anywhere in it gets none of its own cross-field checks until that is
// fixed. A JSON syntax error stops the reading: it is the only error.
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

// parseJSON is parse of mcpwasm's own format. It reports every error it finds (see
// problems): one error as it is, several as a schemaerr.List in the file's order.
func parseJSON(data []byte, dir string) (*Config, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, syntaxError(data, err)
	}
	p := &problems{doc: sync.OnceValue(func() *schemaerr.Doc { return schemaerr.JSON(data) })}
	dups, err := duplicateKeys(data)
	if err != nil {
		return nil, err
	}
	for _, d := range dups {
		p.add(d.err, d.object)
		p.dups = append(p.dups, d.object)
	}
	for _, e := range schema.ValidateAll(v, p.doc) {
		if !p.inside(e.Path) { // a value of an object with a duplicate key: which one is meant?
			p.add(e, e.Path)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	c := Config{dir: dir}
	if err := dec.Decode(&c); err != nil {
		// A value the schema allows and Go cannot hold (an integer of 1e30 or 4.0). With
		// errors above it is most likely one of them (a wrong type) told already.
		if len(p.errs) == 0 {
			return nil, syntaxError(data, err)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			at := schemaerr.Offset(data, te.Offset-1)
			if path, ok := p.doc().ValueAt(at); ok && !p.broken(path) {
				p.add(&schemaerr.Error{Pos: at, Path: path, Err: syntaxError(data, err)}, path)
			}
		}
	}
	c.check(p)
	if err := p.err(); err != nil {
		return nil, err
	}
	return &c, nil
}

// check makes the checks across fields, each error naming the value's line, column and path.
// A check is skipped when a value it reads is broken (p.broken): its answer would be about
// what the file does not say.
func (c *Config) check(p *problems) {
	for _, name := range slices.Sorted(maps.Keys(c.Upstreams)) {
		u, path := c.Upstreams[name], schemaerr.Child("upstreams", name)
		if p.broken(path) {
			continue
		}
		if (len(u.Command) > 0) == (u.URL != "") {
			p.at(path, `give exactly one of "command" or "url"`) // what the rest depends on
			continue
		}
		if u.OAuth != nil && u.URL == "" {
			p.at(path+".oauth", `applies to a "url", not a spawned "command"`)
		} else if o := u.OAuth; o != nil {
			hasKey := o.PrivateKeyFile != "" || o.PrivateKeyEnv != ""
			switch {
			case o.ClientCredentials && (o.ClientID == "" || (o.ClientSecretEnv == "" && o.ClientSecretFile == "" && !hasKey)):
				p.at(path+".oauth", `"client_credentials" needs "client_id" and "client_secret_env" or "private_key_file"/"private_key_env"`)
			case o.ClientSecretEnv != "" && o.ClientSecretFile != "":
				p.at(path+".oauth", `give "client_secret_env" or "client_secret_file", not both`)
			case o.PrivateKeyFile != "" && o.PrivateKeyEnv != "":
				p.at(path+".oauth", `give "private_key_file" or "private_key_env", not both`)
			case o.IDTokenFile != "" && (o.IdPTokenURL == "" || o.IdPClientID == "" || o.ClientID == ""):
				p.at(path+".oauth", `"id_token_file" (enterprise-managed authorization) needs "idp_token_url", "idp_client_id" and "client_id"`)
			}
		}
		if len(u.Env) > 0 && u.URL != "" {
			p.at(path+".env", `applies to a spawned "command", not a "url"`)
		}
		if g := u.Grants; g != nil && !p.broken(path+".grants") {
			for _, f := range []struct {
				name string
				set  bool
			}{{"net", g.Net != nil}, {"exec", g.Exec != nil}, {"fs", g.FS != nil}, {"env", g.Env != nil},
				{"clock", g.Clock}, {"random", g.Random}, {"mcp", g.MCP != nil}} {
				if f.set {
					p.at(path+".grants."+f.name, "an upstream runs outside the sandbox: its own %s is not mcpwasm's to grant (an upstream's grants are sampling, elicitation and roots)", f.name)
				}
			}
		}
	}
	c.checkShip(p) // ship.go
	c.checkHTTPAuth(p)
	names := map[string]int{}
	for i, g := range c.Guests {
		path := fmt.Sprintf("guests[%d].name", i)
		if g.Name == "" || p.broken(path) {
			continue
		}
		if j, dup := names[g.Name]; dup {
			p.at(path, "guests[%d] is named %q too", j, g.Name)
			continue
		}
		names[g.Name] = i
	}
	for i, g := range c.Guests {
		guest := fmt.Sprintf("guests[%d]", i)
		if p.broken(guest) {
			continue
		}
		// The runtime's own checks of a guest's limits, isolation and grants, made now so a bad
		// file fails before any guest loads. Grants it refuses are not compared with a tool's.
		if err := c.GuestConfig(g, "").Validate(); err != nil {
			p.at(guest, "%w", err)
		} else {
			for _, tool := range slices.Sorted(maps.Keys(g.Tools)) {
				t := g.Tools[tool]
				if t.Grants == nil {
					continue
				}
				if err := c.grants(*t.Grants).Within(c.grants(g.Grants)); err != nil {
					p.at(schemaerr.Child(guest+".tools", tool)+".grants", "%w", err)
				}
			}
		}
		if p.broken("upstreams") { // not an object: every name would be "no upstream"
			continue
		}
		for k, m := range g.Grants.MCP {
			if _, ok := c.Upstreams[m]; !ok {
				p.at(fmt.Sprintf("%s.grants.mcp[%d]", guest, k), "%q names no upstream", m)
			}
		}
	}
}

// problems gathers the errors of one file, and the values they make broken: a check across
// fields that reads a broken value is not made (its answer would be about what the file does
// not say), and an error inside an object with a duplicate key is not told (which of the two
// is meant?).
type problems struct {
	doc  func() *schemaerr.Doc
	errs []error
	bad  []string // paths of values that are not what the file means
	dups []string // paths of objects with a duplicate key
}

// add records err, about the value at path, which it makes broken.
func (p *problems) add(err error, path string) {
	p.errs = append(p.errs, err)
	p.bad = append(p.bad, path)
}

// at records an error about the value at path found by a check across fields: it names what
// is wrong with valid values, so it breaks none.
func (p *problems) at(path, format string, args ...any) {
	p.errs = append(p.errs, p.doc().Errorf(path, format, args...))
}

// inside reports whether path is an object with a duplicate key or a value in one.
func (p *problems) inside(path string) bool {
	return slices.ContainsFunc(p.dups, func(o string) bool { return within(path, o) })
}

// broken reports whether the value at path is broken: an error is about it, a value in it,
// or a value around it (a guest whose "grants" is not an object, in "guests" that is not an
// array).
func (p *problems) broken(path string) bool {
	return slices.ContainsFunc(p.bad, func(b string) bool { return within(path, b) || within(b, path) })
}

// within reports whether path is outer or a value in it.
func within(path, outer string) bool {
	if outer == "" || path == outer {
		return true
	}
	return strings.HasPrefix(path, outer) && len(path) > len(outer) && (path[len(outer)] == '.' || path[len(outer)] == '[')
}

// err is nil, the one error, or a schemaerr.List of all in the file's order.
func (p *problems) err() error {
	switch len(p.errs) {
	case 0:
		return nil
	case 1:
		return p.errs[0]
	}
	schemaerr.Sort(p.errs)
	return schemaerr.List(p.errs)
}

// duplicateKey is a key given twice in the object at path object.
type duplicateKey struct {
	err    *schemaerr.Error
	object string
}

// duplicateKeys finds every object with the same key twice (each repeat once). encoding/json
// keeps the last one silently, so a second "grants" could hide the first from whoever reviews
// the file (RFC 8259 §4: names SHOULD be unique; this format says MUST). The error is only
// for a document that is not JSON.
func duplicateKeys(data []byte) ([]duplicateKey, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		path     string
		keys     map[string]bool
		isObject bool
		wantKey  bool
		key      string // the member being read
		next     int    // the index of the next element
	}
	var stack []*frame
	var dups []duplicateKey
	for {
		start := schemaerr.NextToken(data, dec.InputOffset())
		tok, err := dec.Token()
		if err == io.EOF {
			return dups, nil
		}
		if err != nil {
			return nil, syntaxError(data, err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				path := ""
				switch {
				case top != nil && top.isObject:
					path = schemaerr.Child(top.path, top.key)
					top.wantKey = true // this value ends the member
				case top != nil:
					path = fmt.Sprintf("%s[%d]", top.path, top.next)
					top.next++
				}
				stack = append(stack, &frame{path: path, keys: map[string]bool{}, isObject: d == '{', wantKey: d == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		}
		switch {
		case top == nil:
		case !top.isObject:
			top.next++
		case top.wantKey:
			key := tok.(string)
			if top.keys[key] {
				at := schemaerr.Offset(data, start)
				dups = append(dups, duplicateKey{&schemaerr.Error{Pos: at, Path: schemaerr.Child(top.path, key),
					Err: fmt.Errorf("%s: duplicate key %q", at, key)}, top.path})
			}
			top.keys[key] = true
			top.key = key
			top.wantKey = false
		default:
			top.wantKey = true
		}
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
		Args:       g.Args,
		Limits:     g.Limits.runtime(),
		ToolPrefix: g.ToolPrefix,
		HideTools:  g.HideTools,
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

// checkHTTPAuth checks what the schema cannot: a policy naming a guest the file does not
// list, and tool patterns path.Match cannot read.
func (c *Config) checkHTTPAuth(p *problems) {
	a := c.HTTPAuth
	if a == nil || p.broken("http_auth") {
		return
	}
	guests := map[string]bool{"*": true}
	for _, g := range c.Guests {
		guests[g.Name] = true
	}
	for i, r := range a.Policy {
		for j, g := range r.Guests {
			if !guests[g] && len(c.Guests) > 0 {
				p.at(fmt.Sprintf("http_auth.policy[%d].guests[%d]", i, j), "no guest is named %q in this file", g)
			}
		}
		for j, t := range r.Tools {
			if _, err := path.Match(t, ""); err != nil {
				p.at(fmt.Sprintf("http_auth.policy[%d].tools[%d]", i, j), "pattern %q: %v", t, err)
			}
		}
	}
}
