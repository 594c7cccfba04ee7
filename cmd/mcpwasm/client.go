package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/oauth"
	"github.com/mcpwasm/mcpwasm/internal/progress"
	"github.com/mcpwasm/mcpwasm/internal/termtext"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/upstream"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExitToolError: `mcpwasm call` reached the tool and the tool failed (result.isError); the
// tool's text is printed as usual.
const ExitToolError = 4

// clientCommands are the commands client handles, with the name of their one positional
// argument before the optional JSON (empty: none).
var clientCommands = map[string]string{"tools": "", "resources": "", "prompts": "", "call": "TOOL", "read": "URI", "prompt": "NAME"}

// envFlags collects repeated --env NAME[=VALUE] flags (upstream.ChildEnv).
type envFlags []string

func (e *envFlags) String() string { return strings.Join(*e, " ") }

func (e *envFlags) Set(v string) error {
	if name, _, _ := strings.Cut(v, "="); name == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("want NAME=VALUE or NAME, got %q", v)
	}
	*e = append(*e, v)
	return nil
}

// headerFlags collects repeated --header K:V flags.
type headerFlags map[string]string

func (h headerFlags) String() string { return "" }

func (h headerFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, ":")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want NAME:VALUE, got %q", v)
	}
	h[strings.TrimSpace(k)] = strings.TrimSpace(val)
	return nil
}

// client runs one MCP client command against a server: it connects (spawning the command
// after "--", or over Streamable HTTP with --url), sends one request, prints the answer, and
// shuts the server down. Cancelling ctx (Ctrl-C) cancels the request on the wire
// (notifications/cancelled) before the session closes.
func client(ctx context.Context, cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	var command []string
	for i, a := range args {
		if a == "--" {
			args, command = args[:i], args[i+1:]
			break
		}
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "", "Streamable HTTP endpoint of the server")
	headers := headerFlags{}
	fs.Var(headers, "header", "HTTP header NAME:VALUE for --url (repeatable)")
	var env envFlags
	fs.Var(&env, "env", "NAME=VALUE or NAME: environment of the spawned server besides "+strings.Join(upstream.BaseEnv, ", ")+" (repeatable)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	timeout := fs.Duration("timeout", 60*time.Second, "time limit of the request")
	connectTimeout := fs.Duration("connect-timeout", 30*time.Second, "time limit of connecting (start, initialize)")
	logLevel := fs.String("log-level", "warn", "stderr log level: debug, info, warn or error")
	af := addAuthFlags(fs)
	elicit := fs.String("elicit", "auto", elicitHelp)
	serverLogs := fs.Bool("server-logs", false, "show all of a spawned server's stderr (by default only its warnings, errors and compile notice, and its last lines if it fails to start)")
	pos, err := parseArgs(fs, args) // flags and positional arguments may be interleaved
	if err != nil {
		return ExitUsage, err
	}
	if err := checkClientArgs(cmd, pos); err != nil {
		return ExitUsage, err
	}
	switch {
	case len(command) == 0 && *url == "":
		return ExitUsage, errors.New("missing SERVER: give it as -- CMD ARGS... or --url URL")
	case len(command) > 0 && *url != "":
		return ExitUsage, errors.New("give the server as -- CMD ARGS... or --url URL, not both")
	}
	if *url != "" {
		if err := checkServerURL(*url); err != nil {
			return ExitUsage, fmt.Errorf("--url: %w", err)
		}
	}
	co, err := elicitOptions(*elicit, stdin, stderr)
	if err != nil {
		return ExitUsage, err
	}
	if cmd == "call" {
		co = withTasks(co) // a server may answer with a task (tasks.go)
	}
	hf := hostFlags{logLevel: *logLevel}
	logger, err := hf.logger(stderr)
	if err != nil {
		return ExitUsage, err
	}
	var jsonArgs json.RawMessage // sent verbatim: no number is rounded (exact.go)
	if len(pos) == 2 {
		text := []byte(pos[1])
		if file, ok := strings.CutPrefix(pos[1], "@"); ok { // @FILE: arguments too long for a command line
			if text, err = readArgsFile(file); err != nil {
				return ExitUsage, fmt.Errorf("arguments: %w", err)
			}
		}
		if jsonArgs = objectJSON(text); jsonArgs == nil {
			return ExitUsage, fmt.Errorf("arguments must be a JSON object: %s", abbreviate(text))
		}
	}
	spec := upstream.Spec{Command: command, URL: *url, Headers: headers, Env: env}
	if *url != "" {
		h, release, err := clientOAuth(af, *url, stderr, logger)
		if err != nil {
			return ExitUsage, err
		}
		defer release()
		spec.OAuth = &bearerHint{inner: h, url: *url, hasHeader: hasAuthorization(headers)} // bearerhint.go
		spec.WrapTransport = oauth.WrapTransport(h)                                         // DPoP proofs
	}
	var serverStderr io.Writer = stderr
	tail := &tailBuffer{max: 4 << 10}
	if !*serverLogs {
		serverStderr = withNotices(tail, stderr) // its warnings still show (notice.go)
	}
	bar := progress.New(stderr, isTerminal(stderr))
	sess, err := upstream.Dial(ctx, spec, &upstream.Options{Version: version(), Logger: sdkLogger(logger), Client: co,
		ConnectTimeout: *connectTimeout, Stderr: serverStderr})
	if err != nil {
		if ctx.Err() != nil {
			return ExitError, errors.New("interrupted")
		}
		if t := tail.String(); t != "" {
			err = fmt.Errorf("%w\nthe server's last stderr lines (all of them with --server-logs):\n%s", err, strings.TrimRight(t, "\n"))
		}
		return ExitError, err
	}
	defer sess.Close()
	if !*asJSON && isTerminal(stdout) {
		// What the server wrote is shown, not obeyed: its escape sequences, C1 and bidi
		// controls appear escaped (termtext). To a pipe or a file, and with --json, the
		// bytes are the server's.
		stdout = termtext.Writer{W: stdout}
	}
	rctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	code, err := clientRequest(rctx, sess, cmd, pos, jsonArgs, *asJSON, stdout, bar, func(ctx context.Context, t *upstream.Task) (*upstream.ExactResult, error) {
		return followTask(ctx, sess, t, co, stderr)
	})
	if err != nil && ctx.Err() != nil {
		return ExitError, errors.New("interrupted; the request was cancelled")
	}
	if err != nil && rctx.Err() != nil {
		return ExitError, fmt.Errorf("no answer within %v; the request was cancelled", *timeout)
	}
	return code, err
}

// checkClientArgs checks the positional arguments of a client command: its one named
// argument (TOOL, URI, NAME) if it has one, then JSON arguments for call and prompt.
func checkClientArgs(cmd string, pos []string) error {
	name := clientCommands[cmd]
	max := 0
	switch cmd {
	case "call", "prompt":
		max = 2
	case "read":
		max = 1
	}
	switch {
	case name != "" && len(pos) == 0:
		return fmt.Errorf("missing %s", name)
	case len(pos) > max:
		return fmt.Errorf("unexpected argument %q (the server comes after --, or as --url URL)", pos[max])
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it (whole lines where it can).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		cut := over
		if i := bytes.IndexByte(t.b[over:], '\n'); i >= 0 && over+i+1 < len(t.b) {
			cut = over + i + 1
		}
		t.b = append(t.b[:0], t.b[cut:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// A tools/call answered with a task (the tasks extension) is followed by follow, whose result
// is printed as the call's.
func clientRequest(ctx context.Context, sess *upstream.Session, cmd string, pos []string, args json.RawMessage, asJSON bool, w io.Writer, bar *progress.Printer, follow func(context.Context, *upstream.Task) (*upstream.ExactResult, error)) (int, error) {
	var out any
	code := ExitOK
	var err error
	switch cmd {
	case "tools":
		var tools []*mcp.Tool
		if tools, err = sess.AllTools(ctx); err == nil {
			out = map[string]any{"tools": orEmpty(tools)}
			if !asJSON {
				printTools(w, tools)
			}
		}
	case "resources":
		var rs []*mcp.Resource
		var ts []*mcp.ResourceTemplate
		if rs, err = sess.AllResources(ctx); err == nil {
			ts, err = resourceTemplates(ctx, sess)
		}
		if err == nil {
			out = map[string]any{"resources": orEmpty(rs), "resourceTemplates": orEmpty(ts)}
			if !asJSON {
				printResources(w, rs, ts)
			}
		}
	case "prompts":
		var ps []*mcp.Prompt
		if ps, err = sess.AllPrompts(ctx); err == nil {
			out = map[string]any{"prompts": orEmpty(ps)}
			if !asJSON {
				printPrompts(w, ps)
			}
		}
	case "call":
		if ir := sess.InitializeResult(); ir != nil && mcpserver.ProtocolAtLeast(ir.ProtocolVersion, "2026-07-28") {
			// The SDK mirrors the parameters a tool's schema marks x-mcp-header into
			// Mcp-Param-* headers (SEP-2243), from the schemas of a tools/list.
			if _, err := sess.AllTools(ctx); err != nil {
				return ExitError, err
			}
		}
		// At 2025-11-25 a tool that requires a task gets the "task" param of that revision's
		// tasks utility (SEP-1686), which such a server needs (a tasks-extension server ignores
		// it); from 2026-07-28 the extension, declared by withTasks, needs nothing per call.
		call := sess.CallToolExact
		if ir := sess.InitializeResult(); ir != nil && ir.ProtocolVersion == "2025-11-25" {
			if support, err := sess.ToolTaskSupport(ctx, pos[0]); err == nil && support == "required" {
				call = func(ctx context.Context, name string, args json.RawMessage, _ string, progress func(*mcp.ProgressNotificationParams)) (*upstream.ExactResult, error) {
					return sess.CallToolAsTask(ctx, name, args, progress)
				}
			}
		}
		var res *upstream.ExactResult
		res, err = call(ctx, pos[0], orEmptyObject(args), "", func(n *mcp.ProgressNotificationParams) {
			bar.Step(n.Progress, n.Total, n.Message)
		})
		bar.Done()
		if err == nil {
			if t, ok := upstream.CreatedTask(res.Raw); ok {
				res, err = follow(ctx, t)
			}
		}
		if err == nil {
			out = json.RawMessage(res.Raw)
			if res.IsError {
				code = ExitToolError
			}
			if !asJSON {
				printContent(w, res.Content)
				if sc := structuredJSON(res.Raw); sc != nil && !textHolds(res.Content, sc) {
					fmt.Fprintf(w, "%s\n", sc)
				}
			}
		}
	case "read":
		var res *mcp.ReadResourceResult
		if res, err = sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: pos[0]}); err == nil {
			out = res
			if !asJSON {
				for _, c := range res.Contents {
					printResourceContents(w, c)
				}
			}
		} else {
			err = fmt.Errorf("%s: %w", pos[0], err) // the SDK's "Resource not found" does not say which
		}
	case "prompt":
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(args, &fields) // args is nil or a valid object (objectJSON)
		sargs := map[string]string{}
		for k, v := range fields {
			var s string
			if json.Unmarshal(v, &s) == nil {
				sargs[k] = s
			} else {
				sargs[k] = string(v) // a non-string as its JSON, numbers exactly as given
			}
		}
		var res *mcp.GetPromptResult
		if res, err = sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: pos[0], Arguments: sargs}); err == nil {
			out = res
			if !asJSON {
				if res.Description != "" {
					fmt.Fprintf(w, "# %s\n", res.Description)
				}
				for _, m := range res.Messages {
					fmt.Fprintf(w, "%s: ", m.Role)
					printContent(w, []mcp.Content{m.Content})
				}
			}
		}
	}
	if err != nil {
		return ExitError, err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return ExitError, err
		}
	}
	return code, nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func orEmptyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func orEmptyObject(b json.RawMessage) json.RawMessage {
	if b == nil {
		return json.RawMessage("{}")
	}
	return b
}

// objectJSON returns s compacted if it is one JSON object, else nil. Numbers keep their
// exact digits.
func objectJSON(s []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, s) != nil || b.Len() == 0 || b.Bytes()[0] != '{' {
		return nil
	}
	return b.Bytes()
}

// maxArgsFile bounds what @FILE reads: arguments over it are refused before a byte is sent.
const maxArgsFile = 64 << 20

// readArgsFile reads the arguments file of @FILE, at most maxArgsFile bytes.
func readArgsFile(name string) ([]byte, error) {
	if name == "" {
		return nil, errors.New("@ needs a file name: @FILE")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxArgsFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > maxArgsFile {
		return nil, fmt.Errorf("%s is over %d MiB", name, maxArgsFile>>20)
	}
	return b, nil
}

// abbreviate is b for an error message: its first 200 bytes, and "…" if there were more;
// "(empty)" for none.
func abbreviate(b []byte) string {
	if len(b) == 0 {
		return "(empty)"
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// structuredJSON returns the structuredContent of a raw CallToolResult, or nil.
func structuredJSON(raw []byte) json.RawMessage {
	var r struct {
		SC json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(raw, &r) != nil || len(r.SC) == 0 || string(r.SC) == "null" {
		return nil
	}
	return r.SC
}

// textHolds reports whether a text block of cs is the JSON sc (as a tool that returns
// structured content also returns it, MCP "Server Features › Tools › Structured Content"),
// whitespace aside: printing sc after it would print it twice.
func textHolds(cs []mcp.Content, sc json.RawMessage) bool {
	var want bytes.Buffer
	if json.Compact(&want, sc) != nil {
		return false
	}
	for _, c := range cs {
		if t, ok := c.(*mcp.TextContent); ok {
			var got bytes.Buffer
			if json.Compact(&got, []byte(t.Text)) == nil && bytes.Equal(got.Bytes(), want.Bytes()) {
				return true
			}
		}
	}
	return false
}

// resourceTemplates lists the server's resource templates; a server without resources, or
// one that does not implement resources/templates/list (-32601), has none.
func resourceTemplates(ctx context.Context, sess *upstream.Session) ([]*mcp.ResourceTemplate, error) {
	if ir := sess.InitializeResult(); ir != nil && (ir.Capabilities == nil || ir.Capabilities.Resources == nil) {
		return nil, nil
	}
	ts, err := sess.AllResourceTemplates(ctx)
	if je := (*jsonrpc.Error)(nil); errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound {
		return nil, nil
	}
	return ts, err
}

// printResources prints one resource per line (URI, name, MIME type), then one template per
// line (URI template, name, MIME type).
func printResources(w io.Writer, rs []*mcp.Resource, ts []*mcp.ResourceTemplate) {
	line := func(uri, name, mime string) {
		fmt.Fprintf(w, "%s\t%s", uri, name)
		if mime != "" {
			fmt.Fprintf(w, "\t%s", mime)
		}
		fmt.Fprintln(w)
	}
	for _, r := range rs {
		line(r.URI, r.Name, r.MIMEType)
	}
	for _, t := range ts {
		line(t.URITemplate, t.Name, t.MIMEType)
	}
}

func printTools(w io.Writer, tools []*mcp.Tool) {
	for _, t := range tools {
		fmt.Fprintf(w, "%s(%s)", t.Name, strings.Join(toolArgs(t.InputSchema), ", "))
		if t.Title != "" {
			fmt.Fprintf(w, " — %s", t.Title)
		}
		fmt.Fprintln(w)
		if d := firstLine(t.Description); d != "" {
			fmt.Fprintf(w, "    %s\n", d)
		}
	}
}

// toolArgs names a tool's arguments from its input schema: the required ones in the
// schema's order, then the optional ones, sorted, each marked "?".
func toolArgs(schema any) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	b, err := json.Marshal(schema)
	if err != nil || json.Unmarshal(b, &s) != nil {
		return nil
	}
	var args, optional []string
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; ok && !slices.Contains(args, r) {
			args = append(args, r)
		}
	}
	for p := range s.Properties {
		if !slices.Contains(args, p) {
			optional = append(optional, p+"?")
		}
	}
	slices.Sort(optional)
	return append(args, optional...)
}

func printPrompts(w io.Writer, ps []*mcp.Prompt) {
	for _, p := range ps {
		fmt.Fprintf(w, "%s", p.Name)
		var as []string
		for _, a := range p.Arguments {
			s := a.Name
			if !a.Required {
				s += "?"
			}
			as = append(as, s)
		}
		if len(as) > 0 {
			fmt.Fprintf(w, "(%s)", strings.Join(as, ", "))
		}
		fmt.Fprintln(w)
		if d := firstLine(p.Description); d != "" {
			fmt.Fprintf(w, "    %s\n", d)
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// printContent prints text blocks as they are and other blocks as one bracketed line.
func printContent(w io.Writer, cs []mcp.Content) {
	for _, c := range cs {
		switch c := c.(type) {
		case *mcp.TextContent:
			fmt.Fprintln(w, c.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes]\n", c.MIMEType, len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %d bytes]\n", c.MIMEType, len(c.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(w, "[resource link %s]\n", c.URI)
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				printResourceContents(w, c.Resource)
			}
		default:
			b, _ := json.Marshal(c)
			fmt.Fprintf(w, "%s\n", b)
		}
	}
}

func printResourceContents(w io.Writer, c *mcp.ResourceContents) {
	if c.Blob != nil {
		fmt.Fprintf(w, "[blob %s %s, %d bytes]\n", c.URI, c.MIMEType, len(c.Blob))
		return
	}
	fmt.Fprintln(w, c.Text)
}
