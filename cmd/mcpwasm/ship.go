package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/digest"
	"github.com/mcpwasm/mcpwasm/internal/names"
	"github.com/mcpwasm/mcpwasm/internal/ship"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Shipping guests: pull, lock, push, and the part of serve that gets a guest's bytes from a
// URL, a registry or the store (internal/ship).

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// shipFlags are the flags of every command that fetches guests.
type shipFlags struct {
	store        string
	plainHTTP    listFlag
	dockerConfig string
}

func (f *shipFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.store, "store", "", "module store directory (default: the user cache dir's mcpwasm/store)")
	fs.Var(&f.plainHTTP, "plain-http", "a host (host or host:port) whose URLs and registry may be reached over plain http; repeatable (the config's plain_http adds more)")
	fs.StringVar(&f.dockerConfig, "docker-config", "", "Docker config file with registry credentials (default: $DOCKER_CONFIG/config.json, else ~/.docker/config.json)")
}

// shipper fetches the guests of one command run.
type shipper struct {
	cfg    *config.Config // may be nil (guests from the command line)
	store  *ship.Store
	client *ship.Client
}

func (f *shipFlags) shipper(cfg *config.Config, maxBytes int, stderr io.Writer) (*shipper, error) {
	dir := f.store
	if dir == "" {
		var err error
		if dir, err = ship.DefaultStoreDir(); err != nil {
			return nil, err
		}
	}
	store, err := ship.OpenStore(dir)
	if err != nil {
		return nil, err
	}
	opts := &ship.Options{MaxBytes: int64(maxBytes), PlainHTTP: f.plainHTTP, DockerConfig: f.dockerConfig}
	if cfg != nil {
		opts.PlainHTTP = append(opts.PlainHTTP, cfg.PlainHTTP...)
	}
	if isTerminal(stderr) {
		opts.Progress = stderr
	}
	s := &shipper{cfg: cfg, store: store}
	s.client = ship.NewClient(store, opts)
	return s, nil
}

// verifier is the signature policy of guest g (the zero Guest for one named on the command
// line) fetched from src: g's own, else src's host's in the config; nil when none applies.
// It is the policy of the guest being loaded, never of another entry with the same source.
func (s *shipper) verifier(g config.Guest, src ship.Source) ship.Verifier {
	if s.cfg == nil {
		return nil
	}
	host := src.Ref.Registry
	if src.Kind == ship.KindURL {
		host = src.URL.Host
	}
	p := s.cfg.SignaturePolicy(g, host)
	if p == nil {
		return nil
	}
	return func(sig ship.Signed) error { return verifySignature(p, sig) }
}

// lockPath is the lock file beside the config file.
func lockPath(configPath string) string {
	return filepath.Join(filepath.Dir(configPath), ship.LockName)
}

// guestLabel names a config guest in messages: its name, else its source.
func guestLabel(g config.Guest) string {
	if g.Name != "" {
		return g.Name
	}
	return g.Path
}

// notLocked is the error of config guest g, read from configPath, that the lock beside it
// does not list: which lock (it serves every config in its directory, so a second config
// there meets it) and the command that adds the guest.
func notLocked(g config.Guest, configPath string) error {
	lp := lockPath(configPath)
	which := g.Path
	if g.Name != "" {
		which = fmt.Sprintf("%q (%s)", g.Name, g.Path)
	}
	return fmt.Errorf("guest %s is not in %s, the lock of every config in %s: run mcpwasm pull --config %s to lock it",
		which, lp, filepath.Dir(lp), configPath)
}

// module returns the bytes of config guest g (of the config at configPath) for serve: with
// a lock entry exactly the locked bytes (from the store, fetched by digest if missing), else
// fetched (remote) or read (a path). A local file is read before the lock is asked, so a
// missing one is reported as missing. Errors name the guest.
func (s *shipper) module(ctx context.Context, g config.Guest, lock *ship.Lock, configPath string) ([]byte, *ship.LockedGuest, error) {
	p := s.cfg.ModulePath(g)
	src, err := ship.ParseSource(p)
	if err != nil {
		return nil, nil, fmt.Errorf("guest %q: %w", guestLabel(g), err)
	}
	locked := lock.Guest(g.Path)
	if src.Kind == ship.KindPath {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, &pathError{err}
		}
		if lock != nil && locked == nil {
			return nil, nil, notLocked(g, configPath)
		}
		if locked != nil && digest.Hex(b) != locked.SHA256 {
			return nil, nil, fmt.Errorf("guest %q: %s changed since it was locked (sha256 %s, locked %s): run mcpwasm lock --update to accept it",
				guestLabel(g), p, digest.Hex(b), locked.SHA256)
		}
		return b, locked, nil
	}
	if lock != nil && locked == nil {
		return nil, nil, notLocked(g, configPath)
	}
	want := g.SHA256
	if locked != nil {
		want = locked.SHA256
		if src.Kind == ship.KindOCI {
			src = src.AtDigest(locked.Resolved) // never the tag: it may have moved
		}
	}
	verify := s.verifier(g, src)
	// Stored bytes serve offline only if they need no signature, or the bundle kept with
	// them verifies under this guest's policy now; else the fetch checks the source's.
	if want != "" && s.store.Has(want) {
		b, err := s.store.Read(want, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("guest %q: %w", guestLabel(g), err)
		}
		sig := ship.Signed{Module: b, Bundle: s.store.Bundle(want)}
		if locked != nil && src.Kind == ship.KindOCI {
			// A kept cosign image signature names the locked manifest, not the module.
			sig.Manifests = []string{locked.Resolved}
		}
		if verify == nil || verify(sig) == nil {
			return b, locked, nil
		}
	}
	f, err := s.client.Fetch(ctx, src, want, verify)
	if err != nil {
		return nil, nil, fmt.Errorf("guest %q: %w", guestLabel(g), err)
	}
	b, err := s.store.Read(f.SHA256, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("guest %q: %w", guestLabel(g), err)
	}
	return b, locked, nil
}

// pathError is a config guest's file that cannot be read: reported as "guests[N].path: …".
type pathError struct{ err error }

func (e *pathError) Error() string { return e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

// fetchArg fetches a guest given on the serve command line as a URL or OCI reference.
func (s *shipper) fetchArg(ctx context.Context, src ship.Source) ([]byte, error) {
	f, err := s.client.Fetch(ctx, src, "", s.verifier(config.Guest{}, src))
	if err != nil {
		return nil, err
	}
	return s.store.Read(f.SHA256, 0)
}

// withholdChanged removes from srv the tools of g that differ from its lock entry (added or
// changed: MCP tool poisoning / rug pull, RATIONALE.md), with a warning naming each changed
// field, and returns how many it withheld. The operator approves with mcpwasm lock --update.
func withholdChanged(srv *mcp.Server, g *runtime.Guest, locked *ship.LockedGuest, logger *slog.Logger) int {
	if locked == nil {
		return 0
	}
	// The lock holds the tools as served without tool_prefix (lockEntry describes the guest
	// without it): compare under those names, so that a tool_prefix added after pull changes
	// no approval (issue 45 item 10: every tool was withheld and lock --update could not
	// help), and withhold the served name.
	m := *g.Manifest()
	m.Tools = slices.Clone(m.Tools)
	served := map[string]string{}
	for i := range m.Tools {
		key := g.DeclaredName(m.Tools[i].Name)
		if !abi.ValidName(key) {
			key = names.MapName(key) // a foreign name, mapped as servedNames maps it
		}
		served[key] = m.Tools[i].Name
		m.Tools[i].Name = key
	}
	n := 0
	for _, c := range ship.Diff(locked.Tools, ship.ToolFields(&m)) {
		var why string
		switch c.Kind {
		case "added":
			why = "not in the lock (run mcpwasm lock --update to approve it)"
			logger.Warn("tool withheld: "+why, "guest", g.Name(), "tool", served[c.Tool])
		case "changed":
			why = "its definition changed since it was locked (run mcpwasm lock --update to approve it)"
			logger.Warn("tool withheld: "+why, "guest", g.Name(), "tool", served[c.Tool], "changed", strings.Join(c.Fields, ","))
		default:
			continue
		}
		mcpserver.WithholdTool(srv, served[c.Tool], why) // a call of it says why
		n++
	}
	return n
}

// describeGuest loads wasm once, without grants, for its manifest.
func describeGuest(ctx context.Context, h *runtime.Host, wasm []byte, name, source string) (*runtime.Guest, error) {
	g, err := h.Load(ctx, wasm, &runtime.GuestConfig{Name: name, Source: source})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// lockEntry is the lock entry of a loaded guest.
func lockEntry(g *runtime.Guest, cg config.Guest, resolved, sha string) ship.LockedGuest {
	m := g.Manifest()
	return ship.LockedGuest{Name: g.Name(), Source: cg.Path, Resolved: resolved, SHA256: sha,
		Manifest: ship.ManifestDigest(m), Tools: ship.ToolFields(m)}
}

// pull fetches every guest of the config into the store and locks those not yet locked. A
// locked guest must still resolve to what is locked (a moved tag or changed bytes is an
// error); `lock --update` accepts a change.
func pull(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
	return pullOrLock(ctx, "pull", args, stdout, stderr)
}

func lockCmd(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
	return pullOrLock(ctx, "lock", args, stdout, stderr)
}

func pullOrLock(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "mcpwasm.json", "configuration file; the lock is "+ship.LockName+" beside it")
	var update *bool
	if cmd == "lock" {
		update = fs.Bool("update", false, "re-resolve every guest, print what changed tool by tool, and write the lock (this approves the changes)")
	}
	var sf shipFlags
	sf.register(fs)
	if pos, err := parseArgs(fs, args); err != nil {
		return ExitUsage, err
	} else if len(pos) > 0 {
		return ExitUsage, fmt.Errorf("unexpected argument %q", pos[0])
	}
	if update != nil && !*update {
		return ExitUsage, errors.New("say --update: lock re-resolves every guest and approves what changed")
	}
	cfg, err := config.Load(*configPath)
	if err != nil {
		return ExitLoad, err
	}
	lp := lockPath(*configPath)
	lock, err := ship.ReadLock(lp)
	if err != nil {
		return ExitLoad, err
	}
	if lock == nil {
		lock = &ship.Lock{}
	}
	s, err := sf.shipper(cfg, policy.DefaultLimits().ModuleBytes, stderr)
	if err != nil {
		return ExitError, err
	}
	h, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return ExitError, err
	}
	defer h.Close(context.Background())
	for _, g := range cfg.Guests {
		label := guestLabel(g)
		p := cfg.ModulePath(g)
		src, err := ship.ParseSource(p)
		if err != nil {
			return ExitLoad, fmt.Errorf("guest %q: %w", label, err)
		}
		locked := lock.Guest(g.Path)
		var wasm []byte
		var resolved, sha string
		if src.Kind == ship.KindPath {
			if wasm, err = os.ReadFile(p); err != nil {
				return ExitLoad, fmt.Errorf("guest %q: %w", label, err)
			}
			sha = digest.Hex(wasm)
			resolved = "sha256:" + sha
		} else {
			want := g.SHA256
			if cmd == "pull" && locked != nil {
				want = locked.SHA256
			}
			f, err := s.client.Fetch(ctx, src, want, s.verifier(g, src))
			if err != nil {
				if cmd == "pull" && locked != nil && errors.Is(err, ship.ErrDigest) {
					return ExitLoad, fmt.Errorf("guest %q: %s no longer matches %s (a moved tag or changed bytes): %w; run mcpwasm lock --update to review and accept it", label, g.Path, ship.LockName, err)
				}
				return ExitLoad, fmt.Errorf("guest %q: %w", label, err)
			}
			resolved, sha = f.Resolved, f.SHA256
			if wasm, err = s.store.Read(sha, 0); err != nil {
				return ExitLoad, fmt.Errorf("guest %q: %w", label, err)
			}
		}
		if cmd == "pull" && locked != nil {
			if resolved != locked.Resolved || sha != locked.SHA256 {
				return ExitLoad, fmt.Errorf("guest %q: %s no longer matches %s: it resolves to %s, locked %s (a moved tag or changed bytes); run mcpwasm lock --update to review and accept it",
					label, g.Path, ship.LockName, resolved, locked.Resolved)
			}
			fmt.Fprintf(stdout, "%s  %s  %s (locked)\n", label, g.Path, resolved)
			continue
		}
		lg, err := describeGuest(ctx, h, wasm, g.Name, p)
		if err != nil {
			return ExitLoad, fmt.Errorf("guest %q: %w", label, err)
		}
		entry := lockEntry(lg, g, resolved, sha)
		_ = lg.Close(ctx)
		switch {
		case locked == nil:
			fmt.Fprintf(stdout, "%s  %s  %s (new)\n", label, g.Path, resolved)
		case locked.Manifest == entry.Manifest && locked.SHA256 == entry.SHA256 && locked.Resolved == entry.Resolved &&
			len(ship.Diff(locked.Tools, entry.Tools)) == 0:
			fmt.Fprintf(stdout, "%s  %s  %s (unchanged)\n", label, g.Path, resolved)
		default:
			if locked.Resolved != resolved {
				fmt.Fprintf(stdout, "%s  %s  %s (was %s)\n", label, g.Path, resolved, locked.Resolved)
			} else {
				fmt.Fprintf(stdout, "%s  %s  %s (tools changed)\n", label, g.Path, resolved)
			}
			changes := ship.Diff(locked.Tools, entry.Tools)
			if len(changes) == 0 {
				fmt.Fprintln(stdout, "  tools unchanged")
			}
			for _, c := range changes {
				fmt.Fprintf(stdout, "  %s\n", c)
			}
		}
		lock.Set(entry)
	}
	if err := lockUpstreams(ctx, cmd, cfg, lock, stdout); err != nil {
		return ExitLoad, err
	}
	if err := lock.Write(lp); err != nil {
		return ExitError, err
	}
	return ExitOK, nil
}

// lockUpstreams records the tool definitions of the config's exposed upstreams in the lock:
// pull records those not yet locked, lock --update all of them, printing what changed.
func lockUpstreams(ctx context.Context, cmd string, cfg *config.Config, lock *ship.Lock, stdout io.Writer) error {
	var todo []string
	for name, u := range cfg.Upstreams {
		if u.Expose && (cmd == "lock" || lock.Upstreams[name] == nil) {
			todo = append(todo, name)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	slices.Sort(todo)
	logger := slog.New(slog.DiscardHandler)
	m := newUpstreams(cfg, logger, nil)
	defer m.Close()
	if lock.Upstreams == nil {
		lock.Upstreams = map[string]map[string]ship.ToolDigests{}
	}
	for _, name := range todo {
		s, err := m.Session(ctx, name)
		if err != nil {
			return fmt.Errorf("upstream %q: %w", name, err)
		}
		list, support, err := s.AllToolsTaskSupport(ctx)
		if err != nil {
			return fmt.Errorf("upstream %q: listing tools: %w", name, err)
		}
		now := map[string]ship.ToolDigests{}
		for _, t := range list {
			now[t.Name] = ship.ToolDigests(mcpserver.PinTool(t, support[t.Name]))
		}
		old, had := lock.Upstreams[name]
		switch changes := ship.Diff(old, now); {
		case !had:
			fmt.Fprintf(stdout, "upstream %s  %d tools (new)\n", name, len(now))
		case len(changes) == 0:
			fmt.Fprintf(stdout, "upstream %s  %d tools (unchanged)\n", name, len(now))
		default:
			fmt.Fprintf(stdout, "upstream %s  %d tools\n", name, len(now))
			for _, c := range changes {
				fmt.Fprintf(stdout, "  %s\n", c)
			}
		}
		lock.Upstreams[name] = now
	}
	return nil
}

// upstreamPins are the exposed upstreams' locked tool definitions in the lock beside
// configPath, if any.
func upstreamPins(configPath string) map[string]map[string]mcpserver.ToolPin {
	if configPath == "" {
		return nil
	}
	lock, err := ship.ReadLock(lockPath(configPath))
	if err != nil || lock == nil {
		return nil // a bad lock already failed guestSpecs
	}
	out := map[string]map[string]mcpserver.ToolPin{}
	for name, tools := range lock.Upstreams {
		out[name] = map[string]mcpserver.ToolPin{}
		for t, d := range tools {
			out[name][t] = mcpserver.ToolPin(d)
		}
	}
	return out
}

// push publishes GUEST.wasm to an OCI registry in the Wasm OCI artifact layout, with the
// manifest's name, version and description as org.opencontainers.image.* annotations.
func push(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf shipFlags
	sf.register(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return ExitUsage, err
	}
	if len(pos) != 2 {
		return ExitUsage, errors.New("want GUEST.wasm and oci://REGISTRY/REPO:TAG")
	}
	dst, err := ship.ParseSource(pos[1])
	if err != nil || dst.Kind != ship.KindOCI {
		return ExitUsage, fmt.Errorf("%q: want oci://REGISTRY/REPO:TAG", pos[1])
	}
	wasm, err := os.ReadFile(pos[0])
	if err != nil {
		return ExitLoad, err
	}
	h, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return ExitError, err
	}
	defer h.Close(context.Background())
	g, err := describeGuest(ctx, h, wasm, "", pos[0])
	if err != nil {
		return ExitLoad, err
	}
	m := g.Manifest()
	ann := map[string]string{"org.opencontainers.image.title": m.Name}
	if m.Version != "" {
		ann["org.opencontainers.image.version"] = m.Version
	}
	if m.Description != "" {
		ann["org.opencontainers.image.description"] = m.Description
	}
	s, err := sf.shipper(nil, policy.DefaultLimits().ModuleBytes, stderr)
	if err != nil {
		return ExitError, err
	}
	d, err := s.client.Push(ctx, dst, wasm, ann)
	if err != nil {
		return ExitError, err
	}
	fmt.Fprintf(stdout, "%s@%s\n", strings.TrimSuffix(dst.Raw, ":"+dst.Ref.Reference), d)
	return ExitOK, nil
}
