package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// command is one mcpwasm subcommand: its help text and the function that runs it. The
// table below is the single list of commands; run, help and completion read it.
type command struct {
	Name     string
	Args     string // the synopsis after the name, e.g. "[flags] GUEST.wasm"
	Short    string // one line for the command list
	Long     string // paragraphs for `mcpwasm help NAME`
	Examples string // one command per line, comments allowed
	// Run runs the command with the arguments after its name.
	Run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error)
	// NoFlags: the command has no flag set, so help lists none (Run is not asked for them).
	NoFlags bool
}

const serverHelp = `SERVER is "-- CMD ARGS..." (a server spawned over stdio; its stderr is hidden unless
--server-logs, except warnings, errors and the compile notice, shown as "server: ...", and
its last lines are shown if it fails to start) or "--url URL
[--header K:V]..." (Streamable HTTP). Human output by default, --json for scripts.
Ctrl-C cancels the request (notifications/cancelled) and shuts a spawned server down.`

func clientRun(name string) func(context.Context, []string, io.Reader, io.Writer, io.Writer) (int, error) {
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
		return client(ctx, name, args, stdin, stdout, stderr)
	}
}

var commands []*command

func init() {
	commands = []*command{
		{Name: "serve", Args: "[flags] [GUEST.wasm ...]", Short: "serve guests over MCP stdio (no guests, no config: the bundled ones)",
			Long: `Serves the tools, resources and prompts of WebAssembly guests over MCP: stdio by default,
Streamable HTTP with --http. Guests come from --config (with their grants) and from the
arguments (with no grants); with neither, the bundled calc and text guests are served.
stdout carries only MCP messages; logs go to stderr. Exit codes: 0 ok (also when the
client closes stdin or stdout), 1 runtime error, 2 usage, 3 a guest failed to load, 5 --http
on a non-loopback address without a bearer token (see --allow-public-without-token).`,
			Examples: `mcpwasm serve
mcpwasm serve tool.wasm other.wasm
mcpwasm serve --config mcpwasm.json --watch
mcpwasm serve --http :8080 --config mcpwasm.json`,
			Run: serve},
		{Name: "inspect", Args: "[--config FILE] [--json] [GUEST.wasm]", Short: "show a guest's manifest, tools, schemas, requested and granted capabilities",
			Long: `Loads one guest and prints its name, version, digest, tools with their schemas and
annotations, and the capabilities it requests. With --config, also what the config grants
each tool and what is effective (granted ∩ requested); --config alone then reports the tool
names serve would refuse to serve twice, and exits 3 as serve would.`,
			Examples: `mcpwasm inspect tool.wasm
mcpwasm inspect --json tool.wasm | jq -r .sha256     # the digest to pin in a config
mcpwasm inspect --config mcpwasm.json /tmp/g/files.wasm    # after guests/granted.sh /tmp/g
mcpwasm inspect --config mcpwasm.json    # every guest of the config, with its effective grants`,
			Run: func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
				return inspect(ctx, args, stdout, stderr)
			}},
		{Name: "tools", Args: "[flags] SERVER", Short: "list a server's tools with their arguments",
			Long: "Lists the tools of any MCP server: name(arguments, optional?) — title, then the description's first line.\n\n" + serverHelp,
			Examples: `mcpwasm tools -- mcpwasm serve
mcpwasm tools --json -- mcpwasm serve tool.wasm
mcpwasm tools --url http://127.0.0.1:8080/mcp --header "Authorization: Bearer $TOKEN"`,
			Run: clientRun("tools")},
		{Name: "call", Args: "[flags] TOOL [JSON|@FILE] SERVER", Short: "call a tool with JSON object arguments (exit 4 if the tool reports an error)",
			Long: "Calls TOOL with the arguments JSON (an object; default {}; @FILE reads it from FILE, for\narguments longer than a command line takes) and prints its result: text\nblocks as they are, other blocks as one bracketed line, then the structured content as\nJSON unless a text block already holds it (--json: the whole result). Exit code 4 when\nthe tool reports an error.\n\n" + serverHelp,
			Examples: `mcpwasm call calc '{"expression":"1+2"}' -- mcpwasm serve
mcpwasm call --json sha256 '{"text":"abc"}' -- mcpwasm serve
mcpwasm call sha256 @args.json -- mcpwasm serve
mcpwasm call calc '{"expression":"1+2"}' --url http://127.0.0.1:8080/mcp`,
			Run: clientRun("call")},
		{Name: "resources", Args: "[flags] SERVER", Short: "list a server's resources",
			Long:     "Lists the resources of any MCP server: URI, name and MIME type.\n\n" + serverHelp,
			Examples: `mcpwasm resources -- mcpwasm serve`,
			Run:      clientRun("resources")},
		{Name: "read", Args: "[flags] URI SERVER", Short: "read a resource",
			Long:     "Reads the resource URI and prints its text (or a line describing a blob).\n\n" + serverHelp,
			Examples: `mcpwasm read calc://reference -- mcpwasm serve`,
			Run:      clientRun("read")},
		{Name: "prompts", Args: "[flags] SERVER", Short: "list a server's prompts",
			Long:     "Lists the prompts of any MCP server: name(arguments, optional?) and description.\n\n" + serverHelp,
			Examples: `mcpwasm prompts -- mcpwasm serve`,
			Run:      clientRun("prompts")},
		{Name: "prompt", Args: "[flags] NAME [JSON|@FILE] SERVER", Short: "get a prompt (JSON: its string arguments)",
			Long:     "Gets the prompt NAME with the arguments JSON (an object; non-string values are sent as\ntheir JSON text) and prints its messages.\n\n" + serverHelp,
			Examples: `mcpwasm prompt explain '{"expression":"2^10"}' -- mcpwasm serve`,
			Run:      clientRun("prompt")},
		{Name: "pull", Args: "[--config FILE] [flags]", Short: "fetch the config's URL and OCI guests into the store and lock them (mcpwasm.lock)",
			Long: `Fetches every guest of the config whose path is an https:// URL or an oci:// reference into
the content-addressed store (the user cache dir's mcpwasm/store), verifying signatures where
the config asks, and records in mcpwasm.lock, beside the config, for every guest (local
files too) what its source resolved to, the module's SHA-256 and a digest of each tool's
definition. A guest already locked must
still resolve to what is locked: a moved tag or changed bytes is an error naming the guest
(review and accept with 'mcpwasm lock --update'). serve then uses exactly the locked bytes,
from the store, without the network. The lock is the directory's: every config in it is held
to the same mcpwasm.lock, and pull with each adds its guests. Registry credentials come from
the Docker config file.`,
			Examples: `mcpwasm pull --config mcpwasm.json
mcpwasm pull --config mcpwasm.json --plain-http 127.0.0.1:5000   # a local test registry`,
			Run: pull},
		{Name: "lock", Args: "--update [--config FILE] [flags]", Short: "re-resolve every guest, print what changed tool by tool, and approve it",
			Long: `Re-resolves every guest of the config (tags, URLs, files), loads each, and prints per guest
what changed since the lock, tool by tool: added, removed, or which fields changed
(description, inputSchema, outputSchema, title, annotations, icons, requests). Writing the
new lock approves the changes: tools that differ from the lock are withheld by serve until
then.`,
			Examples: `mcpwasm lock --update --config mcpwasm.json`,
			Run:      lockCmd},
		{Name: "push", Args: "[flags] GUEST.wasm oci://REGISTRY/REPO:TAG", Short: "publish a guest to an OCI registry (Wasm OCI artifact layout)",
			Long: `Pushes GUEST.wasm as a Wasm OCI artifact (config application/vnd.wasm.config.v0+json, one
application/wasm layer) with the guest's name, version and description as
org.opencontainers.image.* annotations, and prints the reference by digest. Credentials
come from the Docker config file ('docker login' or 'oras login' writes it).`,
			Examples: `mcpwasm push tool.wasm oci://ghcr.io/acme/tool:1.0.0
mcpwasm push --plain-http 127.0.0.1:5000 tool.wasm oci://127.0.0.1:5000/tool:dev`,
			Run: push},
		{Name: "login", Args: "[flags] URL", Short: "authorize mcpwasm at an OAuth-protected MCP server and store the token",
			Long: `Runs the OAuth 2.1 authorization code flow (PKCE, RFC 8707 resource) against the MCP
server at URL: discovers its authorization server (RFC 9728, RFC 8414), registers this client
(a client ID metadata document, --client-id, or dynamic registration), prints the
authorization URL and opens it ($BROWSER, xdg-open or open), and waits for the redirect on a
127.0.0.1 listener. The token is stored per server in the user config directory
(mcpwasm/tokens.json, mode 0600) and used — and refreshed — by the client commands with --url
and by url upstreams. With --client-credentials, checks the client credentials grant instead.`,
			Examples: `mcpwasm login https://mcp.example.com/mcp
mcpwasm login --client-id my-app --client-secret-env MY_SECRET https://mcp.example.com/mcp`,
			Run: func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
				return login(ctx, args, stdout, stderr)
			}},
		{Name: "logout", Args: "URL", Short: "forget the OAuth token stored for an MCP server",
			Long:     "Removes the token that login (or a client command) stored for the MCP server at URL.",
			Examples: `mcpwasm logout https://mcp.example.com/mcp`,
			Run: func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
				return logout(ctx, args, stdout, stderr)
			}},
		{Name: "new", Args: "[--sdk DIR] go|c|rust|wat|ts|js NAME [DIR]", Short: "create a guest project that builds with one command and has a test",
			Long: `Creates a guest project for the language in DIR (default ./NAME): a one-tool guest, a
build script and a test that loads the built guest through mcpwasm's runtime. The README in
the project says how to build and test it. ts and js make an npm project instead: a server
file written for the MCP TypeScript SDK, and one command (npm run build) that bundles it into
NAME.wasm with the pinned JavaScript engine; --sdk does not apply.`,
			Examples: `mcpwasm new --sdk ~/src/mcpwasm go greet     # a local checkout of the SDK (required until one is published)
mcpwasm new --sdk ~/src/mcpwasm wat greet /tmp/greet
mcpwasm new go greet                         # a released mcpwasm: its own version of the SDK
mcpwasm new ts greet                         # then: cd greet && npm ci && npm run build`,
			Run: newProject},
		{Name: "build", Args: "[-o OUT.wasm] [--strict] [--toolchain DIR] [--lock FILE] DIR|FILE.js|FILE.ts|npm:NAME[@VERSION]", Short: "build a JavaScript/TypeScript MCP server (a file, a project, an npm package) into one sandboxed .wasm",
			Long: `Bundles an MCP server written for the TypeScript SDK into one .wasm for the JavaScript
kind: a server file (a path without an extension is resolved as Node does: PATH.js, .mjs,
.cjs, .ts, .mts, .cts, a directory's index file), a project directory (what its npm run
build does), an installed npm package directory (its "bin" script), or npm:NAME[@VERSION],
installed without install scripts into a private temporary project; the exact versions npm
resolved are written beside the output as OUT.lock.json, and --lock OUT.lock.json repeats
that install. A project's packages are bundled once (the shim takes the project's zod 4). A
package's own files (its package.json, what it reads by import.meta.url or __dirname) are
embedded read-only (at most --embed-max bytes). Node built-ins with a sandbox meaning go
through the operator's grants; one without (http, child_process, …) is a stub that throws on
use, listed as a warning (--strict: an error). Prints what the server asks for and a config
entry to serve it with. Needs node; the pinned esbuild, engine and zod are installed once
into the user cache (npm ci) unless --toolchain names a directory whose node_modules has them.
Arguments are not built in: give them in the config's "args".`,
			Examples: `mcpwasm build npm:@modelcontextprotocol/server-brave-search@0.6.2 -o brave.wasm
mcpwasm build --lock brave.lock.json npm:@modelcontextprotocol/server-brave-search -o brave.wasm
mcpwasm build ./node_modules/@modelcontextprotocol/server-filesystem -o files.wasm
mcpwasm build server.ts                      # a file of a project made by mcpwasm new`,
			Run: buildCmd},
		{Name: "import", Args: "[-o FILE] hyper-mcp CONFIG.json", Short: "convert a hyper-mcp config into an mcpwasm config and show what it grants",
			Long: `Reads a hyper-mcp configuration (JSON or YAML) and writes the mcpwasm configuration that
serves the same plugins: each plugin becomes a guest of the same name and path, allowed_hosts
become net grants, allowed_paths fs grants (read-write, as hyper-mcp mounts them), env_vars
the guest's config (what config_get reads), memory_limit the memory limit. On stderr it prints
what each guest is granted and what was not carried over (skip_tools, allowed_secrets, auths)
or behaves differently under mcpwasm.`,
			Examples: `mcpwasm import hyper-mcp ~/.config/hyper-mcp/config.json > mcpwasm.json
mcpwasm import -o mcpwasm.json hyper-mcp config.yaml`,
			Run: importCmd},
		{Name: "version", Short: "print the versions of mcpwasm, the ABI, Go, wazero and the MCP SDK",
			Examples: `mcpwasm version`, NoFlags: true,
			Run: func(_ context.Context, args []string, _ io.Reader, stdout, _ io.Writer) (int, error) {
				if len(args) > 0 {
					return ExitUsage, fmt.Errorf("unexpected argument %q", args[0])
				}
				fmt.Fprintln(stdout, versionLine())
				return ExitOK, nil
			}},
		{Name: "help", Args: "[COMMAND]", Short: "show the commands, or one command's synopsis, flags and examples",
			Examples: "mcpwasm help\nmcpwasm help call", NoFlags: true,
			Run: func(_ context.Context, args []string, _ io.Reader, stdout, _ io.Writer) (int, error) {
				switch len(args) {
				case 0:
					fmt.Fprint(stdout, usage())
					return ExitOK, nil
				case 1:
					c := lookup(args[0])
					if c == nil {
						return ExitUsage, fmt.Errorf("unknown command %q (commands: %s)", args[0], strings.Join(commandNames(), ", "))
					}
					printHelp(stdout, c)
					return ExitOK, nil
				}
				return ExitUsage, fmt.Errorf("unexpected argument %q", args[1])
			}},
		{Name: "completion", Args: "bash|zsh|fish", Short: "print a shell completion script",
			Long:     `Prints a completion script for mcpwasm in bash, zsh or fish: commands, each command's flags, new's languages, and file names.`,
			Examples: "source <(mcpwasm completion bash)                       # this shell\nmcpwasm completion bash > ~/.local/share/bash-completion/completions/mcpwasm\nsource <(mcpwasm completion zsh)                        # zsh, after compinit\nmcpwasm completion zsh > \"${fpath[1]}/_mcpwasm\"\nmcpwasm completion fish > ~/.config/fish/completions/mcpwasm.fish",
			NoFlags:  true,
			Run: func(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) (int, error) {
				script := map[string]func() string{"bash": func() string { return bashCompletion(ctx) }, "zsh": zshCompletion, "fish": fishCompletion}
				if len(args) != 1 || script[args[0]] == nil {
					return ExitUsage, fmt.Errorf("want: mcpwasm completion bash, zsh or fish")
				}
				fmt.Fprint(stdout, script[args[0]]())
				return ExitOK, nil
			}},
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func commandNames() []string {
	var names []string
	for _, c := range commands {
		names = append(names, c.Name)
	}
	return names
}

// usage is the command list: `mcpwasm help`, and stderr for a bad command line.
func usage() string {
	var b strings.Builder
	b.WriteString("mcpwasm runs MCP tools as WebAssembly guests, and talks to MCP servers.\n\nusage:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  mcpwasm %-11s %s\n", c.Name, c.Short)
	}
	b.WriteString("\nRun 'mcpwasm help COMMAND' or 'mcpwasm COMMAND -h' for a command's synopsis, flags and examples.\n")
	return b.String()
}

// wantsHelp reports whether args (a command's arguments) ask for its help: -h, -help or
// --help before any "--" (what follows "--" is a server's command line).
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

func printHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: mcpwasm %s", c.Name)
	if c.Args != "" {
		fmt.Fprintf(w, " %s", c.Args)
	}
	fmt.Fprintf(w, "\n\n%s\n", c.Short)
	if c.Long != "" {
		fmt.Fprintf(w, "\n%s\n", c.Long)
	}
	if f := flagHelp(c); f != "" {
		fmt.Fprintf(w, "\nflags:\n%s", f)
	}
	if c.Examples != "" {
		fmt.Fprintf(w, "\nexamples:\n")
		for _, l := range strings.Split(c.Examples, "\n") {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

// flagHelp returns the flag listing of c's own flag set. Each command defines its flags
// where it parses them, so the listing is taken by running it with -h (the flag package
// prints "Usage of NAME:" and the defaults, then stops): a flag added to a command shows
// in its help with no second list to keep in step.
func flagHelp(c *command) string {
	if c.NoFlags {
		return ""
	}
	var out bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing may start
	c.Run(ctx, []string{"-h"}, strings.NewReader(""), io.Discard, &out)
	s := out.String()
	if _, rest, ok := strings.Cut(s, ":\n"); ok && strings.HasPrefix(s, "Usage of ") {
		s = rest
	}
	return s
}

var flagName = regexp.MustCompile(`(?m)^  -(\S+)`)

// flagNames lists c's flags as --name.
func flagNames(c *command) []string {
	var names []string
	for _, m := range flagName.FindAllStringSubmatch(flagHelp(c), -1) {
		names = append(names, "--"+m[1])
	}
	slices.Sort(names)
	return names
}

// bashCompletion is the script `mcpwasm completion bash` prints.
func bashCompletion(context.Context) string {
	var b strings.Builder
	b.WriteString(`# bash completion for mcpwasm; generated by: mcpwasm completion bash
_mcpwasm() {
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} i
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "`)
	b.WriteString(strings.Join(commandNames(), " "))
	b.WriteString(`" -- "$cur"))
		return
	fi
	for ((i = 1; i < COMP_CWORD; i++)); do
		[ "${COMP_WORDS[i]}" = "--" ] && { COMPREPLY=($(compgen -c -- "$cur")); return; }
	done
	local words=""
	case $cmd in
`)
	for _, c := range commands {
		words := completionWords(c) // completion_shells.go
		if len(words) > 0 {
			fmt.Fprintf(&b, "\t%s) words=%q ;;\n", c.Name, strings.Join(words, " "))
		}
	}
	b.WriteString(`	esac
	if [[ $cur == -* || $cmd == help || $cmd == completion ]]; then
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
	elif [[ $cmd == new && $COMP_CWORD -eq 2 ]]; then
		COMPREPLY=($(compgen -W "go c rust wat ts js" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _mcpwasm mcpwasm
`)
	return b.String()
}
