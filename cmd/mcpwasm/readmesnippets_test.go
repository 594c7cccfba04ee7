package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every Go snippet in README.md and docs/*.md is code that compiles, so it cannot drift from
// the API: a fragment is, verbatim, the body of an Example function of the repository
// (compiled by go vet and go test, run when it has an Output comment); a whole file (a guest:
// "package" or a build constraint first) is built for wasip1 and its tool called. A snippet
// repeated in several files is checked once.
func TestReadmeGoSnippets(t *testing.T) {
	var blocks []string
	from := map[string]string{}
	for _, f := range docFiles(t) {
		for _, b := range goBlocks(f.text) {
			if _, dup := from[b]; !dup {
				blocks = append(blocks, b)
				from[b] = f.name
			}
		}
	}
	if len(blocks) < 2 {
		t.Fatalf("README.md and docs/*.md have %d distinct ```go blocks, want at least 2 (the guest and the embedding)", len(blocks))
	}
	examples := exampleBodies(t, "../..")
	for _, b := range blocks {
		if strings.HasPrefix(b, "package ") || strings.HasPrefix(b, "//go:build") {
			checkReadmeGuest(t, b)
			continue
		}
		if examples[b] == "" {
			t.Errorf("%s: snippet is not the body of any Example function (write it as one, verbatim):\n%s", from[b], b)
		}
	}
}

// goBlocks returns the contents of a markdown file's ```go blocks, without the final newline.
func goBlocks(md string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(md, "\n```go\n")
		if !ok {
			return out
		}
		block, after, _ := strings.Cut(rest, "\n```\n")
		out = append(out, block)
		md = after
	}
}

// exampleBodies maps the body of every Example function in the *_test.go files under root
// (its lines less one tab of indentation, without the braces' lines) to the function's name.
func exampleBodies(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") || fn.Body == nil {
				continue
			}
			body := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
			lines := strings.Split(strings.Trim(body, "\n"), "\n")
			for i, l := range lines {
				lines[i] = strings.TrimPrefix(l, "\t")
			}
			out[strings.Join(lines, "\n")] = p + ": " + fn.Name.Name
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkReadmeGuest builds the README's guest file for wasip1, as a package that exists only in
// the build's overlay (nothing is written into the repository), and calls its tool. The
// mcpwasm_infer tag infers the schemas at run time, as the schemagen step of the README
// would have written them.
func checkReadmeGuest(t *testing.T, src string) {
	t.Helper()
	dir := t.TempDir()
	main := filepath.Join(dir, "main.go")
	if err := os.WriteFile(main, []byte(src+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg, err := filepath.Abs("testdata/readmeguest")
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(pkg, "main.go"): main}})
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	wasm := filepath.Join(dir, "shout.wasm")
	cmd := exec.CommandContext(testContext(t), "go", "build", "-buildmode=c-shared", "-trimpath", "-tags", "mcpwasm_infer",
		"-overlay", ov, "-o", wasm, "./testdata/readmeguest")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("README guest: go build: %v\n%s\n%s", err, out, src)
	}
	out, code := runClient(t, "call", "shout", `{"text":"hi"}`, "--", binPath, "serve", "--cache-dir", cacheDir, wasm)
	if code != ExitOK || out != "HI\n" {
		t.Errorf("README guest: call shout {\"text\":\"hi\"}: exit %d, output %q, want \"HI\\n\"", code, out)
	}
}
