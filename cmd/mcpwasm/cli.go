package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/guests"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Exit codes of the mcpwasm command.
const (
	ExitOK    = 0 // success; also a server whose client closed stdin
	ExitError = 1 // a runtime failure (I/O, the MCP session)
	ExitUsage = 2 // bad command line
	ExitLoad  = 3 // a guest failed to load (not found, not a guest, bad manifest)
)

const usage = `usage:
  mcpwasm serve [flags] [GUEST.wasm ...]   serve guests over MCP stdio (no guests: the bundled ones)
  mcpwasm inspect [--json] GUEST.wasm      show a guest's manifest, tools, schemas and requests
  mcpwasm version                          print versions
Run 'mcpwasm serve -h' for serve's flags.
`

// run is the whole command, minus process setup, so tests drive it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	var err error
	code := ExitOK
	switch args[0] {
	case "serve":
		code, err = serve(ctx, args[1:], stdin, stdout, stderr)
	case "inspect":
		code, err = inspect(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, versionLine())
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "mcpwasm: unknown command %q\n%s", args[0], usage)
		return ExitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpwasm %s: %v\n", args[0], err)
	}
	return code
}

// hostFlags are the flags of every command that loads guests.
type hostFlags struct {
	timeout   time.Duration
	memoryMB  uint64
	instances int
	cacheDir  string
	noCache   bool
	logLevel  string
}

func (f *hostFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.timeout, "timeout", runtime.DefaultLimits.Timeout, "time limit of one tool call")
	fs.Uint64Var(&f.memoryMB, "memory-mb", runtime.DefaultLimits.MemoryBytes>>20, "linear memory limit of one guest instance, in MiB")
	fs.IntVar(&f.instances, "instances", runtime.DefaultLimits.Instances, "instances per guest (concurrent calls into one guest)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "compilation cache directory (default: the user cache dir's mcpwasm/compile)")
	fs.BoolVar(&f.noCache, "no-cache", false, "keep compiled code in memory only")
	fs.StringVar(&f.logLevel, "log-level", "info", "stderr log level: debug, info, warn or error")
}

func (f *hostFlags) limits() runtime.Limits {
	return runtime.Limits{Timeout: f.timeout, MemoryBytes: f.memoryMB << 20, Instances: f.instances}
}

func (f *hostFlags) logger(stderr io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})), nil
}

func (f *hostFlags) host(ctx context.Context, logger *slog.Logger) (*runtime.Host, error) {
	return runtime.NewHost(ctx, &runtime.Options{CacheDir: f.cacheDir, NoDiskCache: f.noCache, Logger: logger})
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

// module is a guest module to load: a file, or a bundled default.
type module struct {
	source string
	wasm   []byte
}

func readModules(paths []string) ([]module, error) {
	if len(paths) == 0 {
		var mods []module
		for _, b := range guests.Default() {
			mods = append(mods, module{source: "bundled:" + b.Name, wasm: b.Wasm})
		}
		return mods, nil
	}
	mods := make([]module, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		mods = append(mods, module{source: p, wasm: b})
	}
	return mods, nil
}

func loadAll(ctx context.Context, h *runtime.Host, mods []module, limits runtime.Limits) ([]*runtime.Guest, error) {
	gs := make([]*runtime.Guest, 0, len(mods))
	for _, m := range mods {
		g, err := h.Load(ctx, m.wasm, &runtime.GuestConfig{Source: m.source, Limits: limits})
		if err != nil {
			return nil, err
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// drainGrace is how long calls still running when the client closes stdin may finish before
// they are cancelled (MCP "Lifecycle › Shutdown": the client closes stdin, then waits for the
// server to exit).
const drainGrace = time.Second

func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var hf hostFlags
	hf.register(fs)
	maxLine := fs.Int("max-line-bytes", stdio.DefaultMaxLineBytes, "largest accepted MCP message line, in bytes")
	if err := fs.Parse(args); err != nil {
		return ExitUsage, nil
	}
	logger, err := hf.logger(stderr)
	if err != nil {
		return ExitUsage, err
	}
	mods, err := readModules(fs.Args())
	if err != nil {
		return ExitLoad, err
	}
	h, err := hf.host(ctx, logger)
	if err != nil {
		return ExitError, err
	}
	defer h.Close(context.Background())
	gs, err := loadAll(ctx, h, mods, hf.limits())
	if err != nil {
		return ExitLoad, err
	}
	srv, err := mcpserver.NewServer(gs, &mcpserver.Options{Name: "mcpwasm", Version: version(),
		ServerOptions: &mcp.ServerOptions{Logger: sdkLogger(logger)}})
	if err != nil {
		return ExitLoad, err
	}
	names, tools := make([]string, len(gs)), 0
	for i, g := range gs {
		names[i], tools = g.Name(), tools+len(g.Manifest().Tools)
	}
	logger.Info("serving", "transport", "stdio", "guests", strings.Join(names, ","), "tools", tools)

	// When the client closes stdin, calls still running get drainGrace to finish; then the
	// host is closed, which stops them, so the session can end and the process exit.
	eof := make(chan struct{})
	stdin = &eofReader{r: stdin, eof: eof}
	go func() {
		select {
		case <-eof:
		case <-ctx.Done():
			return
		}
		select {
		case <-time.After(drainGrace):
			logger.Debug("stdin closed; stopping calls still running")
			_ = h.Close(context.Background())
		case <-ctx.Done():
		}
	}()
	t := stdio.NewTransport(stdin, stdout, &stdio.Options{MaxLineBytes: *maxLine, Logger: logger})
	err = srv.Run(ctx, t)
	if err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
		return ExitError, err
	}
	return ExitOK, nil
}

// eofReader closes eof when r first reports io.EOF (or any read error).
type eofReader struct {
	r    io.Reader
	eof  chan struct{}
	once sync.Once
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}

// inspectOutput is the --json shape of inspect.
type inspectOutput struct {
	Source string `json:"source"`
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
	abi.Manifest
}

func inspect(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var hf hostFlags
	hf.register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return ExitUsage, nil
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, "usage: mcpwasm inspect [--json] GUEST.wasm\n")
		return ExitUsage, nil
	}
	logger, err := hf.logger(stderr)
	if err != nil {
		return ExitUsage, err
	}
	mods, err := readModules(fs.Args())
	if err != nil {
		return ExitLoad, err
	}
	h, err := hf.host(ctx, logger)
	if err != nil {
		return ExitError, err
	}
	defer h.Close(context.Background())
	gs, err := loadAll(ctx, h, mods, hf.limits())
	if err != nil {
		return ExitLoad, err
	}
	sum := sha256.Sum256(mods[0].wasm)
	out := inspectOutput{Source: mods[0].source, SHA256: hex.EncodeToString(sum[:]), Bytes: len(mods[0].wasm), Manifest: *gs[0].Manifest()}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return ExitOK, enc.Encode(out)
	}
	writeInspect(stdout, &out)
	return ExitOK, nil
}

func writeInspect(w io.Writer, o *inspectOutput) {
	fmt.Fprintf(w, "guest %s %s\n", o.Name, o.Version)
	if o.Description != "" {
		fmt.Fprintf(w, "  %s\n", o.Description)
	}
	fmt.Fprintf(w, "source: %s (%d bytes, sha256 %s)\n", o.Source, o.Bytes, o.SHA256)
	fmt.Fprintf(w, "requests: %s\n", describeRequests(o.Requests))
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
		fmt.Fprintf(w, "    requests: %s\n", describeRequests(t.Requests))
	}
}

func describeRequests(r abi.Requests) string {
	var parts []string
	add := func(kind string, vals []string) {
		if len(vals) > 0 {
			parts = append(parts, kind+" "+strings.Join(vals, ", "))
		}
	}
	add("net", r.Net)
	add("exec", r.Exec)
	fsv := make([]string, len(r.FS))
	for i, f := range r.FS {
		fsv[i] = f.Path
		if f.RW {
			fsv[i] += " (rw)"
		}
	}
	add("fs", fsv)
	add("env", r.Env)
	if r.Clock {
		parts = append(parts, "clock")
	}
	if r.Random {
		parts = append(parts, "random")
	}
	add("mcp", r.MCP)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// version returns the main module's version, or "dev" for a source build.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func versionLine() string {
	deps := map[string]string{}
	goVersion := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		for _, d := range bi.Deps {
			deps[d.Path] = d.Version
		}
	}
	return fmt.Sprintf("mcpwasm %s (ABI v%d; %s; wazero %s; go-sdk %s)", version(), abi.Version, goVersion,
		deps["github.com/tetratelabs/wazero"], deps["github.com/modelcontextprotocol/go-sdk"])
}
