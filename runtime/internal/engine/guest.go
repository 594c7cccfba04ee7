package engine

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/internal/schema"
	"github.com/mcpwasm/mcpwasm/runtime/internal/served"
	"github.com/tetratelabs/wazero"
)

// Guest is one loaded guest module: its manifest, compiled code, and instance pool.
// Its methods are safe for concurrent use.
type Guest struct {
	host   *Host
	name   string
	source string
	config map[string]string // GuestConfig.Config, read by Extism plugins (config_get)
	args   []string          // GuestConfig.Args: argv after the program name
	// cur is what it serves; a guest that reports a list changed replaces it whole (relist).
	cur      atomic.Pointer[lists]
	gc       GuestConfig // as loaded: grants and limits of the tools a relist adds
	relistMu sync.Mutex  // one relist at a time
	compiled wazero.CompiledModule
	customs  map[string][]byte // the module's script sections (kinds.go), set with compiled
	kind     *kindEntry        // the guest's ABI, detected from the module (kinds.go)
	// kindVersion is the kind's protocol version the module speaks (kind.Traits.Version), or "".
	kindVersion string
	limits      Limits
	isolation   isolationMode // which calls may share an instance (isolation.go)
	// pools[0] has the guest's start grants (start, below) and its memory limit: describe and
	// relists run there, and so do resource reads, prompts and completions when the guest's
	// own grants give the same instances (lists.guestPool).
	pools []*pool
	// start is what the start functions, Start and describe may use: the guest's grants
	// within what its kind reads off the module before running it (kind.StartRequests).
	start *sandbox.Tool

	code *guestCode // whether compiled is set yet, or still (lazy.go)

	closeOnce sync.Once
	running   atomic.Int64 // calls from reaching g (hold) to answer, including those still getting an instance (Drain)
	// next is the version that replaced g (ReplacedBy): a call that reaches g after it is
	// set is answered by next.
	next    atomic.Pointer[Guest]
	logRate kind.Rate     // log, progress and resource.updated reports of all calls
	stats   guestCounters // tool calls reported (observe.go)
}

// lists is what a guest serves: its manifest and what load derived from it. They change only
// as a whole (relist.go), so a reader loads them once (Guest.lists) and keeps that view.
type lists struct {
	manifest abi.Manifest
	served   *sandbox.Resources // the resource URIs it serves (resource.updated, ServesResource)
	tools    map[string]*tool
	// guest is what resource reads, prompts and completions may use: the guest's grants (not
	// narrowed per tool) within the guest's and all its tools' requests; guestPool runs them.
	guest     *sandbox.Tool
	guestPool *pool
	// own maps "tool:"+name and "prompt:"+name of each tool and prompt served under another
	// name than the guest declares (a tool prefix, a foreign name mapped) to the declared one.
	own     map[string]string
	renames []served.Rename // the foreign names mapped (names.go), logged once
}

// lists returns what g serves now.
func (g *Guest) lists() *lists { return g.cur.Load() }

type tool struct {
	def     abi.Tool // as served: its name has GuestConfig.ToolPrefix
	own     string   // its name as the guest declares it, which the guest is called with (names.go)
	input   *jsonschema.Resolved
	output  *jsonschema.Resolved // nil when the tool declares no output schema
	limits  Limits
	sandbox *sandbox.Tool // what the tool may reach
	// deniedFS: fs directories the guest requested that are not granted (fsdenied.go)
	deniedFS []sandbox.DeniedFS
	pool     *pool
	flat     *schema.Flat // fast acceptor for a flat input schema, or nil
	// unenforced: schema keywords the host leaves to the guest (runtime/internal/schema); each
	// Path starts with "inputSchema" or "outputSchema"
	unenforced []schema.Unenforced
}

// Name returns the guest's name (from config, else from its manifest).
func (g *Guest) Name() string { return g.name }

// Kind implements runtime.Guest.Kind, whose doc comment says what it does.
func (g *Guest) Kind() string { return g.kind.Name() }

// KindVersion implements runtime.Guest.KindVersion, whose doc comment says what it does.
func (g *Guest) KindVersion() string { return g.kindVersion }

// Source returns where the module came from, as given in GuestConfig.Source.
func (g *Guest) Source() string { return g.source }

// Manifest returns the manifest the guest described at load. The caller must not modify it.
func (g *Guest) Manifest() *abi.Manifest { return &g.lists().manifest }

// Tool returns the declaration of the named tool, and whether it exists.
func (g *Guest) Tool(name string) (abi.Tool, bool) {
	t, ok := g.lists().tools[name]
	if !ok {
		return abi.Tool{}, false
	}
	return t.def, true
}

// DeclaredName implements runtime.Guest.DeclaredName, whose doc comment says what it does.
func (g *Guest) DeclaredName(tool string) string {
	if t, ok := g.lists().tools[tool]; ok {
		return t.own
	}
	return tool
}

// LongestCall implements runtime.Guest.LongestCall, whose doc comment says what it does.
func (g *Guest) LongestCall() time.Duration {
	d := g.limits.Timeout
	for _, t := range g.lists().tools {
		d = max(d, t.limits.Timeout)
	}
	return d
}

// Limits implements runtime.Guest.Limits, whose doc comment says what it does.
func (g *Guest) Limits(tool string) Limits {
	if t, ok := g.lists().tools[tool]; ok {
		return t.limits
	}
	return g.limits
}

// ValidateOutput implements runtime.Guest.ValidateOutput, whose doc comment says what it does.
func (g *Guest) ValidateOutput(tool string, structured any) error {
	t, ok := g.lists().tools[tool]
	if !ok {
		return fmt.Errorf("guest %q: %w %q", g.name, ErrUnknownTool, tool)
	}
	if t.output == nil {
		return nil
	}
	if err := t.output.Validate(structured); err != nil {
		return fmt.Errorf("guest %q tool %q: structured result does not match its outputSchema: %s",
			g.name, tool, strings.TrimPrefix(err.Error(), "validating root: "))
	}
	return nil
}

// HasOutputSchema reports whether tool declares an outputSchema.
func (g *Guest) HasOutputSchema(tool string) bool {
	t, ok := g.lists().tools[tool]
	return ok && t.output != nil
}

// ReplacedBy implements runtime.Guest.ReplacedBy, whose doc comment says what it does.
func (g *Guest) ReplacedBy(next *Guest) {
	if next != nil && next != g {
		g.next.Store(next)
	}
}

// hold counts a call from the moment it reaches g (Drain), and returns the version that
// answers it: g, or — once g was replaced (ReplacedBy) — the newest version, whose count it
// holds instead. The caller ends the count with the answer: v.running.Add(-1). A call counted
// here before ReplacedBy is seen by the Drain after it (both sides are sequentially
// consistent atomics: the call adds and then loads next, the reload stores next and then
// loads the count).
func (g *Guest) hold() *Guest {
	for {
		g.running.Add(1)
		n := g.next.Load()
		if n == nil {
			return g
		}
		g.running.Add(-1)
		g = n
	}
}

// Drain implements runtime.Guest.Drain, whose doc comment says what it does.
func (g *Guest) Drain(ctx context.Context) error {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		if g.running.Load() == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Close implements runtime.Guest.Close, whose doc comment says what it does.
func (g *Guest) Close(ctx context.Context) error {
	var err error
	g.closeOnce.Do(func() {
		g.host.unregister(g)
		for _, p := range g.pools {
			p.close(ctx)
		}
		err = g.closeCode(ctx)
	})
	return err
}

func slogLevel(l abi.Level) slog.Level {
	switch {
	case l <= abi.LevelDebug:
		return slog.LevelDebug
	case l <= abi.LevelNotice:
		return slog.LevelInfo
	case l == abi.LevelWarning:
		return slog.LevelWarn
	}
	return slog.LevelError
}
