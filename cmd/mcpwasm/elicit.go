package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpwasm/mcpwasm/internal/termtext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// elicitHelp is the help of a client command's --elicit flag.
const elicitHelp = `how to answer a server's form elicitation (MCP "Client Features › Elicitation"): auto (ask on the terminal when stdin is one; otherwise the elicitation capability is not declared), ask, defaults (accept with the schema's defaults; decline if a required field has none), decline, or none (not declared)`

// elicitOptions returns the client options of --elicit mode: nil when the client declares no
// elicitation capability (it cannot answer). Only form elicitation is declared.
func elicitOptions(mode string, stdin io.Reader, stderr io.Writer) (*mcp.ClientOptions, error) {
	var h func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	switch mode {
	case "auto", "":
		if !stdinTerminal(stdin) {
			return nil, nil
		}
		h = (&terminalElicitor{in: bufio.NewReader(stdin), out: termtext.Writer{W: stderr}}).elicit
	case "ask":
		h = (&terminalElicitor{in: bufio.NewReader(stdin), out: termtext.Writer{W: stderr}}).elicit
	case "defaults":
		h = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "" && req.Params.Mode != "form" {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			content := map[string]any{}
			var missing []string
			for _, f := range formFields(req.Params.RequestedSchema) {
				if f.Default != nil {
					content[f.Name] = f.Default
				} else if f.Required {
					missing = append(missing, strconv.Quote(f.Name))
				}
			}
			if len(missing) > 0 {
				// Accepting without a required field is an answer the server must refuse;
				// declining says what happened, and the user learns why here.
				what := "required field " + missing[0] + " has"
				if len(missing) > 1 {
					what = "required fields " + strings.Join(missing, ", ") + " have"
				}
				fmt.Fprintf(stderr, "--elicit defaults: declined %q: %s no default (answer it with --elicit ask)\n", req.Params.Message, what)
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		}
	case "decline":
		h = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
	case "none":
		return nil, nil
	default:
		return nil, fmt.Errorf("--elicit: want auto, ask, defaults, decline or none, got %q", mode)
	}
	return &mcp.ClientOptions{
		Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: h,
	}, nil
}

// stdinTerminal reports whether r is a terminal.
func stdinTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isTerminal(f)
}

// formField is one property of a form elicitation's requestedSchema (a flat object of
// primitive properties, MCP 2025-11-25 "Elicitation › Requested Schema").
type formField struct {
	Name        string
	Type        string
	Title       string
	Description string
	Default     any
	Required    bool
	Choices     []string // enum values (or oneOf consts)
	Labels      []string // enumNames / oneOf titles, parallel to Choices
}

// formFields reads the properties of a requestedSchema in the order of its JSON encoding
// (alphabetical: the SDK hands the schema over decoded into a map).
func formFields(schema any) []formField {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(b, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(s.Properties)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var fields []formField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fields
		}
		name, _ := t.(string)
		var p struct {
			Type        string   `json:"type"`
			Title       string   `json:"title"`
			Description string   `json:"description"`
			Default     any      `json:"default"`
			Enum        []string `json:"enum"`
			EnumNames   []string `json:"enumNames"`
			OneOf       []struct {
				Const string `json:"const"`
				Title string `json:"title"`
			} `json:"oneOf"`
		}
		if dec.Decode(&p) != nil {
			return fields
		}
		f := formField{Name: name, Type: p.Type, Title: p.Title, Description: p.Description, Default: p.Default,
			Required: slices.Contains(s.Required, name), Choices: p.Enum, Labels: p.EnumNames}
		for _, o := range p.OneOf {
			f.Choices = append(f.Choices, o.Const)
			f.Labels = append(f.Labels, o.Title)
		}
		fields = append(fields, f)
	}
	return fields
}

// terminalElicitor answers form elicitations on a terminal: the message, then accept, decline
// or cancel, then one prompt per field (Enter takes the default; enums are numbered choices).
// Elicitations are asked one at a time.
type terminalElicitor struct {
	mu  sync.Mutex
	in  *bufio.Reader
	out io.Writer
}

var errEndOfInput = errors.New("end of input")

func (t *terminalElicitor) line() (string, error) {
	s, err := t.in.ReadString('\n')
	if err != nil && s == "" {
		return "", errEndOfInput
	}
	return strings.TrimSpace(s), nil
}

func (t *terminalElicitor) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := req.Params
	if p.Mode != "" && p.Mode != "form" {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	fmt.Fprintf(t.out, "\nThe server asks: %s\n", p.Message)
	fmt.Fprint(t.out, "Answer? [a]ccept, [d]ecline, [c]ancel: ")
	a, err := t.line()
	if err != nil {
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	switch strings.ToLower(a) {
	case "a", "accept", "y", "yes":
	case "c", "cancel":
		return &mcp.ElicitResult{Action: "cancel"}, nil
	default:
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	content := map[string]any{}
	for _, f := range formFields(p.RequestedSchema) {
		for {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			v, ok, err := t.ask(f)
			if errors.Is(err, errEndOfInput) {
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			if err != nil {
				fmt.Fprintf(t.out, "  %v\n", err)
				continue
			}
			if ok {
				content[f.Name] = v
			}
			break
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// ask prompts for one field; ok is false when it is left out (optional, no default).
func (t *terminalElicitor) ask(f formField) (any, bool, error) {
	label := cmp.Or(f.Title, f.Name)
	if f.Description != "" {
		fmt.Fprintf(t.out, "  %s — %s\n", label, f.Description)
	}
	for i, c := range f.Choices {
		name := c
		if i < len(f.Labels) && f.Labels[i] != "" {
			name = f.Labels[i] + " (" + c + ")"
		}
		fmt.Fprintf(t.out, "    %d) %s\n", i+1, name)
	}
	fmt.Fprintf(t.out, "  %s", label)
	if f.Default != nil {
		fmt.Fprintf(t.out, " [%v]", f.Default)
	} else if f.Required {
		fmt.Fprint(t.out, " (required)")
	}
	fmt.Fprint(t.out, ": ")
	s, err := t.line()
	if err != nil {
		return nil, false, err
	}
	if s == "" {
		if f.Default != nil {
			return f.Default, true, nil
		}
		if f.Required {
			return nil, false, fmt.Errorf("%s is required", label)
		}
		return nil, false, nil
	}
	if len(f.Choices) > 0 {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(f.Choices) {
			return f.Choices[n-1], true, nil
		}
		if slices.Contains(f.Choices, s) {
			return s, true, nil
		}
		return nil, false, fmt.Errorf("choose 1 to %d", len(f.Choices))
	}
	switch f.Type {
	case "boolean":
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, true, nil
		case "n", "no", "false":
			return false, true, nil
		}
		return nil, false, errors.New("answer y or n")
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, false, errors.New("enter a whole number")
		}
		return n, true, nil
	case "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, false, errors.New("enter a number")
		}
		return n, true, nil
	}
	return s, true, nil
}

// gatewayElicit finds the client a request or notification of an upstream belongs to, for
// that upstream's relay (upstream.Relay.Client, built in newUpstreams): the client whose
// gateway call to the upstream is in flight, when there is exactly one such client. Guests'
// calls to the same upstream are never relayed: only the gateway's calls are tracked.
var gatewayElicit = &elicitRouter{inflight: map[string][]gatewayCall{}}

type elicitRouter struct {
	logger *slog.Logger // set by exposeUpstreams before any upstream starts

	mu       sync.Mutex
	inflight map[string][]gatewayCall // upstream → gateway calls to it in flight, oldest first
}

// gatewayCall is one gateway call in flight: its client session and the call's context
// (over Streamable HTTP a request to the client travels on that call's stream).
type gatewayCall struct {
	ss  *mcp.ServerSession
	ctx context.Context
}

type downstreamKey struct{} // the *mcp.ServerSession of a tools/call (downstreamSession)
type gatewayKey struct{}    // the same, on a gateway call's context (track)

type progressKey struct{} // the progress token of a tools/call (downstreamSession)

// downstreamSession is a receiving middleware of our own server: it puts the session of a
// request (tools/call, prompts/get, resources/read, completion/complete, …) on the handler's
// context, and the progress token of a tools/call.
func downstreamSession(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ctx.Value(downstreamKey{}) == nil {
			ctx = context.WithValue(ctx, downstreamKey{}, ss)
			if c, ok := req.(*mcp.CallToolRequest); ok && c.Params != nil {
				if tok := c.Params.GetProgressToken(); tok != nil {
					ctx = context.WithValue(ctx, progressKey{}, tok)
				}
			}
		}
		return next(ctx, method, req)
	}
}

// track notes a gateway call to upstream name for the client on ctx; release ends it.
func (r *elicitRouter) track(ctx context.Context, name string) (context.Context, func()) {
	ss, _ := ctx.Value(downstreamKey{}).(*mcp.ServerSession)
	if ss == nil {
		return ctx, func() {}
	}
	ctx = context.WithValue(ctx, gatewayKey{}, ss)
	r.mu.Lock()
	r.inflight[name] = append(r.inflight[name], gatewayCall{ss, ctx})
	r.mu.Unlock()
	return ctx, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		l := r.inflight[name]
		if i := slices.IndexFunc(l, func(c gatewayCall) bool { return c.ctx == ctx }); i >= 0 {
			r.inflight[name] = slices.Delete(l, i, i+1)
		}
	}
}

// client returns upstream name's upstream.Relay.Client: a request fulfilled on the gateway
// call's own context (an input-required result, 2026-07-28) belongs to that call's client;
// any other goes to the one client with gateway calls to name in flight, on its newest call
// (with several clients, whose call it belongs to is unknown: none).
func (r *elicitRouter) client(name string) func(context.Context) (context.Context, *mcp.ServerSession) {
	return func(ctx context.Context) (context.Context, *mcp.ServerSession) {
		if ss, _ := ctx.Value(gatewayKey{}).(*mcp.ServerSession); ss != nil {
			return ctx, ss
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		l := r.inflight[name]
		if len(l) == 0 || slices.ContainsFunc(l, func(c gatewayCall) bool { return c.ss != l[0].ss }) {
			if r.logger != nil {
				r.logger.Debug("gateway: no single client call an upstream's request belongs to", "upstream", name, "calls", len(l))
			}
			return nil, nil
		}
		return l[len(l)-1].ctx, l[0].ss
	}
}
