// Package hypermcp converts a hyper-mcp configuration (its documented format: RUNTIME_CONFIG.md
// and src/config.rs of hyper-mcp-rs/hyper-mcp) into an mcpwasm configuration, and says what
// the result grants and what it does not carry over. `mcpwasm import hyper-mcp` uses it.
package hypermcp

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/schemaerr"
	"github.com/mcpwasm/mcpwasm/internal/suggest"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// File is a hyper-mcp configuration file. Unknown runtime_config keys are kept out of the
// conversion and reported (Guest.Notes); other unknown fields are ignored, as hyper-mcp does.
type File struct {
	Auths          map[string]json.RawMessage `json:"auths"`
	DynamicLoading bool                       `json:"dynamic_loading"`
	OCI            *OCI                       `json:"oci"`
	// Plugins is hyper-mcp's "plugins": a map name → {url, runtime_config}, or a list of
	// {name, url, runtime_config} (both forms occur in hyper-mcp's releases).
	Plugins json.RawMessage `json:"plugins"`
}

// namedPlugin is one element of the list form of "plugins".
type namedPlugin struct {
	Name string `json:"name"`
	Plugin
}

// plugins reads both forms of "plugins" into names (in the file's order for a list, sorted for
// a map) and their entries. A name twice in the list is an error naming it.
func plugins(raw json.RawMessage) (names []string, entries map[string]Plugin, mapForm bool, err error) {
	const forms = `want a map of name to {"url", "runtime_config"} or a list of {"name", "url", "runtime_config"}`
	switch t := bytes.TrimSpace(raw); {
	case len(t) > 0 && t[0] == '{':
		var m map[string]Plugin
		if err := json.Unmarshal(t, &m); err != nil {
			return nil, nil, false, fmt.Errorf("plugins: %w", err)
		}
		for name := range m {
			names = append(names, name)
		}
		slices.Sort(names)
		return names, m, true, nil
	case len(t) > 0 && t[0] == '[':
		var l []namedPlugin
		if err := json.Unmarshal(t, &l); err != nil {
			return nil, nil, false, fmt.Errorf("plugins: %w", err)
		}
		m := make(map[string]Plugin, len(l))
		for i, p := range l {
			if p.Name == "" {
				return nil, nil, false, fmt.Errorf("plugins[%d]: \"name\" is required", i)
			}
			if _, dup := m[p.Name]; dup {
				return nil, nil, false, fmt.Errorf("plugins[%d]: the name %q is used twice", i, p.Name)
			}
			names = append(names, p.Name)
			m[p.Name] = p.Plugin
		}
		return names, m, false, nil
	}
	return nil, nil, false, errors.New("plugins: " + forms)
}

// OCI is hyper-mcp's signature verification settings for oci:// plugins.
type OCI struct {
	InsecureSkipSignature bool   `json:"insecure_skip_signature"`
	CertEmail             string `json:"cert_email"`
	CertIssuer            string `json:"cert_issuer"`
	CertURL               string `json:"cert_url"`
}

// Plugin is one plugin entry: its URL ("path" is an alias) and runtime configuration.
type Plugin struct {
	URL           string         `json:"url"`
	Path          string         `json:"path"`
	RuntimeConfig *RuntimeConfig `json:"runtime_config"`
	// ToolNamePrefix is the list form's optional prefix of the plugin's tool names.
	ToolNamePrefix string `json:"tool_name_prefix"`
}

// RuntimeConfig is a plugin's runtime_config.
type RuntimeConfig struct {
	SkipTools             []string          `json:"skip_tools"`
	SkipPrompts           []string          `json:"skip_prompts"`
	SkipResources         []string          `json:"skip_resources"`
	SkipResourceTemplates []string          `json:"skip_resource_templates"`
	AllowedHosts          []string          `json:"allowed_hosts"`
	AllowedPaths          []string          `json:"allowed_paths"`
	AllowedSecrets        []json.RawMessage `json:"allowed_secrets"`
	EnvVars               map[string]string `json:"env_vars"`
	MemoryLimit           string            `json:"memory_limit"`
	// AllowedHost is the one host of hyper-mcp's first releases (the list form of "plugins"
	// with name and path); it is read only in the list form, where those releases read it.
	AllowedHost json.RawMessage `json:"allowed_host"`
	// Unknown are the keys hyper-mcp does not read (a misspelling, most often), sorted; they
	// are reported as notes and otherwise ignored, as hyper-mcp ignores them.
	Unknown []string `json:"-"`
}

// runtimeConfigKeys are the keys of hyper-mcp's runtime_config (src/config.rs).
var runtimeConfigKeys = []string{"skip_tools", "skip_prompts", "skip_resources", "skip_resource_templates",
	"allowed_hosts", "allowed_paths", "allowed_secrets", "env_vars", "memory_limit"}

// UnmarshalJSON reads a runtime_config and records its unknown keys in Unknown.
func (rc *RuntimeConfig) UnmarshalJSON(b []byte) error {
	type plain RuntimeConfig
	if err := json.Unmarshal(b, (*plain)(rc)); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	rc.Unknown = nil
	for k := range keys {
		if !slices.Contains(runtimeConfigKeys, k) {
			rc.Unknown = append(rc.Unknown, k)
		}
	}
	slices.Sort(rc.Unknown)
	return nil
}

// unknownKeyNote says a runtime_config key was ignored, with the known key it is a near miss
// of (at most two edits away), if any.
func unknownKeyNote(plugin, key string) string {
	n := fmt.Sprintf("plugins.%s.runtime_config: unknown key %q ignored", plugin, key)
	if best := suggest.Nearest(key, runtimeConfigKeys, 2); best != "" {
		n += fmt.Sprintf(" (did you mean %q?)", best)
	}
	return n
}

// Result is the converted configuration and what it means.
type Result struct {
	Config config.Config
	// Guests says per guest, in order, what it is granted and what was not carried over.
	Guests []Guest
	// Notes are file-level remarks (auths, signatures, dynamic loading).
	Notes []string
}

// Guest is the report of one converted plugin.
type Guest struct {
	Name, Path string
	Grants     []string // one line per grant, in config words
	Notes      []string // what differs from hyper-mcp or was left out
}

// pluginName is hyper-mcp's rule for plugin names (letters, digits, single underscores
// inside), which mcpwasm's guest names accept as they are. It holds for the map form of
// "plugins"; the list form's releases took any name ("qr-code" in their README), so there a
// name needs only be an mcpwasm guest name (listName, the config schema's pattern).
var (
	pluginName = regexp.MustCompile(`^[A-Za-z0-9]+(_[A-Za-z0-9]+)*$`)
	listName   = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
)

// Convert converts a hyper-mcp configuration: JSON, or YAML when yamlFormat (TOML is not
// read; convert it to JSON first). Errors name the plugin and field.
func Convert(data []byte, yamlFormat bool) (*Result, error) {
	src := data
	if yamlFormat {
		var err error
		if data, err = yaml.YAMLToJSON(data); err != nil {
			return nil, fmt.Errorf("reading YAML: %w", err)
		}
	}
	if err := checkTypes(src, data, yamlFormat); err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a hyper-mcp configuration: %w", err)
	}
	if f.Plugins == nil || string(bytes.TrimSpace(f.Plugins)) == "null" {
		return nil, errors.New(`not a hyper-mcp configuration: no "plugins" object`)
	}
	names, entries, mapForm, err := plugins(f.Plugins)
	if err != nil {
		return nil, fmt.Errorf("not a hyper-mcp configuration: %w", err)
	}
	r := &Result{Config: config.Config{Guests: []config.Guest{}}}
	if len(f.Auths) > 0 {
		r.Notes = append(r.Notes, "auths (credentials hyper-mcp uses to download plugins) are not carried over: "+
			"mcpwasm takes registry credentials from the Docker config file ('docker login')")
	}
	if f.DynamicLoading {
		r.Notes = append(r.Notes, "dynamic_loading is not carried over: mcpwasm serves the guests of its config (serve --watch reloads them)")
	}
	hasOCI := false
	for _, name := range names {
		g, rep, err := convertPlugin(name, entries[name], mapForm, &r.Config)
		if err != nil {
			return nil, fmt.Errorf("plugins.%s: %w", name, err)
		}
		hasOCI = hasOCI || strings.HasPrefix(g.Path, "oci://")
		r.Config.Guests = append(r.Config.Guests, g)
		r.Guests = append(r.Guests, rep)
	}
	if hasOCI {
		r.Notes = append(r.Notes, signatureNote(f.OCI, &r.Config))
	}
	// Since hyper-mcp keyed "plugins" by name it namespaces every tool with the plugin's name
	// (src/naming.rs); the list form namespaced only with a tool_name_prefix.
	if mapForm && len(names) > 0 {
		r.Notes = append(r.Notes, "tool names: hyper-mcp names each tool PLUGIN-TOOL (PLUGIN::TOOL in earlier releases); mcpwasm serves a guest's tools under their own names, "+
			"so clients call TOOL, and two guests offering the same tool name are refused when serve loads them (import does not load guests)")
	}
	return r, nil
}

// Schema is the JSON Schema of the fields of a hyper-mcp configuration that Convert reads:
// their types, so a wrong one is named with its line, column and path.
//
//go:embed schema.json
var Schema []byte

var schema = schemaerr.New("hypermcp: schema.json", Schema)

// checkTypes checks the syntax and the types of the fields Convert reads; data is the file as
// JSON, src as written (YAML when yamlFormat, whose syntax YAMLToJSON checked).
func checkTypes(src, data []byte, yamlFormat bool) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return schemaerr.Syntax(data, err) // nil: left to the decoding after it
	}
	return schema.Validate(v, func() *schemaerr.Doc {
		if !yamlFormat {
			return schemaerr.JSON(src)
		}
		if doc, err := schemaerr.YAML(src); err == nil {
			return doc
		}
		return new(schemaerr.Doc) // YAML that sigs.k8s.io/yaml reads and yaml.v3 does not: no positions
	})
}

// signatureNote carries hyper-mcp's signature settings over where they name a signer, and
// says what the operator must add where they do not.
func signatureNote(o *OCI, c *config.Config) string {
	switch {
	case o != nil && o.InsecureSkipSignature:
		return "hyper-mcp skipped signature checks (oci.insecure_skip_signature); mcpwasm checks none unless the config asks: add a \"signatures\" policy per registry"
	case o != nil && (o.CertEmail != "" || o.CertURL != "") && o.CertIssuer != "":
		id := o.CertEmail
		if id == "" {
			id = o.CertURL
		}
		c.Signatures = map[string]*config.Signature{}
		for _, g := range c.Guests {
			if host, ok := ociHost(g.Path); ok {
				c.Signatures[host] = &config.Signature{Identity: id, Issuer: o.CertIssuer, TrustedRoot: "trusted_root.json"}
			}
		}
		return fmt.Sprintf("signatures: OCI guests must be signed by %s (issuer %s), as hyper-mcp's oci settings say; "+
			"put the Sigstore trusted root beside the config as trusted_root.json", id, o.CertIssuer)
	}
	return "hyper-mcp verifies cosign signatures of OCI plugins against the public Sigstore instance with any signer by default; " +
		"mcpwasm verifies a signer you name: add a \"signatures\" policy (identity, issuer, trusted_root) for the registry"
}

func ociHost(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "oci://")
	if !ok {
		return "", false
	}
	host, _, _ := strings.Cut(rest, "/")
	return host, host != ""
}

func convertPlugin(name string, p Plugin, mapForm bool, c *config.Config) (config.Guest, Guest, error) {
	var g config.Guest
	rep := Guest{Name: name}
	switch {
	case mapForm && (!pluginName.MatchString(name) || len(name) > 64):
		return g, rep, fmt.Errorf("the name %q is not a hyper-mcp plugin name (letters, digits, single underscores inside)", name)
	case !mapForm && !listName.MatchString(name):
		return g, rep, fmt.Errorf("the name %q is not an mcpwasm guest name (1 to 64 letters, digits, _ and -): rename the plugin", name)
	}
	g.Name = name
	src := p.URL
	if src == "" {
		src = p.Path
	}
	if src == "" {
		return g, rep, errors.New(`"url" is required`)
	}
	u, err := url.Parse(src)
	switch {
	case err == nil && u.Scheme == "file":
		// file:///abs/p.wasm (or file://localhost/abs/p.wasm). "file://p.wasm" parses with host
		// "p.wasm" and no path, "file://./p.wasm" with host "." and path "/p.wasm": neither names
		// the file the user meant, so both are refused rather than guessed at.
		if (u.Host != "" && u.Host != "localhost") || u.Opaque != "" || !path.IsAbs(u.Path) {
			return g, rep, fmt.Errorf("url %q: a file URL must name an absolute path with no host: want file:///absolute/path.wasm", src)
		}
		g.Path = u.Path
	case err == nil && (u.Scheme == "oci" || u.Scheme == "https"):
		g.Path = src
	case err == nil && u.Scheme == "http":
		g.Path = src
		if !slices.Contains(c.PlainHTTP, u.Host) {
			c.PlainHTTP = append(c.PlainHTTP, u.Host)
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("downloaded over plain http: %s is listed in plain_http", u.Host))
	case err == nil && u.Scheme == "s3":
		return g, rep, fmt.Errorf("url %q: s3:// is not supported by mcpwasm; publish the plugin to an OCI registry or an https URL", src)
	case path.IsAbs(src):
		g.Path = src
	default:
		return g, rep, fmt.Errorf("url %q: want file:///absolute/path.wasm, oci://, https://, http:// or an absolute path", src)
	}
	rep.Path = g.Path
	rc := p.RuntimeConfig
	if rc == nil {
		rc = &RuntimeConfig{}
	}
	if p.ToolNamePrefix != "" {
		rep.Notes = append(rep.Notes, fmt.Sprintf("tool_name_prefix %q not carried over: mcpwasm serves a guest's tools under their own names; "+
			"two guests offering the same tool name are refused when serve loads them", p.ToolNamePrefix))
	}
	hosts := rc.AllowedHosts
	for _, k := range rc.Unknown {
		// The first releases' allowed_host was one string; another value is a misspelt
		// allowed_hosts, noted like any unknown key.
		var h string
		if k == "allowed_host" && !mapForm && json.Unmarshal(rc.AllowedHost, &h) == nil {
			hosts = append(slices.Clip(hosts), h)
			rep.Notes = append(rep.Notes, fmt.Sprintf("allowed_host %q (hyper-mcp's first releases) read as allowed_hosts", h))
			continue
		}
		rep.Notes = append(rep.Notes, unknownKeyNote(name, k))
	}
	for _, h := range hosts {
		pat, note, err := hostPattern(h)
		if err != nil {
			return g, rep, fmt.Errorf("runtime_config.allowed_hosts: %w", err)
		}
		if !slices.Contains(g.Grants.Net, pat) {
			g.Grants.Net = append(g.Grants.Net, pat)
		}
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		}
	}
	if len(g.Grants.Net) > 0 {
		rep.Grants = append(rep.Grants, "net "+strings.Join(quoteAll(g.Grants.Net), ", "))
		rep.Notes = append(rep.Notes, "hyper-mcp allowed any port of an allowed host; mcpwasm grants the scheme's default port (write host:* for any), "+
			"and refuses loopback, private and link-local addresses unless the grant names that IP or localhost")
	}
	for _, ap := range rc.AllowedPaths {
		fs, err := fsGrant(ap)
		if err != nil {
			return g, rep, fmt.Errorf("runtime_config.allowed_paths: %w", err)
		}
		g.Grants.FS = append(g.Grants.FS, fs)
		mode := "read-write, as hyper-mcp mounts it"
		if !fs.RW {
			mode = "read-only"
		}
		rep.Grants = append(rep.Grants, fmt.Sprintf("fs %s at %s (%s)", fs.Host, fs.Guest, mode))
	}
	if len(rc.EnvVars) > 0 {
		g.Config = map[string]string{}
		keys := make([]string, 0, len(rc.EnvVars))
		for k, v := range rc.EnvVars {
			g.Config[k] = v
			keys = append(keys, k)
			if strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") {
				rep.Notes = append(rep.Notes, fmt.Sprintf("config %s is %s: hyper-mcp read it from its environment; mcpwasm passes config values as written, so put the value in the config (and keep the file private)", k, v))
			}
		}
		slices.Sort(keys)
		rep.Grants = append(rep.Grants, "config "+strings.Join(keys, ", ")+" (read with config_get, not the WASI environment)")
	}
	if rc.MemoryLimit != "" {
		n, err := parseByteSize(rc.MemoryLimit)
		if err != nil {
			return g, rep, fmt.Errorf("runtime_config.memory_limit: %w", err)
		}
		mb := int(math.Ceil(float64(n) / (1 << 20)))
		if mb < 1 {
			mb = 1
		}
		if mb > 4096 {
			return g, rep, fmt.Errorf("runtime_config.memory_limit %q is over mcpwasm's 4096 MiB", rc.MemoryLimit)
		}
		g.Limits.MemoryMB = mb
		line := fmt.Sprintf("memory %d MiB", mb)
		if uint64(mb)<<20 != n {
			line += fmt.Sprintf(" (%s rounded up to whole MiB)", rc.MemoryLimit)
		}
		rep.Grants = append(rep.Grants, line+"; it bounds linear and kernel memory together")
	}
	if len(rc.SkipTools) > 0 {
		// hyper-mcp anchors each pattern and matches it against the tool names the plugin
		// declares: hide_tools means the same, so a tool hidden there stays hidden here. A
		// pattern Go's RE2 cannot read is refused rather than dropped (dropping it would
		// serve the tool the operator hid).
		for _, p := range rc.SkipTools {
			if _, err := regexp.Compile("^(?:" + p + ")$"); err != nil {
				return g, rep, fmt.Errorf("runtime_config.skip_tools: the pattern %q has no Go RE2 form (%v): rewrite it, e.g. without look-around or backreferences", p, err)
			}
		}
		g.HideTools = slices.Clone(rc.SkipTools)
		rep.Notes = append(rep.Notes, fmt.Sprintf("skip_tools %s carried over as hide_tools: those tools are not served", strings.Join(quoteAll(rc.SkipTools), ", ")))
	}
	for _, skip := range []struct {
		field string
		list  []string
	}{{"skip_prompts", rc.SkipPrompts}, {"skip_resources", rc.SkipResources}, {"skip_resource_templates", rc.SkipResourceTemplates}} {
		if len(skip.list) > 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s %s not carried over: mcpwasm serves everything a guest offers", skip.field, strings.Join(quoteAll(skip.list), ", ")))
		}
	}
	if len(rc.AllowedSecrets) > 0 {
		rep.Notes = append(rep.Notes, "allowed_secrets not carried over: mcpwasm does not read the OS keyring for plugins (get_keyring_secret answers empty); give the values in config")
	}
	// hyper-mcp runs each plugin as one instance that every client shares, one call at a
	// time: what a plugin keeps between calls (a counter, a tool list it grows with
	// add_tool) is one state. mcpwasm's default (an instance per session, several at once)
	// gave two concurrent add_tool calls the same "tool_1". Whether a plugin keeps state is
	// not in its config, nor knowable from its imports, so every plugin gets hyper-mcp's
	// shape; the note says how to run a stateless one in parallel.
	g.Isolation = "shared"
	g.Limits.Instances = 1
	rep.Notes = append(rep.Notes, sharedNote)
	// hyper-mcp (Extism) gives every plugin the real clock and OS entropy; mcpwasm's default
	// is a deterministic clock and random source (a time plugin read 2022-01-01 after an
	// import without them). Granted as hyper-mcp does, and said: the operator reviews them.
	g.Grants.Clock, g.Grants.Random = true, true
	rep.Grants = append(rep.Grants, "clock, random (as hyper-mcp gives every plugin; without them the plugin reads a fixed clock and a deterministic random source)")
	return g, rep, nil
}

// sharedNote explains the isolation and instances import writes for every plugin.
const sharedNote = "one instance shared by every client (isolation shared, limits.instances 1), as hyper-mcp runs each plugin, so what a plugin keeps between calls " +
	"(a counter, tools added by add_tool) is one state; for a plugin that keeps nothing, raise limits.instances and drop isolation to run calls in parallel and per session"

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strconv.Quote(x)
	}
	return out
}

// hostPattern turns an Extism allowed_hosts glob into a net grant pattern: a host, "*", or
// "*.suffix". Other globs (?, [ ], * inside a label) have no mcpwasm form.
func hostPattern(h string) (pat, note string, err error) {
	h = strings.TrimSpace(strings.ToLower(h))
	switch {
	case h == "":
		return "", "", errors.New("an empty host")
	case h == "*":
		return "*", `net "*": any public host (hyper-mcp's "*" also reached private and loopback addresses)`, nil
	case strings.HasPrefix(h, "*.") && !strings.ContainsAny(h[2:], "*?[]"):
		return h, "", nil
	case strings.ContainsAny(h, "*?[]"):
		return "", "", fmt.Errorf("the glob %q has no mcpwasm form: write hosts, \"*.suffix\" or \"*\"", h)
	case strings.Contains(h, "/"):
		return "", "", fmt.Errorf("%q is a URL or path, not a host", h)
	}
	return h, "", nil
}

// fsGrant reads "host" or "host:plugin" (hyper-mcp's AllowedPath; an Extism "ro:" prefix
// makes it read-only).
func fsGrant(s string) (policy.FS, error) {
	rw := true
	if rest, ok := strings.CutPrefix(s, "ro:"); ok {
		s, rw = rest, false
	}
	host, guest, _ := strings.Cut(s, ":")
	host, guest = strings.TrimSpace(host), strings.TrimSpace(guest)
	if guest == "" {
		guest = host
	}
	if host == "" {
		return policy.FS{}, fmt.Errorf("%q has no host path", s)
	}
	if !path.IsAbs(guest) {
		return policy.FS{}, fmt.Errorf("%q: the plugin path %q must be absolute", s, guest)
	}
	return policy.FS{Guest: path.Clean(guest), Host: host, RW: rw}, nil
}

// byteUnits are the units of Rust's bytesize crate, as hyper-mcp parses memory_limit.
var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "ki": 1 << 10, "kib": 1 << 10,
	"m": 1e6, "mb": 1e6, "mi": 1 << 20, "mib": 1 << 20,
	"g": 1e9, "gb": 1e9, "gi": 1 << 30, "gib": 1 << 30,
	"t": 1e12, "tb": 1e12, "ti": 1 << 40, "tib": 1 << 40,
}

var byteSize = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$`)

func parseByteSize(s string) (uint64, error) {
	m := byteSize.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a size (e.g. \"512Mi\", \"1GB\")", s)
	}
	unit, ok := byteUnits[strings.ToLower(m[2])]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q", s, m[2])
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return uint64(v * unit), nil
}

// Marshal writes the converted configuration as indented JSON.
func (r *Result) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(r.Config, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Summary is the human report: per guest its path, grants and notes, then the file notes.
func (r *Result) Summary() string {
	var b strings.Builder
	for _, g := range r.Guests {
		fmt.Fprintf(&b, "guest %s (%s)\n", g.Name, g.Path)
		for _, l := range g.Grants {
			fmt.Fprintf(&b, "  grants %s\n", l)
		}
		for _, n := range g.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if len(r.Guests) > 0 {
		b.WriteString("the grants above are written into the converted config: review them before serving it (mcpwasm grants a guest nothing the config does not)\n")
	}
	return b.String()
}
