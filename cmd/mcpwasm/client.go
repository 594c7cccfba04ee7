package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime/upstream"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExitToolError: `mcpwasm call` reached the tool and the tool failed (result.isError); the
// tool's text is printed as usual.
const ExitToolError = 4

// clientUsage lists the client commands; run adds it to usage.
const clientUsage = `  mcpwasm tools [flags] SERVER              list a server's tools
  mcpwasm call [flags] TOOL [JSON] SERVER    call a tool with JSON object arguments
  mcpwasm resources|prompts [flags] SERVER   list a server's resources (and templates) or prompts
  mcpwasm read [flags] URI SERVER            read a resource
  mcpwasm prompt [flags] NAME [JSON] SERVER  get a prompt (JSON: string arguments)
    SERVER is "-- CMD ARGS..." (spawned, stdio) or "--url URL [--header K:V]..." (Streamable HTTP);
    flags: --json, --timeout 60s (per request), --connect-timeout 30s, --log-level warn,
    --env NAME[=VALUE] (repeatable; the spawned server otherwise gets only HOME, PATH, USER,
    LOGNAME, SHELL, TERM, TMPDIR and LANG)
`

// clientCommands are the commands client handles.
var clientCommands = map[string]int{"tools": 0, "resources": 0, "prompts": 0, "call": 1, "read": 1, "prompt": 1}

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
func client(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) (int, error) {
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
	fs.Var(&env, "env", "NAME=VALUE or NAME: environment of the spawned server besides HOME, PATH, USER, LOGNAME, SHELL, TERM, TMPDIR and LANG (repeatable)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	timeout := fs.Duration("timeout", 60*time.Second, "time limit of the request")
	connectTimeout := fs.Duration("connect-timeout", 30*time.Second, "time limit of connecting (start, initialize)")
	logLevel := fs.String("log-level", "warn", "stderr log level: debug, info, warn or error")
	// Flags and positional arguments may be interleaved.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return ExitUsage, nil
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	want := clientCommands[cmd]
	if len(pos) < want || len(pos) > want+1 || len(pos) > want && (cmd == "read" || want == 0) {
		fmt.Fprintf(stderr, "usage:\n%s", clientUsage)
		return ExitUsage, nil
	}
	if (len(command) > 0) == (*url != "") {
		fmt.Fprintf(stderr, "mcpwasm %s: give the server as -- CMD ARGS... or --url URL\n", cmd)
		return ExitUsage, nil
	}
	hf := hostFlags{logLevel: *logLevel}
	logger, err := hf.logger(stderr)
	if err != nil {
		return ExitUsage, err
	}
	var jsonArgs json.RawMessage // sent verbatim: no number is rounded (exact.go)
	if want == 1 && len(pos) == 2 {
		if jsonArgs = objectJSON(pos[1]); jsonArgs == nil {
			return ExitUsage, fmt.Errorf("arguments must be a JSON object: %s", pos[1])
		}
	}
	spec := upstream.Spec{Command: command, URL: *url, Headers: headers, Env: env}
	progress := newProgressPrinter(stderr)
	sess, err := upstream.Dial(ctx, spec, &upstream.Options{Version: version(), Logger: sdkLogger(logger),
		ConnectTimeout: *connectTimeout, Stderr: stderr})
	if err != nil {
		if ctx.Err() != nil {
			return ExitError, errors.New("interrupted")
		}
		return ExitError, err
	}
	defer sess.Close()
	rctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	code, err := clientRequest(rctx, sess, cmd, pos, jsonArgs, *asJSON, stdout, progress)
	if err != nil && ctx.Err() != nil {
		return ExitError, errors.New("interrupted; the request was cancelled")
	}
	if err != nil && rctx.Err() != nil {
		return ExitError, fmt.Errorf("no answer within %v; the request was cancelled", *timeout)
	}
	return code, err
}

func clientRequest(ctx context.Context, sess *upstream.Session, cmd string, pos []string, args json.RawMessage, asJSON bool, w io.Writer, progress *progressPrinter) (int, error) {
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
		var res *upstream.ExactResult
		res, err = sess.CallToolExact(ctx, pos[0], orEmptyObject(args), "", progress.notify)
		progress.done()
		if err == nil {
			out = json.RawMessage(res.Raw)
			if res.IsError {
				code = ExitToolError
			}
			if !asJSON {
				printContent(w, res.Content)
				if sc := structuredJSON(res.Raw); len(res.Content) == 0 && sc != nil {
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
func objectJSON(s string) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil || b.Len() == 0 || b.Bytes()[0] != '{' {
		return nil
	}
	return b.Bytes()
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
		fmt.Fprintf(w, "%s", t.Name)
		if t.Title != "" {
			fmt.Fprintf(w, " — %s", t.Title)
		}
		fmt.Fprintln(w)
		if d := firstLine(t.Description); d != "" {
			fmt.Fprintf(w, "    %s\n", d)
		}
	}
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
