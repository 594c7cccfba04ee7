package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/mcpwasm/mcpwasm/internal/suggest"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/guests"
	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/schemaerr"
	"github.com/mcpwasm/mcpwasm/internal/ship"
	"github.com/mcpwasm/mcpwasm/internal/termtext"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// Exit codes of the mcpwasm command.
const (
	ExitOK    = 0 // success; also a server whose client closed stdin
	ExitError = 1 // a runtime failure (I/O, the MCP session)
	ExitUsage = 2 // bad command line
	ExitLoad  = 3 // a guest failed to load (not found, not a guest, bad manifest)
)

// run is the whole command, minus process setup, so tests drive it directly. The commands
// are the table in commands.go.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "--version":
		name = "version"
	}
	c := lookup(name)
	if c == nil {
		hint := ""
		if near := suggest.Nearest(args[0], commandNames(), 2); near != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", near)
		}
		fmt.Fprintf(stderr, "mcpwasm: unknown command %q%s\n\n%s", args[0], hint, usage())
		return ExitUsage
	}
	if wantsHelp(args[1:]) {
		printHelp(stdout, c)
		return ExitOK
	}
	code, err := c.Run(ctx, args[1:], stdin, stdout, stderr)
	if l, ok := err.(schemaerr.List); ok { // several errors in a file: one line each
		for _, e := range l {
			fmt.Fprintf(stderr, "mcpwasm %s: %s\n", c.Name, termtext.Escape(e.Error()))
		}
	} else if err != nil {
		fmt.Fprintf(stderr, "mcpwasm %s: %s\n", c.Name, termtext.Escape(err.Error())) // it may quote a server
		if code == ExitUsage {
			fmt.Fprintf(stderr, "usage: %s (see 'mcpwasm help %s')\n", strings.TrimSpace("mcpwasm "+c.Name+" "+c.Args), c.Name)
		}
	}
	return code
}

// hostFlags are the flags of every command that loads guests.
type hostFlags struct {
	config    string
	timeout   time.Duration
	memoryMB  uint64
	instances int
	cacheDir  string
	noCache   bool
	logLevel  string
	isolation string         // runtime.GuestConfig.Isolation
	upstreams peer.Upstreams // serve: the config's upstream MCP servers (upstreams.go)

	lazy        bool             // serve: runtime.Options.Lazy
	idleTimeout time.Duration    // serve: runtime.Options.IdleTimeout
	observer    runtime.Observer // serve: metrics and traces (observe.go); nil: none
}

func (f *hostFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "configuration file: guests, grants, limits (see internal/config/schema.json)")
	fs.DurationVar(&f.timeout, "timeout", policy.DefaultLimits().Timeout, "time limit of one tool call (0: the default)")
	fs.Uint64Var(&f.memoryMB, "memory-mb", policy.DefaultLimits().MemoryBytes>>20, "linear memory limit of one guest instance, in MiB (0: the default)")
	fs.IntVar(&f.instances, "instances", policy.DefaultLimits().Instances, "instances per guest, i.e. concurrent calls into one guest (0: the default)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "compilation cache directory (default: the user cache dir's mcpwasm/compile)")
	fs.BoolVar(&f.noCache, "no-cache", false, "keep compiled code in memory only")
	fs.StringVar(&f.logLevel, "log-level", "info", "stderr log level: debug, info, warn or error")
	fs.StringVar(&f.isolation, "isolation", "session", "which calls may share a guest instance: session (one MCP session's), shared (any), call (none: a fresh instance per call); a config entry's \"isolation\" overrides it")
}

// validate rejects flag values no guest could run with; zero means the default.
func (f *hostFlags) validate() error {
	switch {
	case f.timeout < 0:
		return fmt.Errorf("--timeout %v: must not be negative (0 means the default %v)", f.timeout, policy.DefaultLimits().Timeout)
	case f.instances < 0:
		return fmt.Errorf("--instances %d: must not be negative (0 means the default %d)", f.instances, policy.DefaultLimits().Instances)
	case f.memoryMB > 4096:
		return fmt.Errorf("--memory-mb %d: 32-bit linear memory is at most 4096 MiB", f.memoryMB)
	}
	// The runtime's own check of the mode: `isolation "x": want shared, session or call`.
	if err := (&runtime.GuestConfig{Isolation: f.isolation}).Validate(); err != nil {
		return fmt.Errorf("--%w", err)
	}
	return nil
}

func (f *hostFlags) limits() runtime.Limits {
	return runtime.Limits{Timeout: f.timeout, MemoryBytes: f.memoryMB << 20, Instances: f.instances}
}

func (f *hostFlags) logger(stderr io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", f.logLevel)
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})), nil
}

func (f *hostFlags) host(ctx context.Context, logger *slog.Logger) (*runtime.Host, error) {
	return runtime.NewHost(ctx, &runtime.Options{CacheDir: f.cacheDir, NoDiskCache: f.noCache, Logger: logger, Upstreams: f.upstreams,
		Lazy: f.lazy, IdleTimeout: f.idleTimeout, Observer: f.observer})
}

// sdkLogger quiets the SDK's per-session lifecycle lines unless debug logging is on.
func sdkLogger(l *slog.Logger) *slog.Logger {
	if l.Enabled(context.Background(), slog.LevelDebug) {
		return l
	}
	return slog.New(minLevel{l.Handler(), slog.LevelWarn})
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

// guestSpec is a guest module to load and how.
type guestSpec struct {
	wasm []byte
	cfg  *runtime.GuestConfig
	path string // the file it came from; empty for a bundled guest
	// entry names the config entry it came from ("mcpwasm.json: guests[2]"), for messages;
	// empty for a guest given as an argument or a bundled one.
	entry string
	// locked is the guest's mcpwasm.lock entry (ship.go): tools that differ are withheld.
	locked *ship.LockedGuest
}

// guestSpecs gathers the guests to load: those of the config file (with their grants), then
// the module paths given as arguments (no grants). With neither, the bundled default guests.
// Limits from flags fill what the config leaves unset.
// guestSpecs lists the guests to load: the config's, then those named on the command line,
// or the bundled ones when there are neither. limits and iso apply where the config is silent.
// URLs and OCI references are fetched (or read from the store) as ship.go says; with a lock
// beside the config, exactly the locked bytes are served.
//
// With read false a local module file that no lock pins is only opened (to report a missing
// one here); loadAll then loads it with Host.LoadFile, which need not read a file the
// manifest cache knows.
func guestSpecs(ctx context.Context, sf *shipFlags, stderr io.Writer, configPath string, paths []string, limits runtime.Limits, iso string, read bool) ([]guestSpec, *config.Config, error) {
	var specs []guestSpec
	var cfg *config.Config
	var sh *shipper
	if configPath != "" {
		var err error
		if cfg, err = config.Load(configPath); err != nil {
			return nil, nil, err
		}
		lock, err := ship.ReadLock(lockPath(configPath))
		if err != nil {
			return nil, nil, err
		}
		if sh, err = sf.shipper(cfg, limits.Merge(policy.DefaultLimits()).ModuleBytes, stderr); err != nil {
			return nil, nil, err
		}
		var missing schemaerr.List // guests whose files cannot be read
		for i, g := range cfg.Guests {
			entry := fmt.Sprintf("%s: guests[%d]", configPath, i)
			p := cfg.ModulePath(g)
			var b []byte
			var locked *ship.LockedGuest
			if src, perr := ship.ParseSource(p); perr == nil && src.Kind == ship.KindPath && lock == nil {
				if b, err = readOrOpen(p, read); err != nil {
					err = &pathError{err}
				}
			} else {
				b, locked, err = sh.module(ctx, g, lock, configPath)
				if err == nil {
					warnUnpinned(stderr, configPath, g, p, lock) // unpinned.go
				}
			}
			var pe *pathError
			if errors.As(err, &pe) {
				// Every missing file is told in one run; the next guests are still read.
				missing = append(missing, fmt.Errorf("%s.path: %w", entry, pe.err))
				continue
			}
			if err != nil {
				return nil, nil, errorList(append(missing, fmt.Errorf("%s: %w", entry, err)))
			}
			gc := cfg.GuestConfig(g, p)
			gc.Limits = gc.Limits.Merge(limits)
			if g.Isolation == "" {
				gc.Isolation = iso
			}
			if strings.Contains(p, "://") {
				p = "" // not a file to --watch
			}
			specs = append(specs, guestSpec{wasm: b, cfg: gc, path: p, entry: entry, locked: locked})
		}
		if len(missing) > 0 {
			return nil, nil, errorList(missing)
		}
	}
	for _, p := range paths {
		var b []byte
		src, err := ship.ParseSource(p)
		if err == nil && src.Remote() {
			if sh == nil {
				if sh, err = sf.shipper(nil, limits.Merge(policy.DefaultLimits()).ModuleBytes, stderr); err != nil {
					return nil, nil, err
				}
			}
			if b, err = sh.fetchArg(ctx, src); err != nil {
				return nil, nil, err
			}
			specs = append(specs, guestSpec{wasm: b, cfg: &runtime.GuestConfig{Source: p, Limits: limits, Isolation: iso}})
			continue
		}
		b, err = readOrOpen(p, read)
		if err != nil {
			return nil, nil, err
		}
		specs = append(specs, guestSpec{wasm: b, cfg: &runtime.GuestConfig{Source: p, Limits: limits, Isolation: iso}, path: p})
	}
	if configPath == "" && len(paths) == 0 {
		for _, b := range guests.Default() {
			specs = append(specs, guestSpec{wasm: b.Wasm, cfg: &runtime.GuestConfig{Source: "bundled:" + b.Name, Limits: limits, Isolation: iso}})
		}
	}
	return specs, cfg, nil
}

// errorList is nil for no errors, the error itself for one, else errs (printed one per line).
func errorList(errs schemaerr.List) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errs
}

// readOrOpen reads the file at p, or with read false only checks that it can be opened
// (returning nil bytes).
func readOrOpen(p string, read bool) ([]byte, error) {
	if read {
		return os.ReadFile(p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	return nil, f.Close()
}

func loadAll(ctx context.Context, h *runtime.Host, specs []guestSpec, logger *slog.Logger) ([]*runtime.Guest, error) {
	gs := make([]*runtime.Guest, 0, len(specs))
	for _, s := range specs {
		g, err := loadNoticed(logger, s.cfg.Source, func() (*runtime.Guest, error) { // notice.go
			if s.wasm == nil && s.path != "" {
				return h.LoadFile(ctx, s.path, s.cfg)
			}
			return h.Load(ctx, s.wasm, s.cfg)
		})
		if err != nil {
			if s.entry != "" {
				err = fmt.Errorf("%s: %w", s.entry, err)
			}
			return nil, err
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// inspectOutput is the --json shape of inspect.
type inspectOutput struct {
	Kind string `json:"kind"` // runtime.Guest.Kind: the ABI the module speaks
	// KindVersion is the kind's protocol version the module speaks (runtime.Guest.KindVersion:
	// "v1" or "v2" for an Extism plugin), omitted for a kind with one.
	KindVersion string `json:"kind_version,omitempty"`
	Source      string `json:"source"`
	SHA256      string `json:"sha256"`
	Bytes       int    `json:"bytes"`
	abi.Manifest
	// With --config: per tool, what is granted and what is effective (granted ∩ requested),
	// and the requested capabilities that are not granted.
	Grants     map[string]toolGrants `json:"grants,omitempty"`
	NotGranted []string              `json:"not_granted,omitempty"`
}

func inspect(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var hf hostFlags
	hf.register(fs)
	// inspect describes guests and serves nothing: the info lines of loading (how instances
	// will start, a serving concern) are noise here, so its default level is warn.
	hf.logLevel, fs.Lookup("log-level").DefValue = "warn", "warn"
	asJSON := fs.Bool("json", false, "print JSON")
	var sf shipFlags // --config alone: where OCI and URL guests come from, as for serve
	sf.register(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return ExitUsage, err
	}
	if err := hf.validate(); err != nil {
		return ExitUsage, err
	}
	switch {
	case len(pos) == 0 && hf.config == "":
		return ExitUsage, errors.New("missing GUEST.wasm (or --config FILE, to show every guest of a config)")
	case len(pos) > 1:
		return ExitUsage, fmt.Errorf("unexpected argument %q (one guest at a time)", pos[1])
	}
	logger, err := hf.logger(stderr)
	if err != nil {
		return ExitUsage, err
	}
	if len(pos) == 0 {
		return inspectConfig(ctx, &hf, &sf, *asJSON, logger, stdout, stderr) // inspectall.go
	}
	path := pos[0]
	wasm, err := os.ReadFile(path)
	if err != nil {
		return ExitLoad, err
	}
	gc := &runtime.GuestConfig{Source: path, Limits: hf.limits()}
	if hf.config != "" {
		cfg, err := config.Load(hf.config)
		if err != nil {
			return ExitLoad, err
		}
		// The config's entry for this module, if any, says what is granted.
		found := false
		for _, g := range cfg.Guests {
			if sameFile(cfg.ModulePath(g), path) {
				gc = cfg.GuestConfig(g, path)
				gc.Limits = gc.Limits.Merge(hf.limits())
				found = true
				break
			}
		}
		if !found {
			fmt.Fprintf(stderr, "mcpwasm inspect: %s is not a guest of %s: showing it with nothing granted\n", path, hf.config)
		}
	}
	h, err := hf.host(ctx, logger)
	if err != nil {
		return ExitError, err
	}
	defer h.Close(context.Background())
	if h.IsWASIServer(wasm) {
		return inspectServer(ctx, h, wasm, gc, *asJSON, logger, stdout) // wasiservers.go
	}
	g, err := h.Load(ctx, wasm, gc)
	if err != nil {
		return ExitLoad, err
	}
	out := inspectResult(g, path, wasm, hf.config != "") // inspectall.go
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return ExitOK, enc.Encode(out)
	}
	writeInspect(stdout, &out)
	return ExitOK, nil
}

// toolGrants is what inspect --config shows per tool.
type toolGrants struct {
	Granted   string `json:"granted"`
	Effective string `json:"effective"`
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func writeInspect(w io.Writer, o *inspectOutput) {
	fmt.Fprintln(w, strings.TrimSpace("guest "+o.Name+" "+o.Version)) // no trailing space without a version (Extism plugins have none)
	if o.Description != "" {
		fmt.Fprintf(w, "  %s\n", o.Description)
	}
	fmt.Fprintf(w, "source: %s (%d bytes, sha256 %s)\n", o.Source, o.Bytes, o.SHA256)
	if o.KindVersion != "" {
		fmt.Fprintf(w, "kind: %s %s\n", o.Kind, o.KindVersion)
	} else {
		fmt.Fprintf(w, "kind: %s\n", o.Kind)
	}
	// What serve's metrics and its opt-in status (--status) tell about this guest.
	fmt.Fprintf(w, "observed as: guest %q — /metrics and --status show its version, sha256, tool names, call and error counts, instances and memory; never its path\n", o.Name)
	fmt.Fprintf(w, "requests: %s\n", describeRequests(o.Requests))
	if o.Grants != nil {
		fmt.Fprintf(w, "not granted: %s\n", orNone(strings.Join(o.NotGranted, "; ")))
	}
	fmt.Fprintf(w, "tools (%d):\n", len(o.Tools))
	for _, t := range o.Tools {
		fmt.Fprintf(w, "\n  %s", t.Name)
		if t.Title != "" {
			fmt.Fprintf(w, " — %s", t.Title)
		}
		fmt.Fprintln(w)
		if t.Description != "" {
			fmt.Fprintf(w, "    %s\n", t.Description)
		}
		fmt.Fprintf(w, "    input:  %s\n", t.InputSchema)
		if len(t.OutputSchema) > 0 {
			fmt.Fprintf(w, "    output: %s\n", t.OutputSchema)
		}
		if len(t.Annotations) > 0 {
			fmt.Fprintf(w, "    annotations: %s\n", t.Annotations)
		}
		if err := mcpserver.CheckGuestTool(t); err != nil {
			fmt.Fprintf(w, "    WITHHELD by serve unless the config sets allow_hidden_text: %v\n", err)
		}
		// What the tool is granted against: its guest's requests and its own (a plugin or a
		// JavaScript guest asks for everything guest-wide).
		fmt.Fprintf(w, "    requests:  %s\n", describeRequests(o.Requests.With(t.Requests)))
		if tg, ok := o.Grants[t.Name]; ok {
			fmt.Fprintf(w, "    granted:   %s\n", tg.Granted)
			fmt.Fprintf(w, "    effective: %s\n", tg.Effective)
		}
	}
	writeInspectServed(w, o) // inspectall.go
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// describeGrants is inspect's line for grants: "net a, b; exec NAME=PATH ARGS; fs G=H (rw);
// env …; clock; random; mcp …; sampling; elicitation; roots", or "none".
func describeGrants(g policy.Grants) string {
	c := capabilities{net: g.Net, env: g.Env, clock: g.Clock, random: g.Random, mcp: g.MCP,
		sampling: g.Sampling, elicitation: g.Elicitation, roots: g.Roots}
	for _, e := range g.Exec {
		s := e.Path
		if e.Name != "" {
			s = e.Name + "=" + s
		}
		if len(e.Args) > 0 {
			s += " " + strings.Join(e.Args, " ")
		}
		c.exec = append(c.exec, s)
	}
	for _, f := range g.FS {
		s := f.Guest + "=" + f.Host
		if f.RW {
			s += " (rw)"
		}
		c.fs = append(c.fs, s)
	}
	return c.String()
}

// describeRequests is inspect's line for requests, in describeGrants' form.
func describeRequests(r abi.Requests) string {
	c := capabilities{net: r.Net, exec: r.Exec, env: r.Env, clock: r.Clock, random: r.Random, mcp: r.MCP,
		sampling: r.Sampling, elicitation: r.Elicitation, roots: r.Roots}
	for _, f := range r.FS {
		s := f.Path
		if f.RW {
			s += " (rw)"
		}
		c.fs = append(c.fs, s)
	}
	return c.String()
}

// capabilities are grants or requests as inspect prints them, each already in words.
type capabilities struct {
	net, exec, fs, env           []string
	clock, random                bool
	mcp                          []string
	sampling, elicitation, roots bool // client request kinds (ABI.md §6.7)
}

// String lists the capabilities present, "; "-separated in a fixed order, or "none".
func (c capabilities) String() string {
	var parts []string
	add := func(kind string, vals []string) {
		if len(vals) > 0 {
			parts = append(parts, kind+" "+strings.Join(vals, ", "))
		}
	}
	word := func(on bool, name string) {
		if on {
			parts = append(parts, name)
		}
	}
	add("net", c.net)
	add("exec", c.exec)
	add("fs", c.fs)
	add("env", c.env)
	word(c.clock, "clock")
	word(c.random, "random")
	add("mcp", c.mcp)
	word(c.sampling, "sampling")
	word(c.elicitation, "elicitation")
	word(c.roots, "roots")
	return orNone(strings.Join(parts, "; "))
}

// requestStateKey is the HMAC key of input-required request states (ABI.md §6.7): the
// config's request_state_key, else $MCPWASM_REQUEST_STATE_KEY, else nil (a random key per
// process).
func requestStateKey(cfg *config.Config) ([]byte, error) {
	if cfg != nil && cfg.RequestStateKey != "" {
		return mcpserver.ParseRequestStateKey(cfg.RequestStateKey)
	}
	if v := os.Getenv(mcpserver.RequestStateKeyEnv); v != "" {
		k, err := mcpserver.ParseRequestStateKey(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mcpserver.RequestStateKeyEnv, err)
		}
		return k, nil
	}
	return nil, nil
}
