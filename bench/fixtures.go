// Package bench measures mcpwasm's per-call cost against the physical floor (a bare wazero
// pointer+length call), Extism's Go SDK, and a native MCP go-sdk server. The Benchmark
// functions in bench_test.go and the driver bench/cmd/mcpwasm-bench share the bodies in this
// package; see BENCHMARKS.md for the results and the commands that reproduce them.
package bench

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BareWat is bare_echo.wasm: alloc(n) and echo(ptr, len) -> i64, no ABI (the floor).
//
// Rebuild: wat2wasm bench/testdata/bare_echo.wat -o bench/testdata/bare_echo.wasm
//
//go:embed testdata/bare_echo.wasm
var BareWat []byte

// ExtismWat is extism_echo.wasm: exports echo and noop against Extism's extism:host/env ABI.
//
// Rebuild: wat2wasm bench/testdata/extism_echo.wat -o bench/testdata/extism_echo.wasm
//
//go:embed testdata/extism_echo.wasm
var ExtismWat []byte

// ExtismV1Wat is extism_v1_echo.wasm: the same echo as a hyper-mcp v1 plugin (describe, call),
// which mcpwasm serves as a guest of kind extism and extism/go-sdk runs as it is.
//
// Rebuild: wat2wasm bench/testdata/extism_v1_echo.wat -o bench/testdata/extism_v1_echo.wasm
//
//go:embed testdata/extism_v1_echo.wasm
var ExtismV1Wat []byte

// PluginInput is what a hyper-mcp v1 plugin's call gets for tool echo with args: what
// mcpwasm passes it, and what the go-sdk case passes, so both run the same guest work.
func PluginInput(args []byte) []byte {
	return append(append([]byte(`{"params":{"name":"echo","arguments":`), args...), `}}`...)
}

// GoEchoID is the guest and tool name of the Go echo guest (testdata/guests/goecho).
const GoEchoID = "gecho0000"

// GoGuests are the Go guests, built from source by BuildGoGuests.
type GoGuests struct {
	Echo []byte // testdata/guests/goecho: guest SDK, AddRawTool
	Bare []byte // testdata/guests/gobare: a bare //go:wasmexport echo
	Sha  []byte // testdata/guests/gosha: SHA-256 of 1 MiB, as a tool and as a bare export
}

// ModuleRoot returns the root of the mcpwasm repository: the directory above the working
// directory whose go.mod declares module github.com/mcpwasm/mcpwasm. The benchmarks are a
// module of their own (bench/go.mod) so the root module does not carry Extism; the guests and
// binaries they measure are built in the root module.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/mcpwasm/mcpwasm\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the mcpwasm repository")
		}
		dir = parent
	}
}

// BuildGoGuests builds the Go guests into dir with
// GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared (the way guests/build.sh does).
func BuildGoGuests(ctx context.Context, dir string) (*GoGuests, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	build := func(pkg string) ([]byte, error) {
		out := filepath.Join(dir, filepath.Base(pkg)+".wasm")
		cmd := exec.CommandContext(ctx, "go", "build", "-buildmode=c-shared", "-trimpath", `-ldflags=-s -w`, "-o", out, "./"+pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building %s: %v\n%s", pkg, err, b)
		}
		return os.ReadFile(out)
	}
	var g GoGuests
	if g.Echo, err = build("testdata/guests/goecho"); err != nil {
		return nil, err
	}
	if g.Bare, err = build("testdata/guests/gobare"); err != nil {
		return nil, err
	}
	if g.Sha, err = build("testdata/guests/gosha"); err != nil {
		return nil, err
	}
	return &g, nil
}

// GoEchoCopy returns a copy of the Go echo guest whose guest and tool name is
// "gecho" + four digits of i, so many copies can load into one host (tool names must be
// unique). The name is rewritten in place in the data section: same length, same module.
func GoEchoCopy(echo []byte, i int) ([]byte, string) {
	name := fmt.Sprintf("gecho%04d", i)
	return bytes.ReplaceAll(echo, []byte(GoEchoID), []byte(name)), name
}

// WatEchoCopy returns a copy of testdata/wat/echo.wasm whose guest and tool name is
// "e" + three digits of i (same length as "echo", so the data segment keeps its size).
func WatEchoCopy(echo []byte, i int) ([]byte, string) {
	name := fmt.Sprintf("e%03d", i)
	return bytes.ReplaceAll(echo, []byte(`"name":"echo"`), []byte(`"name":"`+name+`"`)), name
}

// Args returns a JSON object {"text":"aaa…"} of exactly n bytes (n >= 11).
func Args(n int) []byte {
	const pre, post = `{"text":"`, `"}`
	b := make([]byte, 0, n)
	b = append(b, pre...)
	b = append(b, bytes.Repeat([]byte("a"), n-len(pre)-len(post))...)
	return append(b, post...)
}

// Sizes are the echo payload sizes, in bytes: 100 B, 10 KiB, 1 MiB.
var Sizes = []int{100, 10 << 10, 1 << 20}

// SizeName is "100B", "10KiB" or "1MiB".
func SizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
