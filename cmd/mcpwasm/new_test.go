package main

import (
	"bytes"
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
			call := exec.CommandContext(testContext(t), binPath, "call", "greet", arg,
				"--", binPath, "serve", "--cache-dir", cacheDir, "greet.wasm")
			call.Dir, call.Env = dir, env
			var callErr bytes.Buffer // may hold the server's compile notice
			call.Stderr = &callErr
			b, err := call.Output()
			if err != nil {
				t.Fatalf("mcpwasm call greet: %v\n%s", err, callErr.String())
			}
			if out := string(b); out != want {
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
	defer func(f func() string) { findSDK = f }(findSDK)
	findSDK = func() string { return "" } // a -trimpath build run outside any checkout
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"new"}, "mcpwasm new: missing LANGUAGE (go, c, rust, wat, ts or js)\n"},
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
// exit 0 (a newcomer's `go install`ed mcpwasm scaffolded a project that could not build), and
// leaves nothing behind: no project folder (which blocked the retry: "exists and is not
// empty"), no staging directory, no parent it created. The retry then succeeds.
func TestNewTidyFailureFails(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	t.Setenv("GOPROXY", "off") // the retry resolves from the module cache and the checkout's go.sum
	base := t.TempDir()
	for _, dir := range []string{filepath.Join(base, "x"), filepath.Join(base, "made", "for", "x")} {
		t.Setenv("PATH", "") // no go: tidy cannot run
		out, errOut, code := runCLI("new", "--sdk", root, "go", "x", dir)
		if code != ExitError || !strings.Contains(errOut, "go mod tidy failed for the new project, so "+dir+" was not created") || strings.Contains(out, "created") {
			t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and the tidy failure", code, out, errOut, ExitError)
		}
		if left, _ := os.ReadDir(base); len(left) != 0 {
			t.Fatalf("a failed mcpwasm new left %v in %s", left, base)
		}
		t.Setenv("PATH", path)
		out, errOut, code = runCLI("new", "--sdk", root, "go", "x", dir)
		if code != ExitOK || !strings.Contains(out, "created "+dir) {
			t.Fatalf("retry: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "go.sum")); err != nil {
			t.Errorf("retry: %v", err)
		}
		if err := os.RemoveAll(filepath.Join(base, strings.Split(strings.TrimPrefix(dir, base+"/"), "/")[0])); err != nil {
			t.Fatal(err)
		}
	}
	// Into an existing empty directory, given as "." (its parent need not be writable): a
	// failure leaves it empty, the retry fills it.
	dir := filepath.Join(base, "here")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("PATH", "")
	if _, errOut, code := runCLI("new", "--sdk", root, "go", "x", "."); code != ExitError {
		t.Errorf("into .: exit %d, stderr %q", code, errOut)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("a failed mcpwasm new left %v in .", left)
	}
	t.Setenv("PATH", path)
	if out, errOut, code := runCLI("new", "--sdk", root, "go", "x", "."); code != ExitOK || !strings.Contains(out, "created .") {
		t.Fatalf("into .: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if left, _ := os.ReadDir(dir); len(left) != 7 { // build.sh go.mod go.sum guest_test.go main.go README.md register.go
		t.Errorf("into .: %d entries, want 7: %v", len(left), left)
	}
}

// A binary built from a checkout, as `go build ./cmd/mcpwasm` or `go install ./cmd/mcpwasm`
// makes it, scaffolds without --sdk: it uses the checkout it was built from (a newcomer's
// `go install`ed binary took its pseudo-version for a release and asked the proxy for it).
func TestNewDevBuildFindsCheckout(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"go", "c"} { // c also copies SDK files from the checkout
		dir := filepath.Join(t.TempDir(), "greet")
		cmd := exec.CommandContext(testContext(t), binPath, "new", lang, "greet", dir)
		cmd.Dir = t.TempDir() // not inside the checkout: the binary's build path finds it
		cmd.Env = append(cacheEnv(t), "MCPWASM_SDK=", "GOPROXY=off")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "created "+dir) {
			t.Fatalf("%s: mcpwasm new: %v\n%s", lang, err, out)
		}
		gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		if want := "replace " + sdkModule + " => " + root + "\n"; !strings.Contains(string(gomod), want) {
			t.Errorf("%s: go.mod lacks %q:\n%s", lang, want, gomod)
		}
	}
}

// A -trimpath build records no source path: the checkout is found above the current
// directory instead, and nowhere else.
func TestSDKCheckoutFrom(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	for _, tt := range []struct{ file, wd, want string }{
		{filepath.Join(root, "cmd", "mcpwasm", "buildinfo.go"), elsewhere, root},
		{sdkModule + "/cmd/mcpwasm/buildinfo.go", filepath.Join(root, "guests", "calc"), root},
		{sdkModule + "/cmd/mcpwasm/buildinfo.go", root, root},
		{sdkModule + "/cmd/mcpwasm/buildinfo.go", elsewhere, ""},
		{filepath.Join(elsewhere, "cmd", "mcpwasm", "buildinfo.go"), elsewhere, ""},
	} {
		if got := sdkCheckoutFrom(tt.file, tt.wd); got != tt.want {
			t.Errorf("sdkCheckoutFrom(%q, %q) = %q, want %q", tt.file, tt.wd, got, tt.want)
		}
	}
}

// A binary built inside a git checkout is stamped with a pseudo-version (Go's default
// -buildvcs=auto): it is a development build, shown as "dev" to peers, as (devel) is.
func TestReleaseVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"":                                   false,
		"(devel)":                            false,
		"v0.0.0-20261130170655-294800708a2e": false,
		"v0.0.0-20261130170655-294800708a2e+dirty":  false,
		"v1.2.4-0.20261130170655-294800708a2e":      false,
		"v1.3.0-rc.1.0.20261130170655-294800708a2e": false,
		"v1.2.3+dirty": false,
		"v1.2.3":       true,
		"v1.3.0-rc.1":  true,
		"v0.1.0":       true,
	} {
		if got := releaseVersion(v); got != want {
			t.Errorf("releaseVersion(%q) = %v, want %v", v, got, want)
		}
	}
}

// A new project's go.mod and README name the Go that the SDK module needs: the go line of
// mcpwasm's own go.mod (the scaffold said 1.24, which cannot build it).
func TestScaffoldGoVersion(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, line := range strings.Split(string(mod), "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			want = strings.TrimSpace(v)
		}
	}
	if want == "" || sdkGoVersion != want {
		t.Fatalf("sdkGoVersion = %q, go.mod says %q", sdkGoVersion, want)
	}
}
