package main

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

// runCLI runs the command in process and returns stdout, stderr and the exit code.
func runCLI(args ...string) (string, string, int) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// Every command answers -h, --help and `mcpwasm help CMD` on stdout with its synopsis and
// examples, and exits 0.
func TestHelpEveryCommand(t *testing.T) {
	for _, c := range commands {
		for _, args := range [][]string{{c.Name, "-h"}, {c.Name, "--help"}, {"help", c.Name}} {
			out, errOut, code := runCLI(args...)
			if code != ExitOK || errOut != "" {
				t.Errorf("mcpwasm %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
			}
			for _, want := range []string{"usage: mcpwasm " + c.Name, "examples:\n  "} {
				if !strings.Contains(out, want) {
					t.Errorf("mcpwasm %s: output lacks %q:\n%s", strings.Join(args, " "), want, out)
				}
			}
		}
	}
	out, _, code := runCLI("serve", "--help")
	if code != ExitOK || !strings.Contains(out, "flags:\n") || !strings.Contains(out, "-config string") {
		t.Errorf("serve --help lists no flags:\n%s", out)
	}
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		out, _, code := runCLI(args...)
		if code != ExitOK || !strings.Contains(out, "mcpwasm serve ") || !strings.Contains(out, "mcpwasm help COMMAND") {
			t.Errorf("mcpwasm %s: exit %d:\n%s", args[0], code, out)
		}
	}
	// What follows "--" belongs to the server, not to the client command.
	if _, _, code := runCLI("tools", "--", "nonexistent-server-binary", "-h"); code == ExitOK {
		t.Errorf("tools -- CMD -h printed help instead of running CMD")
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"call", "--", "mcpwasm", "serve"}, "mcpwasm call: missing TOOL\n"},
		{[]string{"read", "--", "mcpwasm", "serve"}, "mcpwasm read: missing URI\n"},
		{[]string{"prompt", "--json", "--", "mcpwasm", "serve"}, "mcpwasm prompt: missing NAME\n"},
		{[]string{"call", "calc"}, "mcpwasm call: missing SERVER: give it as -- CMD ARGS... or --url URL\n"},
		{[]string{"tools", "extra", "--", "x"}, `mcpwasm tools: unexpected argument "extra"`},
		{[]string{"call", "calc", "{}", "extra", "--", "x"}, `mcpwasm call: unexpected argument "extra"`},
		{[]string{"call", "calc", "[1]", "--", "x"}, "mcpwasm call: arguments must be a JSON object: [1]\n"},
		{[]string{"inspect"}, "mcpwasm inspect: missing GUEST.wasm (or --config FILE, to show every guest of a config)\n"},
		{[]string{"help", "nope"}, `mcpwasm help: unknown command "nope"`},
		{[]string{"nope"}, `mcpwasm: unknown command "nope"` + "\n"},
		{[]string{"serv"}, `mcpwasm: unknown command "serv" (did you mean serve?)` + "\n"},
		{[]string{"completion", "tcsh"}, "mcpwasm completion: want: mcpwasm completion bash, zsh or fish"},
		{[]string{"serve", "--isolation", "tenant"}, `mcpwasm serve: --isolation "tenant": want shared, session or call`},
		{[]string{"tools", "--url", "127.0.0.1:8080/mcp"}, `mcpwasm tools: --url: "127.0.0.1:8080/mcp": want an http:// or https:// URL`},
		{[]string{"logout", "ftp://x/mcp"}, `mcpwasm logout: "ftp://x/mcp": want an http:// or https:// URL`},
	}
	for _, tt := range tests {
		_, errOut, code := runCLI(tt.args...)
		if code != ExitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("mcpwasm %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), code, errOut, ExitUsage, tt.want)
		}
	}
}

// A config entry whose module is missing is named by file and index.
func TestConfigErrorNamesEntry(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpwasm.json")
	if err := os.WriteFile(filepath.Join(dir, "ok.wasm"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	body := `{"guests": [{"path": "ok.wasm"}, {"path": "ok.wasm", "name": "two"}, {"path": "missing.wasm"}]}`
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI("serve", "--no-cache", "--config", cfg)
	want := "mcpwasm serve: " + cfg + ": guests[2].path: open " + filepath.Join(dir, "missing.wasm") + ": no such file or directory\n"
	if code != ExitLoad || errOut != want {
		t.Errorf("exit %d, stderr %q; want exit %d, %q", code, errOut, ExitLoad, want)
	}
	// A module that fails to load is named by its entry too.
	if err := os.WriteFile(cfg, []byte(`{"guests": [{"path": "ok.wasm"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCLI("serve", "--no-cache", "--config", cfg)
	if code != ExitLoad || !strings.HasPrefix(errOut, "mcpwasm serve: "+cfg+": guests[0]: ") {
		t.Errorf("exit %d, stderr %q; want the entry named", code, errOut)
	}
}

// A spawned server's stderr is hidden unless --server-logs; when it fails to start, its last
// lines are part of the error.
func TestClientServerLogs(t *testing.T) {
	server := []string{"--", binPath, "serve", "--cache-dir", cacheDir, fixturePath}
	quiet := exec.Command(binPath, append([]string{"tools"}, server...)...)
	var stderr bytes.Buffer
	quiet.Stderr = &stderr
	if out, err := quiet.Output(); err != nil || !strings.Contains(string(out), "echo(") {
		t.Fatalf("tools: %v\n%s\n%s", err, out, &stderr)
	}
	if dropCompileNotices(stderr.String()) != "" { // notice_test.go
		t.Errorf("server logs shown by default: %q", &stderr)
	}
	loud := exec.Command(binPath, append([]string{"tools", "--server-logs"}, server...)...)
	stderr.Reset()
	loud.Stderr = &stderr
	if _, err := loud.Output(); err != nil || !strings.Contains(stderr.String(), "msg=serving") {
		t.Errorf("--server-logs: %v, stderr %q", err, &stderr)
	}
	bad := exec.Command(binPath, "tools", "--", binPath, "serve", "--no-such-flag")
	stderr.Reset()
	bad.Stderr = &stderr
	if err := bad.Run(); err == nil || !strings.Contains(stderr.String(), "the server's last stderr lines") ||
		!strings.Contains(stderr.String(), "flag provided but not defined: -no-such-flag") {
		t.Errorf("failed start: %v, stderr %q", err, &stderr)
	}
}

// The human tools listing names each tool's arguments, optional ones marked "?".
func TestToolArgs(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"text", "pattern"},
		"properties": map[string]any{"all": map[string]any{}, "text": map[string]any{}, "pattern": map[string]any{}, "max": map[string]any{}}}
	if got, want := strings.Join(toolArgs(schema), ", "), "text, pattern, all?, max?"; got != want {
		t.Errorf("toolArgs = %q, want %q", got, want)
	}
	if got := toolArgs(map[string]any{"type": "object"}); len(got) != 0 {
		t.Errorf("no properties: %q", got)
	}
}

func TestCompletionBash(t *testing.T) {
	out, _, code := runCLI("completion", "bash")
	if code != ExitOK || !strings.Contains(out, "complete -o filenames -F _mcpwasm mcpwasm") || !strings.Contains(out, "--server-logs") {
		t.Fatalf("completion bash: exit %d:\n%s", code, out)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		testenv.Skip(t, "no bash")
	}
	// The script parses, and completes a command and a flag.
	script := out + `
COMP_WORDS=(mcpwasm ser); COMP_CWORD=1; _mcpwasm; echo "${COMPREPLY[*]}"
COMP_WORDS=(mcpwasm call --server-l); COMP_CWORD=2; _mcpwasm; echo "${COMPREPLY[*]}"
`
	got, err := exec.Command(bash, "-c", script).CombinedOutput()
	if err != nil || string(got) != "serve\n--server-logs\n" {
		t.Errorf("completion: %v\n%s", err, got)
	}
}

// Flags may follow file arguments, and a bad flag is one line naming the flag and what it
// expects (no flag dump); an unknown flag names the nearest known one.
func TestFlagErrorsOneLine(t *testing.T) {
	usage := "usage: mcpwasm serve [flags] [GUEST.wasm ...] (see 'mcpwasm help serve')\n"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--timeout", "5"}, "mcpwasm serve: --timeout \"5\": want a duration such as 30s, 500ms or 1m30s\n" + usage},
		{[]string{"serve", "--memory-mb", "-1"}, "mcpwasm serve: --memory-mb \"-1\": want a whole number, 0 or more\n" + usage},
		{[]string{"serve", "--instances", "many"}, "mcpwasm serve: --instances \"many\": want a whole number\n" + usage},
		{[]string{"serve", "--confg", "x"}, "mcpwasm serve: flag provided but not defined: -confg (did you mean --config?)\n" + usage},
		{[]string{"serve", "--log-level", "verbose"}, "mcpwasm serve: --log-level \"verbose\": want debug, info, warn or error\n" + usage},
		// after a file argument: the flag is still a flag, not a file name
		{[]string{"serve", "nothere.wasm", "--timeout", "5"}, "mcpwasm serve: --timeout \"5\": want a duration such as 30s, 500ms or 1m30s\n" + usage},
		{[]string{"serve", "x.wasm", "--timeout", "abc"}, "mcpwasm serve: --timeout \"abc\": want a duration such as 30s, 500ms or 1m30s\n" + usage},
		{[]string{"inspect", "x.wasm", "--jsn"}, "mcpwasm inspect: flag provided but not defined: -jsn (did you mean --json?)\n" +
			"usage: mcpwasm inspect [--config FILE] [--json] [GUEST.wasm] (see 'mcpwasm help inspect')\n"},
	} {
		_, errOut, code := runCLI(tt.args...)
		if code != ExitUsage || errOut != tt.want {
			t.Errorf("mcpwasm %s: exit %d, stderr\n%s\nwant exit %d and\n%s", strings.Join(tt.args, " "), code, errOut, ExitUsage, tt.want)
		}
	}
	// A flag after the guest path is applied: --timeout after the file is read as a flag.
	_, errOut, code := runCLI("inspect", fixturePath, "--json", "--timeout", "-1s")
	if code != ExitUsage || !strings.Contains(errOut, "--timeout -1s: must not be negative") {
		t.Errorf("inspect FILE --timeout -1s: exit %d, %q", code, errOut)
	}
}

// The flag package's other errors are one line too: a boolean, a missing value, and a flag of
// our own type, whose Set error says what it wants (not its Go type's name).
func TestFlagErrorsOwnTypes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--lazy=maybe"}, "mcpwasm serve: --lazy \"maybe\": want true or false\n"},
		{[]string{"serve", "--prewarm=maybe"}, "mcpwasm serve: --prewarm \"maybe\": want true or false\n"},
		{[]string{"serve", "--http"}, "mcpwasm serve: --http needs a value\n"},
		{[]string{"serve", "--timeout"}, "mcpwasm serve: --timeout needs a value: a duration such as 30s, 500ms or 1m30s\n"},
		{[]string{"tools", "--header", "x", "--url", "http://127.0.0.1:1"}, "mcpwasm tools: --header \"x\": want NAME:VALUE, got \"x\"\n"},
		{[]string{"call", "--env", "=x", "calc", "--", "x"}, "mcpwasm call: --env \"=x\": want NAME=VALUE or NAME, got \"=x\"\n"},
	} {
		_, errOut, code := runCLI(tt.args...)
		if first, _, _ := strings.Cut(errOut, "usage:"); code != ExitUsage || first != tt.want {
			t.Errorf("mcpwasm %s: exit %d, stderr %q; want %q", strings.Join(tt.args, " "), code, errOut, tt.want)
		}
	}
}

// serve -h lists every exit code serve returns: each Exit constant named in serve's files
// (serve.go, http.go, httpguard.go) has its number in the help's "Exit codes:" sentence
// (reproducer: 5, --http on a public address without a token, was missing).
func TestServeHelpExitCodes(t *testing.T) {
	codes := map[string]int{"ExitOK": ExitOK, "ExitError": ExitError, "ExitUsage": ExitUsage, "ExitLoad": ExitLoad,
		"ExitToolError": ExitToolError, "ExitPublicNoToken": ExitPublicNoToken}
	used := map[int]string{}
	fset := token.NewFileSet()
	for _, name := range []string{"serve.go", "http.go", "httpguard.go"} {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && strings.HasPrefix(id.Name, "Exit") {
				c, ok := codes[id.Name]
				if !ok {
					t.Errorf("%s: %s: an exit code this test does not know; add it to codes", fset.Position(id.Pos()), id.Name)
				}
				used[c] = id.Name
			}
			return true
		})
	}
	out, _, _ := runCLI("serve", "-h")
	_, listed, ok := strings.Cut(strings.Join(strings.Fields(out), " "), "Exit codes:")
	if !ok {
		t.Fatalf("serve -h has no \"Exit codes:\":\n%s", out)
	}
	listed, _, _ = strings.Cut(listed, ".")
	for c, name := range used {
		if !regexp.MustCompile(`(^|[ ,(])` + strconv.Itoa(c) + ` `).MatchString(listed) {
			t.Errorf("serve -h: exit code %d (%s) missing from %q", c, name, listed)
		}
	}
	if len(used) < 5 {
		t.Errorf("found exit codes %v in serve's files; want at least 0, 1, 2, 3 and 5", used)
	}
}
