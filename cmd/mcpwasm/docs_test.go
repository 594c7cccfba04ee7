package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/mcpwasm/mcpwasm/internal/config"
)

// The user documentation is README.md (the front door) and the guides in docs/*.md. The
// tests here and in readme_test.go and readmesnippets_test.go check their snippets: Go blocks
// compile (readmesnippets_test.go), the grants example loads (readme_test.go), relative links
// resolve, every mcpwasm command line names a real command and its real flags, and every JSON
// block (and JSON heredoc in a shell block) is JSON, a config one a valid config.

// docFile is one documentation file: its path relative to the repository root and its text.
type docFile struct {
	name, text string
}

// docFiles returns README.md and docs/*.md, README first, the guides sorted by name.
func docFiles(t *testing.T) []docFile {
	t.Helper()
	guides, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(guides)
	var out []docFile
	for _, p := range append([]string{"../../README.md"}, guides...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, docFile{name: strings.TrimPrefix(filepath.ToSlash(p), "../../"), text: string(b)})
	}
	if len(out) < 10 {
		t.Fatalf("found %d documentation files, want README.md and at least 9 guides in docs/", len(out))
	}
	return out
}

// docFileText returns the text of one documentation file (e.g. "docs/grants.md").
func docFileText(t *testing.T, name string) string {
	t.Helper()
	for _, f := range docFiles(t) {
		if f.name == name {
			return f.text
		}
	}
	t.Fatalf("no documentation file %s", name)
	return ""
}

// fence is one fenced code block: its info string ("sh", "json", "") and body.
type fence struct {
	lang, body string
	line       int // of the opening fence, 1-based
}

// splitFences returns the fenced blocks of md and md's prose with every block's lines blanked
// (so prose line numbers stay those of the file).
func splitFences(md string) (blocks []fence, prose string) {
	lines := strings.Split(md, "\n")
	var cur *fence
	var body []string
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		if cur == nil && strings.HasPrefix(trimmed, "```") {
			cur = &fence{lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), line: i + 1}
			body = nil
			lines[i] = ""
			continue
		}
		if cur != nil {
			if strings.TrimSpace(l) == "```" {
				cur.body = strings.Join(body, "\n")
				blocks = append(blocks, *cur)
				cur = nil
			} else {
				body = append(body, strings.TrimPrefix(l, strings.Repeat(" ", len(l)-len(trimmed))))
			}
			lines[i] = ""
		}
	}
	return blocks, strings.Join(lines, "\n")
}

var (
	inlineCode = regexp.MustCompile("`[^`\n]+`")
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading  = regexp.MustCompile(`(?m)^#{1,6} +(.+?)\s*$`)
)

// anchors returns the GitHub heading anchors of md: lower case, inline code marks and
// punctuation other than - and _ dropped, spaces as -, a repeated one suffixed -1, -2, ….
func anchors(md string) map[string]bool {
	_, prose := splitFences(md)
	out := map[string]bool{}
	for _, m := range mdHeading.FindAllStringSubmatch(prose, -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		for n := 1; out[a]; n++ {
			a = fmt.Sprintf("%s-%d", b.String(), n)
		}
		out[a] = true
	}
	return out
}

// TestDocLinks: every code block of README.md and docs/*.md is closed, every relative link in
// them names a file or directory of the repository, and an anchor into one of those
// documentation files names a heading of it (anchors into other files, such as RATIONALE.md,
// are not checked: they are rewritten by topic independently).
func TestDocLinks(t *testing.T) {
	files := docFiles(t)
	anchorsOf := map[string]map[string]bool{}
	for _, f := range files {
		anchorsOf[f.name] = anchors(f.text)
	}
	checked := 0
	for _, f := range files {
		fences := 0
		for _, l := range strings.Split(f.text, "\n") {
			if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
				fences++
			}
		}
		if fences%2 != 0 {
			t.Errorf("%s: %d fence lines: a code block is not closed (the rest of the file would render as code)", f.name, fences)
		}
		_, prose := splitFences(f.text)
		prose = inlineCode.ReplaceAllString(prose, "")
		for i, line := range strings.Split(prose, "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				resolved := f.name
				if path != "" {
					resolved = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(f.name), path)))
					if strings.HasPrefix(resolved, "../") {
						t.Errorf("%s:%d: link %q leaves the repository", f.name, i+1, target)
						continue
					}
					if _, err := os.Stat(filepath.Join("../..", resolved)); err != nil {
						t.Errorf("%s:%d: link %q: %s does not exist", f.name, i+1, target, resolved)
						continue
					}
				}
				checked++
				if a, ok := anchorsOf[resolved]; ok && anchor != "" && !a[anchor] {
					t.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", f.name, i+1, target, resolved, anchor)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d relative links, want at least 50 (is the link pattern still right?)", checked)
	}
}

// shellWords splits a shell command line into words, keeping '…' and "…" quoted parts
// (quotes removed) inside one word; it stops at a # that starts a word (a comment).
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// shellOperators end a command in a line of shell.
var shellOperators = map[string]bool{"&&": true, "||": true, ";": true, "|": true, "&": true, ">": true, "<": true, "2>&1": true}

// isMcpwasm reports whether a word runs the mcpwasm binary: "mcpwasm", a path ending in
// /mcpwasm (./cmd/mcpwasm after go run, $(go env GOPATH)/bin/mcpwasm).
func isMcpwasm(w string) bool {
	return w == "mcpwasm" || strings.HasSuffix(w, "/mcpwasm") && !strings.Contains(w, "@")
}

// checkCommandLine checks the mcpwasm invocations of one shell command line: at the start of
// a command (the line's start, after an operator, a "(" or "$ " prompt), after "go run", or
// after a lone "--" (a server a client command spawns). The word after mcpwasm must be a
// command, and every -flag or --flag up to the next operator or lone "--" must be one of its
// flags. Each mistake is reported through errorf; the result is the number of invocations
// checked.
func checkCommandLine(errorf func(format string, args ...any), where, line string, flagsOf map[string]map[string]bool) int {
	words := shellWords(strings.TrimPrefix(strings.TrimSpace(line), "$ "))
	n := 0
	for i := 0; i < len(words); i++ {
		w := strings.TrimPrefix(words[i], "(")
		if !isMcpwasm(w) {
			continue
		}
		prev := ""
		if i > 0 {
			prev = words[i-1]
		}
		atStart := i == 0 || shellOperators[prev] || prev == "--" || prev == "(" ||
			i >= 2 && words[i-2] == "go" && prev == "run"
		if !atStart || i+1 >= len(words) || shellOperators[words[i+1]] {
			continue
		}
		name := words[i+1]
		flags, ok := flagsOf[name]
		if !ok {
			errorf("%s: %q: mcpwasm has no command %q", where, line, name)
			continue
		}
		n++
		for _, a := range words[i+2:] {
			if a == "--" || shellOperators[a] || strings.HasPrefix(a, ")") {
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				continue
			}
			f, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !flags[f] {
				errorf("%s: %q: mcpwasm %s has no flag -%s", where, line, name, f)
			}
		}
	}
	return n
}

// TestDocCommands: every mcpwasm command line in a shell block of README.md or docs/*.md
// (and every inline `mcpwasm COMMAND …` in their prose) names a command mcpwasm has, and only
// flags that command defines, so a renamed command or flag cannot leave a guide behind.
func TestDocCommands(t *testing.T) {
	flagsOf := map[string]map[string]bool{}
	for _, c := range commands {
		flags := map[string]bool{"h": true, "help": true}
		for _, f := range flagNames(c) {
			flags[strings.TrimPrefix(f, "--")] = true
		}
		flagsOf[c.Name] = flags
	}
	n := 0
	for _, f := range docFiles(t) {
		blocks, prose := splitFences(f.text)
		for _, b := range blocks {
			if b.lang != "sh" {
				continue
			}
			// Join continued lines; skip heredoc bodies.
			body := strings.ReplaceAll(b.body, "\\\n", " ")
			heredocEnd := ""
			for j, line := range strings.Split(body, "\n") {
				if heredocEnd != "" {
					if strings.TrimSpace(line) == heredocEnd {
						heredocEnd = ""
					}
					continue
				}
				if _, after, ok := strings.Cut(line, "<<"); ok {
					heredocEnd = strings.Trim(strings.Fields(after)[0], `'"-`)
				}
				n += checkCommandLine(t.Errorf, fmt.Sprintf("%s:%d", f.name, b.line+1+j), line, flagsOf)
			}
		}
		for i, line := range strings.Split(prose, "\n") {
			for _, span := range inlineCode.FindAllString(line, -1) {
				words := strings.Fields(strings.Trim(span, "`"))
				// Only spans that run a known command: prose quotes log lines starting with
				// "mcpwasm" too. Placeholders ([flags], COMMAND) and alternatives (a\|b) are skipped.
				if len(words) < 2 || words[0] != "mcpwasm" || flagsOf[words[1]] == nil {
					continue
				}
				n += checkCommandLine(t.Errorf, fmt.Sprintf("%s:%d", f.name, i+1), strings.Join(words, " "), flagsOf)
			}
		}
	}
	if n < 60 {
		t.Errorf("checked %d mcpwasm command lines, want at least 60", n)
	}
}

// TestDocCommandsCatchesDrift: the command check refuses an unknown command and an unknown
// flag, and does not take another program's flags (the Inspector's) for mcpwasm's.
func TestDocCommandsCatchesDrift(t *testing.T) {
	flagsOf := map[string]map[string]bool{"serve": {"config": true}, "call": {"url": true}}
	for _, tc := range []struct {
		line string
		n    int
		fail bool
	}{
		{"mcpwasm serve --config x.json", 1, false},
		{"mcpwasm serv --config x.json", 0, true},
		{"mcpwasm serve --confg x.json", 1, true},
		{"mcpwasm call calc '{\"a\":\"-x #y\"}' -- mcpwasm serve --config c.json", 2, false},
		{"mcpwasm call calc '{}' -- mcpwasm serve --cnfig c.json", 2, true},
		{"npx @modelcontextprotocol/inspector --cli mcpwasm serve --method tools/list", 0, false},
		{"npx @modelcontextprotocol/inspector --cli --method tools/list -- mcpwasm serve --config c.json", 1, false},
		{"go run ./cmd/mcpwasm serve   # serve the bundled guests", 1, false},
		{"go install ./cmd/mcpwasm", 0, false},
		{"claude mcp add mcpwasm -- \"$(command -v mcpwasm)\" serve", 0, false},
	} {
		failed := false
		n := checkCommandLine(func(string, ...any) { failed = true }, "test", tc.line, flagsOf)
		if n != tc.n || failed != tc.fail {
			t.Errorf("%q: %d invocations checked, failed %v; want %d, %v", tc.line, n, failed, tc.n, tc.fail)
		}
	}
}

// heredocJSON returns the bodies of the JSON heredocs (<<'JSON' … JSON) of a shell block.
func heredocJSON(sh string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(sh, "<<'JSON'\n")
		if !ok {
			return out
		}
		body, after, _ := strings.Cut(rest, "\nJSON")
		out = append(out, body)
		sh = after
	}
}

// TestDocJSON: every json block of README.md and docs/*.md, and every JSON heredoc of their
// shell blocks, is JSON; one that is an mcpwasm config (a top-level "guests" or "upstreams")
// passes the config file's schema and checks (internal/config.Parse).
func TestDocJSON(t *testing.T) {
	configs := 0
	for _, f := range docFiles(t) {
		blocks, _ := splitFences(f.text)
		for _, b := range blocks {
			var docs []string
			switch b.lang {
			case "json":
				docs = []string{b.body}
			case "sh":
				docs = heredocJSON(b.body)
			}
			for _, d := range docs {
				var v any
				if err := json.Unmarshal([]byte(d), &v); err != nil {
					t.Errorf("%s:%d: not JSON: %v\n%s", f.name, b.line, err, d)
					continue
				}
				if m, ok := v.(map[string]any); !ok || m["guests"] == nil && m["upstreams"] == nil {
					continue
				}
				configs++
				if _, err := config.Parse([]byte(d)); err != nil {
					t.Errorf("%s:%d: not a valid mcpwasm config: %v\n%s", f.name, b.line, err, d)
				}
			}
		}
	}
	if configs < 8 {
		t.Errorf("checked %d config snippets, want at least 8", configs)
	}
}
