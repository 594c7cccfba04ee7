// Package mcpserver binds loaded guests to the MCP Go SDK: each guest tool becomes an MCP
// tool on an *mcp.Server whose handler validates arguments (via runtime.Guest.Call), runs the
// guest, and maps every failure to the answer MCP prescribes — a tool error (result.isError)
// the model can read, or a JSON-RPC error for malformed requests.
//
// Use NewServer for a server of guests only, or AddGuest to put guests on a server you own.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/exactjson"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// Options configure NewServer. Nil means defaults.
type Options struct {
	// Name and Version identify the server in initialize; defaults "mcpwasm" and "dev".
	Name, Version string
	// ServerOptions are passed to mcp.NewServer; nil means the SDK's defaults.
	ServerOptions *mcp.ServerOptions
	// Completions declares the completions capability even when no guest completes: exposed
	// servers (ExposeOptions.All) will complete their prompts and templates through it.
	Completions bool
	// AllowHiddenText names the guests whose tools are served even if their text hides
	// characters (hygiene.go); other such tools are withheld with a warning.
	AllowHiddenText []string
	// Logger receives those warnings; nil means slog.Default().
	Logger *slog.Logger
	// Names is the server's tool-name registry (see NameSet); pass the same set to later
	// AddGuest, ReplaceGuest and Expose calls on this server. Nil means a private set.
	Names *NameSet
	// TracerProvider makes the tools/call spans (telemetry.go); nil means the global
	// otel.GetTracerProvider(), a no-op until one is installed.
	TracerProvider trace.TracerProvider
	// RequestStateKey authenticates the requestState of input-required results (HMAC-SHA256,
	// clientreq.go; see GuestOptions.RequestStateKey).
	RequestStateKey []byte
	// Tasks bound the server's tasks (tasks.go); zero fields are the defaults.
	Tasks TaskOptions
	// GuestTasks narrows the task support of guests' tools, by guest name (see
	// GuestOptions.Tasks).
	GuestTasks map[string]TaskCaps
}

// GuestOptions configure AddGuest. Nil means defaults.
type GuestOptions struct {
	// AllowHiddenText serves tools, prompts, resources and resource templates whose text
	// hides characters (format characters, variation selectors, fillers, controls and ANSI
	// escapes; hygiene.go); by default they are withheld.
	AllowHiddenText bool
	// Logger receives a warning per withheld (or allowed) tool, prompt or resource; nil
	// means slog.Default().
	Logger *slog.Logger
	// Names is the server's tool-name registry (see NameSet). Nil means a private set, which
	// cannot see the server's other tools.
	Names *NameSet
	// TracerProvider makes the tools/call spans; nil means the global one (see Options).
	TracerProvider trace.TracerProvider
	// RequestStateKey authenticates the requestState of input-required results (HMAC-SHA256,
	// at least 32 bytes; clientreq.go): servers behind one load balancer share it. Nil means
	// a random per-process key.
	RequestStateKey []byte
	// Tasks narrows the task support the guest's tools declare (execution.taskSupport,
	// tasks.go); the zero value keeps what they declare.
	Tasks TaskCaps
}

// NewServer returns an MCP server serving the tools of guests. It fails if a guest's tool
// cannot be registered (see AddGuest).
func NewServer(guests []*runtime.Guest, opts *Options) (*mcp.Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = "mcpwasm"
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Names == nil {
		o.Names = &NameSet{}
	}
	var sopts mcp.ServerOptions
	if o.ServerOptions != nil {
		sopts = *o.ServerOptions
	}
	reg := newRegistry()
	reg.configure(&sopts, guests, o.Completions) // completions and subscriptions (registry.go)
	s := mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, &sopts)
	reg.server = s // completions refresh a guest that re-listed (refresh.go)
	registries.Store(s, reg)
	SetTaskOptions(s, o.Tasks) // tasks.go
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	s.AddSendingMiddleware((&listChangedLog{logger: logger}).middleware) // listfanout.go
	s.AddSendingMiddleware(reg.updatedFilter)                            // subscriptions.go: ResourceUpdatedTo
	s.AddReceivingMiddleware(sessionMiddleware(serverVersions(&sopts)))  // revision.go
	s.AddReceivingMiddleware(protocolMiddleware)                         // protocol.go
	s.AddReceivingMiddleware(withheldMiddleware(s))                      // registry.go: WithholdTool
	s.AddReceivingMiddleware(revisionMiddleware)                         // revision.go
	for _, g := range guests {
		gopts := &GuestOptions{AllowHiddenText: slices.Contains(o.AllowHiddenText, g.Name()), Logger: o.Logger, Names: o.Names, TracerProvider: o.TracerProvider, RequestStateKey: o.RequestStateKey, Tasks: o.GuestTasks[g.Name()]}
		if err := AddGuest(s, g, gopts); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// AddGuest registers every tool, resource, resource template and prompt of g on s. Names,
// titles, descriptions, schemas, annotations and icons come from the guest's manifest. The
// tool and prompt names, resource URIs and templates are claimed in opts.Names for
// `guest "NAME"` (NameSet.ClaimGuest): one another owner holds (another guest, an exposed
// upstream, the status tools) is an error — `tool "echo" of guest "b" is already provided by
// guest "a"`, `prompt "greet" of guest "b" …` — and so is an annotation or icon list that is not valid MCP; on an error nothing
// is registered. Tools, prompts and resources whose text hides characters are withheld unless
// opts allows them.
func AddGuest(s *mcp.Server, g *runtime.Guest, opts *GuestOptions) error {
	var o GuestOptions
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	v, err := sdkValues(g.Name(), g.Manifest()) // features.go: checked by checkForSDK
	if err != nil {
		return err
	}
	if err := namesOf(&o).ClaimGuest(g); err != nil {
		return err
	}
	if err := registerGuest(s, g, v, &o); err != nil {
		_ = namesOf(&o).swap(guestItems(g.Manifest()), guestOwner(g), nil, owner{}, "")
		return err
	}
	registryOf(s).add(g, &o)
	return nil
}

// registerGuest hands g's checked tools and features to the SDK. Every value passed
// checkForSDK first; the recover is a last line against an SDK condition checkForSDK does not
// know yet (a newer SDK): the guest fails to register, naming what the SDK said, instead of
// the server dying (what was registered before the panic stays).
func registerGuest(s *mcp.Server, g *runtime.Guest, v *manifestValues, o *GuestOptions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("guest %q: the MCP SDK refused its manifest: %v", g.Name(), r)
		}
	}()
	for _, d := range v.dropped {
		o.Logger.Warn("manifest _meta keys in MCP's reserved namespace dropped", "guest", g.Name(), d.kind, d.name, "keys", d.keys)
	}
	for i, t := range v.tools {
		if withheld(g, t, o) { // hidden characters (hygiene.go)
			continue
		}
		if namesView(t.Meta) {
			enableApps(s) // apps.go
		}
		if support := effectiveTaskSupport(v.taskSupport[i], o.Tasks, t.Name); support != "" {
			enableTasks(s).setSupport(t.Name, support) // tasks.go
		} else if ts := tasksOf(s); ts != nil {
			ts.setSupport(t.Name, "")
		}
		s.AddTool(t, withClientRequests(t.Name, o.RequestStateKey, g.Limits(t.Name).OutputBytes, o.Logger, toolHandler(s, g, t.Name, tracerOf(o.TracerProvider), o.Logger))) // clientreq.go
	}
	v.addFeatures(s, g, o)
	return nil
}

func mcpTool(td abi.Tool) (*mcp.Tool, error) {
	t := &mcp.Tool{
		Name:        td.Name,
		Title:       td.Title,
		Description: td.Description,
		InputSchema: td.InputSchema,
	}
	if len(td.OutputSchema) > 0 {
		t.OutputSchema = td.OutputSchema
	}
	if len(td.Annotations) > 0 {
		t.Annotations = new(mcp.ToolAnnotations)
		if err := json.Unmarshal(td.Annotations, t.Annotations); err != nil {
			return nil, fmt.Errorf("annotations: %w", err)
		}
	}
	if len(td.Icons) > 0 {
		if err := json.Unmarshal(td.Icons, &t.Icons); err != nil {
			return nil, fmt.Errorf("icons: %w", err)
		}
	}
	meta, err := decodeMeta(td.Meta) // apps.go
	if err != nil {
		return nil, err
	}
	t.Meta = meta
	return t, nil
}

// toolHandler returns the tools/call handler of one guest tool. Each call is reported with
// its outcome and traced (telemetry.go); _meta keys of MCP's reserved namespace in the
// guest's result are dropped with a warning to logger (metakeys.go).
func toolHandler(s *mcp.Server, g *runtime.Guest, tool string, tracer trace.Tracer, logger *slog.Logger) mcp.ToolHandler {
	call := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, done := startToolCall(ctx, tracer, g, tool, req)
		args, err := objectArguments(req.Params.Arguments)
		if err != nil {
			done(runtime.ErrInvalidArguments, false)
			return nil, err
		}
		hooks := callHooks(ctx, req)
		hooks.ResourceUpdated = resourceUpdatedHook(ctx, s) // subscriptions.go
		hooks.Session = req.Session                         // isolation by session
		withRequest(ctx, hooks, req.Params.Meta)            // hyper-mcp v2's context
		hooks.ListsChanged = func() { refreshGuest(s, g) }  // refresh.go
		out, err := g.Call(runtime.WithCallHooks(ctx, hooks), tool, args)
		if err != nil {
			recordCallError(ctx, err) // a task reports it as failed (tasks.go)
			done(err, false)
			return toolError(err), nil
		}
		res := decodeResult(g, tool, out)
		res.Meta = dropReservedMeta(logger, res.Meta, "guest", g.Name(), "tool", tool) // metakeys.go
		done(nil, res.IsError)
		return res, nil
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		onWarmStack(func() { res, err = call(ctx, req) }) // warmstack.go
		return res, err
	}
}

// objectArguments applies MCP "Tools › Calling Tools": arguments is an object. Absent and
// null mean no arguments ({}); any other non-object is invalid params (-32602), a protocol
// error rather than a tool error because the request itself is malformed.
func objectArguments(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return []byte("{}"), nil
	}
	if raw[0] != '{' {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("invalid params: arguments must be an object, got %s", jsonType(raw[0]))}
	}
	return raw, nil
}

func jsonType(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// toolError turns a runtime error into a tool error the model can read: one line naming
// the guest, the tool and the reason. Invalid arguments drop the guest prefix, since the
// message is about the caller's input.
func toolError(err error) *mcp.CallToolResult {
	msg := err.Error()
	if ce := (*runtime.CallError)(nil); errors.As(err, &ce) && errors.Is(ce.Err, runtime.ErrInvalidArguments) {
		msg = ce.Err.Error()
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// decodeResult parses a guest's CallToolResult JSON (ABI.md §5), refuses one that is not a
// CallToolResult with a reason naming the member (exactjson.Check), and checks structured
// content against the tool's outputSchema: a mismatch (or a missing structured result) is a
// tool error and is never forwarded. A result with structured content but no content blocks
// gets a text block holding the same JSON, as MCP 2025-06-18 recommends for clients that
// predate structuredContent. No JSON number is changed: structured content stays the guest's
// JSON (exactjson.DecodeToolResult) and is validated with exact numbers.
func decodeResult(g *runtime.Guest, tool string, out []byte) *mcp.CallToolResult {
	res, err := exactjson.DecodeToolResult(out)
	if err != nil {
		return toolError(malformedResult(g.Name(), g.Kind(), tool, err))
	}
	sc, _ := res.StructuredContent.(json.RawMessage)
	if !res.IsError && g.HasOutputSchema(tool) {
		if sc == nil {
			return toolError(fmt.Errorf("guest %q tool %q: declares an outputSchema but returned no structuredContent", g.Name(), tool))
		}
		if err := g.ValidateOutputJSON(tool, sc); err != nil {
			return toolError(err)
		}
	}
	if len(res.Content) == 0 && sc != nil {
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(sc)}}
	}
	return res
}

// malformedResult is the error of a result that is not a CallToolResult: for a guest built
// against the ABI, an ABI violation; for a JavaScript guest, whose shim passes on what the
// script's handler returned, the script's own mistake, labelled so (the message is the same).
func malformedResult(guest, kind, tool string, err error) error {
	if kind == "javascript" {
		return fmt.Errorf("guest %q tool %q: script error: malformed result: %v", guest, tool, err)
	}
	return fmt.Errorf("guest %q tool %q: %w: malformed result: %v", guest, tool, runtime.ErrABI, err)
}

// callHooks forwards a guest's log lines and progress to the client (MCP "Utilities ›
// Logging" and "Utilities › Progress"). Progress is sent only when the request carried a
// progress token; log lines go through the session, which filters by the client's level.
func callHooks(ctx context.Context, req *mcp.CallToolRequest) *runtime.CallHooks {
	ss := req.Session
	token := req.Params.GetProgressToken()
	h := &runtime.CallHooks{
		Client: clientOf(ctx), // clientreq.go
		Log: func(level abi.Level, msg string) {
			if ss != nil {
				_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(level.String()), Data: msg})
			}
		},
	}
	// A progress report makes a task-eligible call a task (tasks.go), token or not.
	signal := progressSignal(ctx)
	if token != nil && ss != nil {
		// "The progress value MUST increase with each notification" (Utilities › Progress):
		// a report that does not exceed the last one sent is dropped, not relayed as a
		// decrease or a repeat.
		var mu sync.Mutex
		last, sent := 0.0, false
		h.Progress = func(progress, total float64, msg string) {
			if signal != nil {
				signal()
			}
			mu.Lock()
			if sent && !(progress > last) {
				mu.Unlock()
				return
			}
			last, sent = progress, true
			mu.Unlock()
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: progress, Total: max(total, 0), Message: msg})
		}
	} else if signal != nil {
		h.Progress = func(float64, float64, string) { signal() }
	}
	return h
}
