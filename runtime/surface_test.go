package runtime_test

import (
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The public runtime API is held small (RATIONALE.md, "The public runtime API: 25 names"):
// at most 25 exported names as `go doc` lists them — each const, var, func and type once,
// methods not counted. The exact list is here, so adding a name is a reviewed change of this
// test, not an accident: what an embedder plugs in lives in runtime/peer, what the operator
// decides in runtime/policy.
func TestPublicSurface(t *testing.T) {
	want := []string{
		// types
		"CallError", "CallHooks", "Grants", "Guest", "GuestConfig", "GuestStats", "Host", "Limits",
		"Observer", "Options", "Server", // Server: a whole-server guest (runtime/internal/engine/wasiserver.go)
		// funcs
		"NewHost", "OutcomeOf", "WithCallHooks",
		// the sentinels for errors.Is
		"ErrABI", "ErrCancelled", "ErrClosed", "ErrInvalidArguments", "ErrLoadLimit", "ErrMemoryLimit",
		"ErrOutputLimit", "ErrStopped", "ErrTimeLimit", "ErrTrap", "ErrUnknownTool",
	}
	got := exportedNames(t, ".")
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("runtime exports %d names:\n  %s\nwant %d:\n  %s", len(got), strings.Join(got, " "), len(want), strings.Join(want, " "))
	}
	if len(got) > 25 {
		t.Errorf("runtime exports %d names; the public API is held at 25 at most", len(got))
	}
}

// exportedNames lists, sorted, the exported consts, vars, funcs and types of the package in
// dir (its non-test files for this platform), as go/doc sees them: a func that returns a type
// and a typed const count, a method does not.
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, bp.ImportPath)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				if token.IsExported(n) {
					names = append(names, n)
				}
			}
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			names = append(names, f.Name)
		}
	}
	values(p.Consts)
	values(p.Vars)
	funcs(p.Funcs)
	for _, typ := range p.Types {
		names = append(names, typ.Name)
		values(typ.Consts)
		values(typ.Vars)
		funcs(typ.Funcs)
	}
	slices.Sort(names)
	return names
}
