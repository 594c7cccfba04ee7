package main

import (
	"errors"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cacheEnv is the environment for a child that uses mcpwasm's default compilation cache:
// XDG_CACHE_HOME is a temporary directory whose mcpwasm/compile is the tests' shared
// cacheDir, and Go's build cache stays where it is.
func cacheEnv(t *testing.T) []string {
	t.Helper()
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "mcpwasm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(cacheDir, filepath.Join(xdg, "mcpwasm", "compile")); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "XDG_CACHE_HOME="+xdg, "GOCACHE="+strings.TrimSpace(string(gocache)))
}

// TestNewScaffolds creates a project in each language with `mcpwasm new --sdk CHECKOUT` and
// runs what its README says: ./build.sh, then go test ./... (which loads the guest through
// the runtime and calls its tool). Modules come from the module cache only (GOPROXY=off).
// A build.sh exiting 3 names a missing toolchain (wat2wasm, clang, a wasm rustc): the case
// is skipped locally and fails under CI, which installs them (.ci/install-toolchains.sh).
func TestNewScaffolds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and compiles a Go guest")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"go", "wat", "c", "rust"} {
		t.Run(lang, func(t *testing.T) {
			env := append(cacheEnv(t), "GOPROXY=off", "GOFLAGS=-mod=mod")
			dir := filepath.Join(t.TempDir(), "greet")
			step := func(name string, args ...string) string {
				t.Helper()
				cmd := exec.CommandContext(testContext(t), name, args...)
				cmd.Dir, cmd.Env = dir, env
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
				}
				return string(out)
			}
			newCmd := exec.CommandContext(testContext(t), binPath, "new", "--sdk", root, lang, "greet", dir)
			newCmd.Env = env
			if out, err := newCmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "created "+dir) {
				t.Fatalf("mcpwasm new: %v\n%s", err, out)
			}
			build := exec.CommandContext(testContext(t), "bash", "build.sh")
			build.Dir, build.Env = dir, env
			if out, err := build.CombinedOutput(); err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) && ee.ExitCode() == 3 {
					testenv.Skip(t, "toolchain missing: %s", out)
				}
				t.Fatalf("build.sh: %v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, "greet.wasm")); err != nil {
				t.Fatalf("build.sh built no greet.wasm: %v", err)
			}
			if out := step("go", "test", "-count=1", "./..."); !strings.Contains(out, "ok") {
				t.Errorf("go test: %s", out)
			}
			// The built guest serves through the CLI too.
			want, arg := "hello, Ada\n", `{"name":"Ada"}`
			if lang == "wat" {
				want, arg = "{\"text\":\"Ada\"}\n", `{"text":"Ada"}`
			}
			out := step(binPath, "call", "greet", arg,
				"--", binPath, "serve", "--cache-dir", cacheDir, "greet.wasm")
			if out != want {
				t.Errorf("mcpwasm call greet = %q, want %q", out, want)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	nonEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(nonEmpty, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCPWASM_SDK", "")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"new"}, "mcpwasm new: missing LANGUAGE (go, c, rust or wat)\n"},
		{[]string{"new", "go"}, "mcpwasm new: missing NAME\n"},
		{[]string{"new", "cobol", "x"}, `mcpwasm new: unknown language "cobol"`},
		{[]string{"new", "go", "Bad-Name"}, `mcpwasm new: NAME "Bad-Name": want lower-case letters`},
		{[]string{"new", "--sdk", root, "go", "x", nonEmpty}, "exists and is not empty"},
		{[]string{"new", "--sdk", t.TempDir(), "go", "x", t.TempDir()}, "not a checkout of github.com/mcpwasm/mcpwasm"},
		{[]string{"new", "go", "x", t.TempDir()}, "development build"},
	} {
		_, errOut, code := runCLI(tt.args...)
		if code != ExitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("mcpwasm %s: exit %d, stderr %q; want %q", strings.Join(tt.args, " "), code, errOut, tt.want)
		}
	}
}

// A project whose go mod tidy fails is reported as a failure (exit 1), not "created" with
// exit 0 (a newcomer's `go install`ed mcpwasm scaffolded a project that could not build).
func TestNewTidyFailureFails(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "") // no go: tidy cannot run
	dir := filepath.Join(t.TempDir(), "x")
	out, errOut, code := runCLI("new", "--sdk", root, "go", "x", dir)
	if code != ExitError || !strings.Contains(errOut, "created "+dir+", but go mod tidy there failed") || strings.Contains(out, "created") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and the tidy failure", code, out, errOut, ExitError)
	}
}
